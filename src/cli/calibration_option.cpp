#include "cli/calibration_option.hpp"

#include "topoplan/embedded.hpp"
#include "topoplan/nccl_tests.hpp"

namespace topoplan::cli {

void add_calibration_option(CLI::App& cmd, std::string& path) {
  cmd.add_option("--calibration", path,
                 "calibration file from `topoplan calibrate` (default: built-in constants)");
}

std::unique_ptr<CommSetup> comm_setup(const TopologyOptions& topo, const std::string& calibration) {
  return comm_setup(load_topology(topo), calibration);
}

std::unique_ptr<CommSetup> comm_setup(Topology topology, const std::string& calibration) {
  auto owned = std::make_unique<CommSetup>();
  CommSetup& s = *owned;
  s.tuning = calibration.empty() ? NcclTuning::builtin()
                                 : NcclTuning::parse(read_text_file(calibration), calibration);
  // Only a calibration that measured link efficiencies changes the graph; copying it anyway
  // was a tenth of `collective` on 100,000 GPUs (and a second graph held in memory).
  s.topology = std::move(topology);
  if (!s.tuning.link_efficiency.empty())
    s.topology = with_link_efficiency(s.topology, s.tuning.link_efficiency);
  s.router = std::make_unique<Router>(s.topology);
  s.collective = std::make_unique<CollectiveModel>(*s.router, s.tuning);
  return owned;
}

}  // namespace topoplan::cli
