#include "report/placement_runs.hpp"

namespace topoplan::report {

std::vector<PlacementRun> placement_runs(const std::vector<RankPlacement>& ranks) {
  // Segments: consecutive ranks on one server at consecutive local GPUs.
  std::vector<PlacementRun> segments;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankPlacement& r = ranks[i];
    if (!segments.empty()) {
      PlacementRun& s = segments.back();
      if (r.node == s.node_last && r.local_gpu == s.gpu_last + 1) {
        s.gpu_last = r.local_gpu;
        s.last_device = r.device_id;
        continue;
      }
    }
    segments.push_back(
        {r.rank, r.node, r.node, r.local_gpu, r.local_gpu, r.device_id, r.device_id});
  }
  // Runs: segments of the next server with the same GPU range, one after the other.
  std::vector<PlacementRun> runs;
  for (const PlacementRun& s : segments) {
    if (!runs.empty()) {
      PlacementRun& r = runs.back();
      if (s.node_first == r.node_last + 1 && s.gpu_first == r.gpu_first &&
          s.gpu_last == r.gpu_last && s.rank == r.rank + r.count()) {
        r.node_last = s.node_last;
        r.last_device = s.last_device;
        continue;
      }
    }
    runs.push_back(s);
  }
  return runs;
}

nlohmann::ordered_json placement_runs_json(const std::vector<RankPlacement>& ranks,
                                           PlacementOrder order) {
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const PlacementRun& r : placement_runs(ranks))
    runs.push_back({{"rank", r.rank},
                    {"nodes", {r.node_first, r.node_last}},
                    {"gpus", {r.gpu_first, r.gpu_last}},
                    {"first", r.first_device},
                    {"last", r.last_device}});
  return {{"order", std::string(to_string(order))}, {"ranks", ranks.size()}, {"runs", runs}};
}

}  // namespace topoplan::report
