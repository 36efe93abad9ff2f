// `topoplan validate --probe` output: a probe result's measured kernel times and host links
// against the compute model and the catalog (docs/probe.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace topoplan::report {

struct ProbeRow {
  std::string family;  // "<op>/<variant>", e.g. "grouped_gemm/fp8_tensor"
  std::string label;
  double m = 0, n = 0, k = 0, groups = 1, bytes = 0;
  double measured_us = 0, predicted_us = 0;
};

struct ProbeHostRow {
  int gpu = 0;
  double h2d_GBps = 0, d2h_GBps = 0, predicted_GBps = 0;
  std::string link;  // how the prediction was made ("pcie5 x16 x 0.8125")
};

struct ProbeValidation {
  std::string source, gpu_name, catalog_gpu, provenance;
  std::string date, driver_version, cuda_version, nccl_version;
  std::vector<ProbeRow> rows;
  std::vector<ProbeHostRow> host;
};

// Text: header, per-family summary (points, median |error|, worst signed error), host links;
// with `points` every row too. JSON: the same fields.
void print_probe_validation(std::ostream& os, const ProbeValidation& v, bool points, bool json);

}  // namespace topoplan::report
