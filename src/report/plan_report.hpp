// Output of `topoplan plan`: the ranked table, the best plan's memory, time breakdown, placement
// and explanation (text), or the same as JSON with stable keys (docs/planner.md, "Output").
#pragma once

#include <ostream>

#include "topoplan/plan.hpp"

namespace topoplan::report {

void print_plan(std::ostream& os, const PlanOutput& out);
// placement_detail: every rank of the top plans' placements however many (--placement-detail);
// otherwise beyond kPlacementListRanks ranks they are written as runs (placement_runs.hpp).
void print_plan_json(std::ostream& os, const PlanOutput& out, bool placement_detail = false);

}  // namespace topoplan::report
