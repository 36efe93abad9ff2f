// `topoplan model roofline NAME --gpu GPU`: the seed's naive decode bound next to the refined
// single-GPU estimate. Flags here, figures from perf/, text from report/.
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/model_options.hpp"
#include "report/roofline_report.hpp"
#include "topoplan/error.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/perf.hpp"
#include "topoplan/topology.hpp"
#include "topoplan/topology_io.hpp"
#include "topoplan/units.hpp"

namespace topoplan::cli {
namespace {

struct RooflineArgs {
  std::string model, gpu, mem_bw;
  std::string topology;  // a topology whose catalog (own hardware included) names the GPU
  PrecisionOptions precision;
  double batch = 1, context = 4096;
  int tp = 1;
  bool json = false;
  const CLI::Option* context_flag = nullptr;
};

int run_roofline(const RooflineArgs& a) {
  ModelSpec m = load_model_with(a.model, a.precision);
  Workload w{.phase = Phase::Decode,
             .batch = a.batch,
             .new_tokens = 1,
             .context = context_of(*a.context_flag, a.context, m)};
  const Shard s{.tp = a.tp};
  validate_roofline(m, w, s);
  // With --topology, the GPU comes from that topology's catalog: a file's own hardware
  // ("catalog" block) is reachable, and --gpu defaults to the topology's GPU model.
  std::optional<Topology> topo;
  if (!a.topology.empty()) topo = load_topology(a.topology, ClusterOptions{});
  const Catalog& catalog = topo ? topo->catalog() : Catalog::builtin();
  std::string gpu_name = a.gpu;
  if (gpu_name.empty()) {
    if (!topo) throw FieldError("--gpu", "name a GPU with --gpu, or a topology with --topology");
    gpu_name = topo->uniform_gpu_spec("model roofline").name;
  }
  const GpuSpec& gpu = catalog.gpu(gpu_name);
  std::vector<std::string> notes = fit_formats_to_gpu(m, gpu);
  ComputeModel cm = ComputeModel::for_gpu(gpu);
  if (!a.mem_bw.empty()) cm = cm.with_memory_bandwidth(parse_bandwidth_GBps(a.mem_bw, "--mem-bw"));
  const RooflineResult r = decode_roofline(m, cm, w, s);
  report::RooflineContext ctx{m.name,
                              gpu.name,
                              cm.peak_hbm_GBps(),
                              cm.bandwidth_overridden(),
                              cm.measured(),
                              cm.provenance(),
                              w,
                              s,
                              describe_gemm_formats(m),
                              std::move(notes)};
  report::print_roofline(std::cout, ctx, r, a.json);
  return 0;
}

}  // namespace

void add_model_roofline_subcommand(CLI::App& model, Action& action) {
  auto* sub = model.add_subcommand(
      "roofline",
      "naive bandwidth bound of one decode step next to the refined kernel-level estimate");
  auto args = std::make_shared<RooflineArgs>();
  sub->add_option("model", args->model, "built-in name, model JSON or Hugging Face config.json")
      ->required();
  sub->add_option("--gpu", args->gpu,
                  "GPU from the catalog (topoplan topo gpus lists them); default with --topology: "
                  "its GPU");
  sub->add_option("--topology", args->topology,
                  "built-in server or topology file whose catalog holds the GPU (a file's own "
                  "\"catalog\" block included)");
  sub->add_option("--batch", args->batch, "sequences decoded together")->capture_default_str();
  args->context_flag =
      sub->add_option("--context", args->context, "tokens already in each sequence's KV cache")
          ->capture_default_str();
  sub->add_option("--tp", args->tp, "tensor parallel degree (the estimate is for one GPU's shard)")
      ->check(positive_count())
      ->capture_default_str();
  sub->add_option("--mem-bw", args->mem_bw,
                  "override the memory bandwidth, e.g. 64GB/s for a CPU host (curve shapes kept)");
  add_precision_flags(*sub, args->precision);
  add_example(*sub, "topoplan model roofline llama-3-70b --gpu H200-SXM --precision fp8 --batch 8");
  add_example(*sub,
              "topoplan model roofline llama-3-70b --topology "
              "examples/custom-accelerator/mi300x-like-8.json");
  sub->add_flag("--json", args->json, "print JSON (stable keys, see docs/compute-model.md)");
  sub->callback([&action, args] { action = [args] { return run_roofline(*args); }; });
}

}  // namespace topoplan::cli
