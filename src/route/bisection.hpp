// Bisection bandwidth over a link list (internal to route/): the built topology's links
// (bisection_GBps(Router)) or a described cluster's, streamed by for_each_cluster_link.
#pragma once

#include <cstddef>
#include <vector>

namespace topoplan::route {

struct FlowLink {
  int a = 0, b = 0;
  double bw_GBps = 0;  // per direction
};

// The minimum A→B max-flow over the balanced halves of `gpus` (device indices below `devices`)
// that route/matrix.cpp's rule tries, in GB/s per direction.
double bisection_GBps(std::size_t devices, const std::vector<FlowLink>& links,
                      const std::vector<int>& gpus);

}  // namespace topoplan::route
