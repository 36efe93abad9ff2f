// Output of `topoplan model list|show`: readable tables by default, JSON with stable keys
// (docs/model-format.md, "CLI output").
#pragma once

#include <ostream>
#include <vector>

#include "topoplan/json.hpp"  // ModelShowOptions
#include "topoplan/model.hpp"

namespace topoplan::report {

void print_model_list(std::ostream& os, const std::vector<ModelSpec>& models, bool json);
void print_model_show(std::ostream& os, const ModelSpec& m, const ModelShowOptions& o, bool json);

}  // namespace topoplan::report
