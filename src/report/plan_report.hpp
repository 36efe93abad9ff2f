// Output of `topoplan plan`: the ranked table, the best plan's memory, time breakdown, placement
// and explanation (text), or the same as JSON with stable keys (docs/planner.md, "Output").
#pragma once

#include <ostream>

#include "topoplan/plan.hpp"

namespace topoplan::report {

void print_plan(std::ostream& os, const PlanOutput& out);
void print_plan_json(std::ostream& os, const PlanOutput& out);

}  // namespace topoplan::report
