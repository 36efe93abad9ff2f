// Output of `topoplan collective`: an nccl-tests-like table by default, JSON with stable keys
// {"op", "topology", "ranks" (count), "devices" (ids in rank order), "nodes", "dtype",
// "busbw_factor", "results": [{"size_bytes", "count", "time_us", "latency_us", "algbw_GBps",
// "busbw_GBps", "algorithm", "protocol", "channels", "bottleneck": {"from", "to", "type", "kind",
// "load_bytes", "achieved_GBps", "utilisation"} or null}]} (docs/collective-model.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "topoplan/collective.hpp"

namespace topoplan::report {

struct CollectiveReport {
  CollOp op = CollOp::AllReduce;
  std::string topology;            // topology name
  int nodes = 1;                   // servers spanned by the ranks
  std::vector<std::string> ranks;  // device ids in rank order
  std::string dtype = "fp32";
  double element_bytes = 4;
  std::vector<CollectiveCost> results;
};

void print_collective(std::ostream& os, const CollectiveReport& r, bool json);

}  // namespace topoplan::report
