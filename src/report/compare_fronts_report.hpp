// Text and JSON of `compare`'s Pareto fronts (Comparison::fronts).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "report/compare.hpp"

namespace topoplan::report {

// The operating-point table: one row per (operating point, design), the winner starred.
std::vector<std::string> fronts_head();
std::vector<std::vector<std::string>> fronts_rows(const Comparison& c);
// The table and where the fronts cross (nothing when no design has a front).
void print_fronts(std::ostream& os, const Comparison& c);
// {criterion, operating_points[{name, min_tokens_per_s_per_user, winner, designs[]}],
//  ranges[{from_tokens_per_s_per_user, to_tokens_per_s_per_user, winner}], summary}
nlohmann::ordered_json fronts_json(const Comparison& c);

}  // namespace topoplan::report
