// Output of `topoplan model roofline`: readable text by default, JSON with stable keys
// (docs/compute-model.md, "CLI output").
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "topoplan/model.hpp"
#include "topoplan/perf.hpp"

namespace topoplan::report {

struct RooflineContext {
  std::string model, gpu;
  double peak_hbm_GBps = 0;
  bool bandwidth_override = false;
  bool curves_measured = false;
  std::string provenance;
  Workload workload;
  Shard shard;
  std::string weight_format;                 // describe_gemm_formats of the model as run
  std::vector<std::string> precision_notes;  // formats run weight-only on this GPU
};

void print_roofline(std::ostream& os, const RooflineContext& c, const RooflineResult& r, bool json);

}  // namespace topoplan::report
