// A topoplan-probe result file (tools/probe, docs/probe.md): the kernel points the compute model
// prices, the host links and the nccl-tests logs, with the versions the run recorded.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "topoplan/perf.hpp"

namespace topoplan {

struct ProbeHostLink {
  int gpu = 0;
  double h2d_GBps = 0, d2h_GBps = 0, bidirectional_GBps = 0;  // pinned memory, this GPU alone
};

struct ProbeResult {
  std::string source;
  std::string gpu_name;  // facts.devices[0].name, else meta.gpu / meta.gpu_torch
  std::string date, driver_version, cuda_version, nccl_version;  // "" when the file has none
  std::vector<MeasuredKernel> kernels;
  std::vector<ProbeHostLink> host_links;
  // nccl-tests text of each NCCL run ("<source>#/nccl/runs/<i>/log", text); empty on one GPU.
  std::vector<std::pair<std::string, std::string>> nccl_logs;
  // The NCCL environment the runs had (nccl.NCCL_NVLS_ENABLE, nccl.NCCL_ALGO; "" when unset):
  // validate and calibrate model the runs as they ran.
  std::string nccl_nvls_enable, nccl_algo;
};

// Parses a probe result (the C++ probe's or the Python probes' {"meta", "points"} files). Throws
// InputError naming `source` and the JSON pointer of a malformed field.
ProbeResult parse_probe_file(const std::string& json_text, const std::string& source);

}  // namespace topoplan
