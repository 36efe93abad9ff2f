// libFuzzer entry points, one per input format (issue 16). Each target feeds the bytes to the
// public parser the CLI uses. topoplan::Error (InputError, UnknownNameError) is the documented
// answer to bad input and is swallowed; anything else escaping (std::out_of_range, a library
// exception, a crash, a sanitizer report, a hang) is a finding. FUZZ_TARGET selects the target
// at compile time so that every executable holds one entry point.
#include <cstddef>
#include <cstdint>
#include <string>

#if defined(FUZZ_PLAN_JSON)
#include "report/diagram_overlay.hpp"  // src/: what `topo render --plan` reads and draws
#endif
#include "topoplan/collective.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"
#include "topoplan/nccl_tests.hpp"
#include "topoplan/perf.hpp"
#include "topoplan/topology_import.hpp"
#include "topoplan/topology_io.hpp"
#include "topoplan/units.hpp"

namespace {
void run(const std::string& text) {
  using namespace topoplan;
#if defined(FUZZ_TOPOLOGY_JSON)
  const Topology t = parse_topology_json(text, "fuzz.json");
  (void)t.validate();
#elif defined(FUZZ_MODEL_JSON)  // topoplan model JSON and Hugging Face config.json
  const ModelSpec m = parse_model_json(text, "fuzz.json");
  validate_model(m, "fuzz.json");
#elif defined(FUZZ_COMPUTE_CALIBRATION)
  (void)parse_calibration(text, "fuzz.json");
#elif defined(FUZZ_NCCL_TUNING)
  (void)NcclTuning::parse(text, "fuzz.json");
#elif defined(FUZZ_NCCL_XML)
  (void)import_nccl_topology_xml(text, "fuzz.xml");
#elif defined(FUZZ_NVIDIA_SMI)
  (void)import_nvidia_smi_topo(text, "fuzz.txt");
#elif defined(FUZZ_NCCL_TESTS_LOG)
  (void)parse_nccl_tests_log(text, "fuzz.log", CollOp::AllReduce);
#elif defined(FUZZ_PLAN_JSON)  // `topo render --plan FILE` on hgx-h100-8, without Graphviz
  static const Topology t = load_topology("hgx-h100-8");
  const report::Overlay o =
      report::overlay_from_plan_json(t, text, "fuzz.json", report::ColorBy::Ep);
  report::DiagramOptions d;
  d.overlay = &o;
  (void)report::build_diagram(t, d);
#elif defined(FUZZ_UNITS)
  (void)parse_bytes(text, "--size");
  (void)parse_bandwidth_GBps(text, "--bw");
#else
#error "define one FUZZ_* target"
#endif
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    run(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const topoplan::Error&) {
    // a located input error: the contract
  }
  return 0;
}
