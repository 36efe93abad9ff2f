// Output of `topoplan plan --disagg`: the best split of the servers into prefill and decode pools,
// each pool's strategy and load, the KV transfer between them, the comparison with the best
// aggregated plan on the same GPUs, and the other splits tried (text), or the same as JSON under
// the keys docs/planner.md lists ("disagg.prefill", "disagg.decode", "disagg.kv_transfer", ...).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "topoplan/disagg.hpp"

namespace topoplan::report {

void print_disagg(std::ostream& os, const DisaggOutput& out);
// The `disagg` object of print_disagg_json (also each design's in `compare --disagg --json`).
nlohmann::ordered_json disagg_result_json(const DisaggResult& r);
void print_disagg_json(std::ostream& os, const DisaggOutput& out);

}  // namespace topoplan::report
