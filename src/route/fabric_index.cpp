#include "route/fabric_index.hpp"

#include <algorithm>
#include <optional>

namespace topoplan::route {

std::uint64_t mix_hash(std::uint64_t x) {  // splitmix64 finaliser: cheap, well spread
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

FabricIndex::FabricIndex(const Topology& t) : t_(t) {
  const int n = static_cast<int>(t.device_count());
  nic_up_.assign(n, -1);
  nic_leaf_.assign(n, -1);
  switch_of_.assign(n, -1);
  int max_tier = 0;
  for (int d = 0; d < n; ++d) {
    const Device& dev = t.device(d);
    if (dev.type != DeviceType::NetSwitch) continue;
    switch_of_[d] = static_cast<int>(switches_.size());
    switches_.push_back(Switch{dev.tier, 0, -1, {}});
    max_tier = std::max(max_tier, dev.tier);
  }
  if (switches_.empty()) return;
  // Leaf ordinals in device order; ranges propagate tier by tier from below.
  int leaves = 0;
  std::vector<std::vector<int>> by_tier(max_tier + 1);
  for (int d = 0; d < n; ++d) {
    const int s = switch_of_[d];
    if (s < 0) continue;
    Switch& sw = switches_[s];
    if (sw.tier < 1) return;  // a switch without a tier: not a generated hierarchy
    by_tier[sw.tier].push_back(d);
    if (sw.tier == 1) sw.lo = sw.hi = leaves++;
  }
  for (int tier = 1; tier <= max_tier; ++tier) {
    for (int d : by_tier[tier]) {
      Switch& sw = switches_[switch_of_[d]];
      for (const Adjacent& a : t.neighbours(d)) {
        const int o = switch_of_[a.device];
        if (o < 0) {
          if (tier == 1 && t.device(a.device).type == DeviceType::Nic && nic_up_[a.device] < 0) {
            nic_up_[a.device] = a.out ^ 1;
            nic_leaf_[a.device] = sw.lo;
          }
          continue;
        }
        const Switch& other = switches_[o];
        if (other.tier > tier) sw.up.push_back(a);
        if (other.tier < tier) {
          sw.lo = sw.hi < sw.lo ? other.lo : std::min(sw.lo, other.lo);
          sw.hi = std::max(sw.hi, other.hi);
        }
      }
    }
  }
  leaf_plane_.assign(leaves, -1);
  for (int d : by_tier[1]) {  // plane = lowest leaf ordinal under the top of its tree
    int cur = d;
    while (!switches_[switch_of_[cur]].up.empty())
      cur = switches_[switch_of_[cur]].up.front().device;
    leaf_plane_[switches_[switch_of_[d]].lo] = switches_[switch_of_[cur]].lo;
  }
  usable_ = true;
  uniform_ = check_uniform();
}

namespace {
bool alike(const Link& x, const Link& y) {
  return x.type == y.type && x.count == y.count && x.bw_GBps == y.bw_GBps &&
         x.efficiency == y.efficiency && x.latency_us == y.latency_us && x.kind == y.kind;
}
}  // namespace

bool FabricIndex::check_uniform() const {
  // Topology::link() assembles a value, so the first link of each kind is kept by value.
  std::optional<Link> nic_link;
  for (DirLink d : nic_up_) {
    if (d < 0) continue;
    const Link l = t_.link(link_of(d));
    if (nic_link && !alike(*nic_link, l)) return false;
    nic_link = l;
  }
  std::vector<std::optional<Link>> up_of_tier;
  for (const Switch& sw : switches_) {
    if (sw.up.empty()) continue;
    if (static_cast<std::size_t>(sw.tier) >= up_of_tier.size()) up_of_tier.resize(sw.tier + 1);
    std::optional<Link>& first = up_of_tier[static_cast<std::size_t>(sw.tier)];
    const Switch& to0 = switches_[switch_of_[sw.up.front().device]];
    for (const Adjacent& a : sw.up) {
      const Link l = t_.link(link_of(a.out));
      if (first && !alike(*first, l)) return false;
      first = l;
      const Switch& to = switches_[switch_of_[a.device]];
      if (to.lo != to0.lo || to.hi != to0.hi) return false;
    }
  }
  return true;
}

int FabricIndex::climb(int nic_src, int nic_dst) const {
  if (!usable_ || nic_up_[nic_src] < 0 || nic_up_[nic_dst] < 0) return -1;
  const int target = nic_leaf_[nic_dst];
  int cur = t_.to_device(nic_up_[nic_src]);
  int tiers = 1;
  while (!below(cur, target)) {
    const auto& up = switches_[switch_of_[cur]].up;
    if (up.empty()) return -1;
    cur = up.front().device;  // alike whichever the hash picks (uniform())
    ++tiers;
  }
  return tiers;
}

bool FabricIndex::below(int sw, int ordinal) const {
  const Switch& s = switches_[switch_of_[sw]];
  return s.lo <= ordinal && ordinal <= s.hi;
}

int FabricIndex::plane(int nic) const {
  if (!usable_ || nic_up_[nic] < 0) return -1;
  return leaf_plane_[nic_leaf_[nic]];
}

double FabricIndex::nic_port_GBps(int nic) const {
  double sum = 0;
  for (const Adjacent& a : t_.neighbours(nic))
    if (t_.link(link_of(a.out)).kind == LinkKind::Network) sum += t_.bw_GBps(a.out);
  return sum;
}

bool FabricIndex::route(int nic_src, int nic_dst, std::uint64_t hash,
                        std::vector<DirLink>& hops) const {
  if (!usable_ || nic_up_[nic_src] < 0 || nic_up_[nic_dst] < 0) return false;
  const int dst_leaf = t_.to_device(nic_up_[nic_dst]);
  const int target = switches_[switch_of_[dst_leaf]].lo;
  hops.push_back(nic_up_[nic_src]);
  int cur = t_.to_device(nic_up_[nic_src]);
  while (!below(cur, target)) {  // up: ECMP over the up-links
    const auto& up = switches_[switch_of_[cur]].up;
    if (up.empty()) return false;
    const Adjacent& a = up[mix_hash(hash + static_cast<std::uint64_t>(cur)) % up.size()];
    hops.push_back(a.out);
    cur = a.device;
  }
  while (cur != dst_leaf) {  // down: the child whose subtree holds the target leaf
    const int tier = switches_[switch_of_[cur]].tier;
    int next = -1;
    for (const Adjacent& a : t_.neighbours(cur)) {
      const int o = switch_of_[a.device];
      if (o >= 0 && switches_[o].tier < tier && below(a.device, target)) {
        hops.push_back(a.out);
        next = a.device;
        break;
      }
    }
    if (next < 0) return false;
    cur = next;
  }
  hops.push_back(nic_up_[nic_dst] ^ 1);
  return true;
}

}  // namespace topoplan::route
