// JSON of a design's bill of materials: the "bom" key of `compare --bom --json` (docs/report.md).
#pragma once

#include <nlohmann/json.hpp>

#include "topoplan/bom.hpp"

namespace topoplan::report {

nlohmann::ordered_json bom_json(const Bom& bom);

}  // namespace topoplan::report
