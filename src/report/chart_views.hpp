// The charts of the commands: collective sweeps, the plan's Pareto front, design comparisons.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/compare.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/plan.hpp"

namespace topoplan::report {

// One series per (algorithm/protocol label, its costs over the sweep's sizes): busbw and time
// against size, size on a log2 axis with nccl-tests labels.
using CollectiveSeries = std::pair<std::string, std::vector<CollectiveCost>>;
void write_collective_chart(const std::string& title, const std::vector<CollectiveSeries>& series,
                            const std::string& path);
// tokens/s/GPU against tokens/s/user (the axes aiconfigurator and InferenceX use): the Pareto
// front, the TPOT limit as tokens/s/user = 1000 / TPOT, the chosen plan starred.
void write_pareto_chart(const PlanOutput& out, const std::string& path);
// Each design's Pareto front: tokens/s/GPU, and Mtok per $ (every design priced) or tokens/s per
// MW, against tokens/s/user; the operating points' speeds and the TPOT limit dashed.
void write_compare_chart(const Comparison& c, const std::string& path);

}  // namespace topoplan::report
