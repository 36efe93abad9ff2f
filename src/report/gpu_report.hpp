// Output of `topoplan topo gpus`: the GPU catalog (the names --gpu and topology files take).
#pragma once

#include <ostream>

#include "topoplan/hardware.hpp"

namespace topoplan::report {

void print_gpu_list(std::ostream& os, const Catalog& catalog, bool json);

}  // namespace topoplan::report
