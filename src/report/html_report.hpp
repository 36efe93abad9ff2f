// Self-contained HTML reports (`plan --html`, `compare --html`): one page, CSS and SVG inline
// (the topology diagram with the plan overlay from Graphviz, charts from PLplot), no scripts,
// fonts or links to anything outside the file.
#pragma once

#include <string>

#include "report/compare.hpp"
#include "topoplan/plan.hpp"

namespace topoplan::report {

void write_plan_html(const Topology& t, const PlanOutput& out, const std::string& path);
void write_compare_html(const Comparison& c, const std::string& path);

}  // namespace topoplan::report
