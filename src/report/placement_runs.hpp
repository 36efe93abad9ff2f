// A placement written as JSON runs of whole servers instead of one object per rank (issue 32):
// at 100,000 ranks the per-rank list is 13 MB of JSON for each of the top plans.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "topoplan/placement.hpp"

namespace topoplan::report {

// Above kPlacementListRanks ranks `plan --json` writes `placement_runs` in place of `placement`
// (and `gpus_used_runs` in place of `gpus_used`) unless --placement-detail; at or below it, and
// with the flag, every rank is listed as before. PlacementRun and placement_runs() are the
// library's (topoplan/placement.hpp).
using topoplan::kPlacementListRanks;
using topoplan::placement_runs;
using topoplan::PlacementRun;

// {"order", "ranks", "runs": [{"rank", "nodes": [first, last], "gpus": [first, last], "first",
// "last"}]}; tp/pp/dp ranks follow from the order (rank_coords), NICs from the topology.
nlohmann::ordered_json placement_runs_json(const std::vector<RankPlacement>& ranks,
                                           PlacementOrder order);
// The same from runs already made (a plan that kept runs, not ranks), `ranks` in all.
nlohmann::ordered_json placement_runs_json(const std::vector<PlacementRun>& runs, std::size_t ranks,
                                           PlacementOrder order);

}  // namespace topoplan::report
