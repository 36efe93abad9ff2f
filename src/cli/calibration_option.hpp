// `--calibration FILE`: a communication calibration written by `topoplan calibrate` (the tuning
// file schema plus link efficiencies). Commands that price collectives build their model here.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/topology_options.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/route.hpp"

namespace topoplan::cli {

void add_calibration_option(CLI::App& cmd, std::string& path);

// The topology (with calibrated link efficiencies), its router and tuning, owned together so
// the CollectiveModel's references stay valid.
// Not movable: the router and the model refer to the topology and the router in place.
struct CommSetup {
  CommSetup() = default;
  CommSetup(const CommSetup&) = delete;
  CommSetup& operator=(const CommSetup&) = delete;
  Topology topology;
  NcclTuning tuning;
  std::unique_ptr<Router> router;
  std::unique_ptr<CollectiveModel> collective;
  const CollectiveModel& model() const { return *collective; }
};
// `calibration` empty: the built-in constants. Throws InputError for a bad file.
std::unique_ptr<CommSetup> comm_setup(const TopologyOptions& topo, const std::string& calibration);
// Already loaded.
std::unique_ptr<CommSetup> comm_setup(Topology topology, const std::string& calibration);

}  // namespace topoplan::cli
