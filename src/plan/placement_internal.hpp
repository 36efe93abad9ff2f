// Private helpers shared by the placement sources (src/plan/placement*.cpp).
#pragma once

#include <vector>

#include "topoplan/placement.hpp"

namespace topoplan::placement_detail {

struct Coords {
  int tp = 0, pp = 0, dp = 0;
};

// Coordinates of launch rank `rank` under `order` (Optimized decomposes like TpPpDp).
Coords coords_of(const Strategy& s, PlacementOrder order, int rank);

// Throws InputError for dimensions < 1, ep not dividing tp, or more GPUs than the topology has.
void validate_strategy(const Router& router, const Strategy& s);

// Replaces p.ep_groups by the EP groups of `s` cut from p.tp_groups.
// first_only: just the first EP group (of the first TP group), none when ep is 1; what the
// planner's held groups price (step_time.cpp).
void add_ep_groups(const Strategy& s, PlacementGroups& p, bool first_only = false);

// The groups alone (no per-rank records) from the device of every rank.
PlacementGroups groups_of(const Strategy& s, PlacementOrder order,
                          const std::vector<int>& device_of_rank);

// What the planner prices (step_time.cpp): groups_of's TP groups and pipeline chains, the first
// EP group only (add_ep_groups first_only) and no DP groups, written into `p` reusing its storage.
void pricing_groups(const Strategy& s, PlacementOrder order, const std::vector<int>& device_of_rank,
                    PlacementGroups& p);

// Builds ranks and groups from the device of every rank (device_of_rank.size() == s.gpus()).
Placement assemble(const Router& router, const Strategy& s, PlacementOrder order,
                   const std::vector<int>& device_of_rank);

// GPUs of every node in locality order: consecutive GPUs are as close as the server allows
// (nearest-neighbour chain by path class, then bandwidth), so tp-sized slices of it stay under
// one NVLink domain / PCIe switch / socket when the wiring allows.
struct Locality {
  std::vector<std::vector<int>> nodes;  // nodes[n] = device indices of node n's GPUs
};
Locality compute_locality(const Router& router);

// The Optimized placement: candidate assignments (canonical, whole chains packed per node, a
// snake over nodes for rail-aligned stage crossings) ranked by communication_proxy().
Placement place_optimized(const Router& router, const Locality& locality, const Strategy& s,
                          const StepCounts& step);

}  // namespace topoplan::placement_detail
