#include "report/placement_runs.hpp"

namespace topoplan::report {

nlohmann::ordered_json placement_runs_json(const std::vector<PlacementRun>& runs, std::size_t ranks,
                                           PlacementOrder order) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const PlacementRun& r : runs)
    out.push_back({{"rank", r.rank},
                   {"nodes", {r.node_first, r.node_last}},
                   {"gpus", {r.gpu_first, r.gpu_last}},
                   {"first", r.first_device},
                   {"last", r.last_device}});
  return {{"order", std::string(to_string(order))}, {"ranks", ranks}, {"runs", out}};
}

nlohmann::ordered_json placement_runs_json(const std::vector<RankPlacement>& ranks,
                                           PlacementOrder order) {
  return placement_runs_json(placement_runs(ranks), ranks.size(), order);
}

}  // namespace topoplan::report
