// Output of `topoplan model roofline`: readable text by default, JSON with stable keys
// (docs/compute-model.md, "CLI output").
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "topoplan/json.hpp"  // RooflineContext
#include "topoplan/model.hpp"
#include "topoplan/perf.hpp"

namespace topoplan::report {

void print_roofline(std::ostream& os, const RooflineContext& c, const RooflineResult& r, bool json);

}  // namespace topoplan::report
