// Translation blocks of a regular cluster: when a strategy's replicas tile identically wired
// servers and no link is shared between tiles, every tile prices exactly like the first, so the
// planner analyses one tile instead of the whole cluster (docs/cluster-scale.md, "Blocks").
#pragma once

#include <map>
#include <vector>

#include "topoplan/placement.hpp"
#include "topoplan/route.hpp"

namespace topoplan::plan_detail {

class ReplicaBlocks {
 public:
  explicit ReplicaBlocks(const Router& router);

  // Replicas (tp·pp ranks each) per block for `s` placed in `order`: the smallest b for which
  // b·tp·pp GPUs are a whole number of servers, when the s.dp / b blocks are proven alike (see
  // the .cpp); s.dp when no reduction is proven. The first b replicas' groups are then the
  // groups the planner prices, and their costs are those of every block.
  int replicas(const Strategy& s, PlacementOrder order) const;

  // TP groups per tile when the TP set of `s` in `order` tiles the cluster (see the .cpp):
  // for tp-pp-dp the TP groups are runs of tp consecutive GPUs, a tile is lcm(tp, GPUs per
  // server) GPUs, and when every tile of the strategy's GPUs is alike, the first tile's groups
  // price every TP group. 0 when no reduction is proven. Holds when replicas straddle leaves
  // but TP groups do not (tp16 pp32 on 32-server leaves), where replicas() gives no block.
  int tp_tile_groups(const Strategy& s, PlacementOrder order) const;

 private:
  // GPUs (a multiple of block_gpus) up to which every block of block_gpus GPUs is alike.
  int alike_prefix(int block_gpus) const;
  bool block_alike(int k, int block_gpus) const;

  const Router* router_;
  bool regular_ = false;  // the whole-topology conditions hold (see the .cpp)
  int gpus_per_server_ = 0;
  // Per server (Device::node): its NICs' (plane, leaf) pairs, the leaf -1 when it has none.
  std::vector<std::vector<std::pair<int, int>>> nic_leaves_;
  mutable std::map<int, int> prefix_;  // block_gpus → alike_prefix
};

}  // namespace topoplan::plan_detail
