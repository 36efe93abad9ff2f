// `topoplan validate --probe FILE`: a topoplan-probe result against the compute model and the
// catalog's host link (docs/probe.md). Options are added to validate by cmd_validate.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace topoplan::cli {

struct ProbeOptions {
  std::vector<std::string> files;  // probe results (C++ probe or probe_mla.py / probe_compute.py)
  std::string gpu;                 // catalog GPU; default: the probe's device name
  bool points = false;             // print every point, not only the per-family summary
};

void add_probe_options(CLI::App& validate, ProbeOptions& o);
int run_validate_probe(const ProbeOptions& o, bool json);

}  // namespace topoplan::cli
