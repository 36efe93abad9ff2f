// Output of `topoplan collective`: an nccl-tests-like table by default, JSON with stable keys
// {"op", "topology", "ranks" (count), "devices" (ids in rank order), "nodes", "dtype",
// "busbw_factor", "pattern" (send-recv only), "groups" (several concurrent groups only: each
// group's ids; ranks and devices are then the first group's), "results": [{"size_bytes", "count", "time_us", "latency_us", "algbw_GBps",
// "busbw_GBps", "algorithm", "protocol", "channels", "bottleneck": {"from", "to", "type", "kind",
// "load_bytes", "achieved_GBps", "utilisation"} or null}]}, and with --algo all
// "alternatives": [{"size_bytes", "algorithm", "protocol", "time_us", "busbw_GBps"}]
// (docs/collective-model.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "topoplan/collective.hpp"
#include "topoplan/json.hpp"  // CollectiveReport

namespace topoplan::report {

void print_collective(std::ostream& os, const CollectiveReport& r, bool json);

}  // namespace topoplan::report
