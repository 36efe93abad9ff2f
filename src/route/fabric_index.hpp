// Structural routing over a tree-shaped network fabric (leaf = tier 1, spine = 2, core = 3, ...):
// up from the source leaf to the lowest switch whose subtree holds the destination leaf, then
// down. Up-links are chosen by a hash (ECMP); the way down from a switch is unique in a fat
// tree. Works on any fabric whose leaves below each switch form a contiguous range of leaf
// ordinals (make_cluster builds them so); anything else reports no route and the caller falls
// back to a general search.
#pragma once

#include <cstdint>
#include <vector>

#include "topoplan/route.hpp"

namespace topoplan::route {

class FabricIndex {
 public:
  explicit FabricIndex(const Topology& t);

  bool usable() const { return usable_; }
  // The NIC's link to its leaf (NIC → leaf direction); -1 when it has none.
  DirLink nic_uplink(int nic) const { return nic_up_[nic]; }
  // Fabric plane of a NIC (NICs in different planes cannot reach each other); -1 when none.
  int plane(int nic) const;
  // Sum of the NIC's network port bandwidth (GB/s per direction).
  double nic_port_GBps(int nic) const;
  // NIC → leaf → ... → leaf → NIC appended to `hops` (no allocation when it has room); false
  // when the structure does not connect them (`hops` then holds a partial route).
  bool route(int nic_src, int nic_dst, std::uint64_t hash, std::vector<DirLink>& hops) const;
  // Whether every route's links are alike whatever its ECMP choices: every NIC → leaf link is
  // like every other (type, count, bandwidth, efficiency, latency), so is every up-link leaving
  // a switch of one tier, and a switch's up-neighbours all hold the same leaves (so a route
  // climbs as high whichever it takes). A generated fabric is; a hand-written one may not be.
  bool uniform() const { return uniform_; }
  // Tiers route() climbs from nic_src's leaf before it turns down (1: both NICs on one leaf);
  // -1 when route() would fail.
  int climb(int nic_src, int nic_dst) const;

 private:
  struct Switch {
    int tier = 0, lo = 0, hi = -1;  // leaf ordinals below this switch: [lo, hi]
    std::vector<Adjacent> up;
  };
  bool below(int sw, int ordinal) const;

  const Topology& t_;
  bool check_uniform() const;

  bool usable_ = false, uniform_ = false;
  std::vector<DirLink> nic_up_;
  // The leaf ordinal of each NIC's leaf (-1: not a NIC on the fabric): plane() and climb() read
  // it per send/recv pair, and the walk NIC → link → leaf → switch record it replaces was a
  // tenth of `plan` on 100,000 GPUs (issue 32).
  std::vector<int> nic_leaf_;
  std::vector<int> switch_of_;  // device → index into switches_, -1 otherwise
  std::vector<Switch> switches_;
  std::vector<int> leaf_plane_;  // by leaf ordinal
};

std::uint64_t mix_hash(std::uint64_t x);

}  // namespace topoplan::route
