// A placement written as runs of whole servers instead of one object per rank (issue 32): at
// 100,000 ranks the per-rank list is 13 MB of JSON for each of the top plans.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topoplan/placement.hpp"

namespace topoplan::report {

// Above this many ranks `plan --json` writes `placement_runs` in place of `placement` (and
// `gpus_used_runs` in place of `gpus_used`) unless --placement-detail; at or below it, and with
// the flag, every rank is listed as before.
inline constexpr std::size_t kPlacementListRanks = 4096;

// Ranks [rank, rank + count) fill servers node_first..node_last in order, each server's GPUs
// gpu_first..gpu_last in local order (count = servers × GPUs). Exact for any placement: an
// irregular one gives shorter runs, down to one rank each.
struct PlacementRun {
  int rank = 0;
  int node_first = 0, node_last = 0, gpu_first = 0, gpu_last = 0;
  std::string first_device, last_device;
  long long count() const {
    return static_cast<long long>(node_last - node_first + 1) * (gpu_last - gpu_first + 1);
  }
};
std::vector<PlacementRun> placement_runs(const std::vector<RankPlacement>& ranks);

// {"order", "ranks", "runs": [{"rank", "nodes": [first, last], "gpus": [first, last], "first",
// "last"}]}; tp/pp/dp ranks follow from the order (rank_coords), NICs from the topology.
nlohmann::ordered_json placement_runs_json(const std::vector<RankPlacement>& ranks,
                                           PlacementOrder order);

}  // namespace topoplan::report
