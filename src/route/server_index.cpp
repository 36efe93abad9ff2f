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
  // Counting passes, then each group's devices and links in index order.
  const auto fill = [&](Lists& out, int count, auto group_of_item) {
    out.start.assign(static_cast<std::size_t>(groups) + 1, 0);
    for (int i = 0; i < count; ++i)
      if (const int g = group_of_item(i); g >= 0) ++out.start[static_cast<std::size_t>(g) + 1];
    for (std::size_t g = 1; g < out.start.size(); ++g) out.start[g] += out.start[g - 1];
    out.items.resize(static_cast<std::size_t>(out.start.back()));
    std::vector<int> next(out.start.begin(), out.start.end() - 1);
    for (int i = 0; i < count; ++i)
      if (const int g = group_of_item(i); g >= 0)
        out.items[static_cast<std::size_t>(next[static_cast<std::size_t>(g)]++)] = i;
  };
  fill(members_, n, [&](int d) { return group_of_[static_cast<std::size_t>(d)]; });
  for (int g = 0; g < groups; ++g) {
    const std::span<const int> m = members_.of(g);
    for (std::size_t i = 0; i < m.size(); ++i)
      slot_of_[static_cast<std::size_t>(m[i])] = static_cast<int>(i);
  }
  const int nl = static_cast<int>(t.link_count());
  // A link belongs to a group when both its ends do.
  const auto link_group = [&](int l) {
    const Link& link = t.link(l);
    const int g = group_of_[static_cast<std::size_t>(link.a)];
    return g >= 0 && g == group_of_[static_cast<std::size_t>(link.b)] ? g : -1;
  };
  fill(links_, nl, link_group);
  link_slot_.assign(static_cast<std::size_t>(nl), -1);
  for (int g = 0; g < groups; ++g) {
    const std::span<const int> ls = links_.of(g);
    for (std::size_t i = 0; i < ls.size(); ++i)
      link_slot_[static_cast<std::size_t>(ls[i])] = static_cast<int>(i);
  }
  // Compare every server with the first one of the same size (the common case is a cluster of
  // identical copies, where this finds one template for all).
  template_of_.resize(groups);
  int first = -1;
  for (int g = 0; g < groups; ++g) {
    template_of_[g] = g;
    if (members_.of(g).empty()) continue;
    if (first < 0)
      first = g;
    else if (same_wiring(t, first, g))
      template_of_[g] = first;
  }
}

bool ServerIndex::same_wiring(const Topology& t, int a, int b) const {
  const std::span<const int> ma = members_.of(a), mb = members_.of(b);
  const std::span<const int> la = links_.of(a), lb = links_.of(b);
  if (ma.size() != mb.size() || la.size() != lb.size()) return false;
  for (std::size_t i = 0; i < ma.size(); ++i) {
    const Device& x = t.device(ma[i]);
    const Device& y = t.device(mb[i]);
    if (x.type != y.type || x.model != y.model || x.local_index != y.local_index) return false;
  }
  for (std::size_t i = 0; i < la.size(); ++i) {
    const Link& x = t.link(la[i]);
    const Link& y = t.link(lb[i]);
    if (slot_of_[x.a] != slot_of_[y.a] || slot_of_[x.b] != slot_of_[y.b] || x.kind != y.kind ||
        x.bw_GBps != y.bw_GBps || x.latency_us != y.latency_us)
      return false;
  }
  return true;
}

Path ServerIndex::translate(const Path& p, int from, int to) const {
  if (from == to) return p;
  Path out = p;
  out.src = same_slot(p.src, to);
  out.dst = same_slot(p.dst, to);
  for (DirLink& d : out.hops) {
    const int l = links_.of(to)[static_cast<std::size_t>(link_slot_[link_of(d)])];
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
    hops.push_back(2 * links_.of(to)[static_cast<std::size_t>(link_slot_[link_of(d)])] +
                   (is_reverse(d) ? 1 : 0));
}

}  // namespace topoplan::route
