#include "route/server_index.hpp"

namespace topoplan::route {

ServerIndex::ServerIndex(const Topology& t) {
  const int n = static_cast<int>(t.device_count());
  group_of_.assign(n, -1);
  slot_of_.assign(n, -1);
  int groups = 0;
  for (int d = 0; d < n; ++d) {
    const Device& dev = t.device(d);
    if (dev.type == DeviceType::NetSwitch) continue;
    group_of_[d] = dev.node + 1;
    groups = std::max(groups, dev.node + 2);
  }
  members_.resize(groups);
  links_.resize(groups);
  for (int d = 0; d < n; ++d) {
    if (group_of_[d] < 0) continue;
    auto& m = members_[group_of_[d]];
    slot_of_[d] = static_cast<int>(m.size());
    m.push_back(d);
  }
  const int nl = static_cast<int>(t.link_count());
  link_slot_.assign(nl, -1);
  for (int l = 0; l < nl; ++l) {
    const Link& link = t.link(l);
    const int g = group_of_[link.a];
    if (g < 0 || g != group_of_[link.b]) continue;
    link_slot_[l] = static_cast<int>(links_[g].size());
    links_[g].push_back(l);
  }
  // Compare every server with the first one of the same size (the common case is a cluster of
  // identical copies, where this finds one template for all).
  template_of_.resize(groups);
  int first = -1;
  for (int g = 0; g < groups; ++g) {
    template_of_[g] = g;
    if (members_[g].empty()) continue;
    if (first < 0)
      first = g;
    else if (same_wiring(t, first, g))
      template_of_[g] = first;
  }
}

bool ServerIndex::same_wiring(const Topology& t, int a, int b) const {
  if (members_[a].size() != members_[b].size() || links_[a].size() != links_[b].size())
    return false;
  for (std::size_t i = 0; i < members_[a].size(); ++i) {
    const Device& x = t.device(members_[a][i]);
    const Device& y = t.device(members_[b][i]);
    if (x.type != y.type || x.model != y.model || x.local_index != y.local_index) return false;
  }
  for (std::size_t i = 0; i < links_[a].size(); ++i) {
    const Link& x = t.link(links_[a][i]);
    const Link& y = t.link(links_[b][i]);
    if (slot_of_[x.a] != slot_of_[y.a] || slot_of_[x.b] != slot_of_[y.b] || x.kind != y.kind ||
        x.bw_GBps != y.bw_GBps || x.latency_us != y.latency_us)
      return false;
  }
  return true;
}

Path ServerIndex::translate(const Path& p, int from, int to) const {
  if (from == to) return p;
  Path out = p;
  out.src = members_[to][slot_of_[p.src]];
  out.dst = members_[to][slot_of_[p.dst]];
  for (DirLink& d : out.hops) {
    const int l = links_[to][link_slot_[link_of(d)]];
    d = 2 * l + (is_reverse(d) ? 1 : 0);
  }
  return out;
}

void ServerIndex::append_translated(const Path& p, int from, int to,
                                    std::vector<DirLink>& hops) const {
  if (from == to) {
    hops.insert(hops.end(), p.hops.begin(), p.hops.end());
    return;
  }
  for (DirLink d : p.hops)
    hops.push_back(2 * links_[to][link_slot_[link_of(d)]] + (is_reverse(d) ? 1 : 0));
}

}  // namespace topoplan::route
