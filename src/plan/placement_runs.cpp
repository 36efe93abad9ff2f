// placement_runs(): a per-rank placement compressed into runs of whole servers.
#include "topoplan/placement.hpp"

namespace topoplan {

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

}  // namespace topoplan
