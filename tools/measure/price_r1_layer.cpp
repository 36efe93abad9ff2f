// What topoplan's compute model says one DeepSeek-R1 MoE layer's prefill costs on one GPU of a
// TP8 shard (EP1), kernel by kernel: the model side of tools/measure/probe_r1_layer.py. Uses the
// library exactly as the planner's prefill does (src/plan/step_time.cpp and pipeline.cpp): the
// H200's built-in calibration, fit_formats_to_gpu, layer_kernels(Moe) of a prefill workload of
// `batch` prompts of `prompt` tokens, context 0; each kernel priced by ComputeModel::explain, and
// eagerly as max(eager_launch_us, time) (prefill runs eagerly in the planner).
//
// Build against a configured build tree (no CMake target; a measurement helper):
//   g++ -std=c++20 -O2 -Iinclude -Isrc tools/measure/price_r1_layer.cpp \
//     build/ci/src/plan/libtopoplan_plan.a build/ci/src/model/libtopoplan_model.a \
//     build/ci/src/perf/libtopoplan_perf.a build/ci/src/hw/libtopoplan_hw.a \
//     build/ci/src/core/libtopoplan_core.a build/ci/libtopoplan_embedded.a -o /tmp/price_r1_layer
//   (add the other build/ci/src/*/lib*.a in a --start-group/--end-group if the linker asks)
// Usage: price_r1_layer [batch prompt]...   (default: 2 4096 2 4000); prints JSON.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "topoplan/hardware.hpp"
#include "topoplan/model.hpp"
#include "topoplan/perf.hpp"

using namespace topoplan;

int main(int argc, char** argv) {
  std::vector<std::pair<double, double>> cfgs;
  for (int i = 1; i + 1 < argc; i += 2)
    cfgs.emplace_back(std::atof(argv[i]), std::atof(argv[i + 1]));
  if (cfgs.empty()) cfgs = {{2, 4096}, {2, 4000}};
  ModelSpec m = load_model("deepseek-r1");
  const GpuSpec& gpu = Catalog::builtin().gpu("H200-SXM");
  fit_formats_to_gpu(m, gpu);
  const Shard s{.tp = 8, .ep = 1, .expert_tp = 8, .attention_dp = false};
  std::printf("{\"model\": \"deepseek-r1\", \"gpu\": \"H200-SXM\", \"shard\": \"tp8 ep1\",\n");
  std::printf(" \"configs\": [\n");
  bool first_cfg = true;
  for (auto [batch, prompt] : cfgs) {
    Workload w{.phase = Phase::Prefill, .batch = batch, .new_tokens = prompt, .context = 0};
    std::vector<KernelCost> ks = layer_kernels(m, LayerType::Moe, w, s);
    for (Fp8BlockGemm mode : {Fp8BlockGemm::Auto, Fp8BlockGemm::Triton, Fp8BlockGemm::Cublas}) {
      ComputeModel cm = ComputeModel::for_gpu(gpu).with_fp8_block_gemm(mode);
      const double launch = cm.eager_launch_us();
      std::printf(
          "%s  {\"batch\": %g, \"prompt\": %g, \"fp8_block_gemm\": \"%s\", "
          "\"eager_launch_us\": %.3f, \"kernels\": [\n",
          first_cfg ? "" : ",\n", batch, prompt, std::string(to_string(mode)).c_str(), launch);
      first_cfg = false;
      double sum = 0, sum_eager = 0;
      for (std::size_t i = 0; i < ks.size(); ++i) {
        const KernelCost& k = ks[i];
        KernelTiming t = cm.explain(k);
        sum += t.time_us;
        sum_eager += std::max(launch, t.time_us);
        std::printf(
            "   {\"name\": \"%s\", \"flops\": %.6g, \"bytes\": %.6g, \"m\": %g, \"n\": %g, "
            "\"k\": %g, \"groups\": %g, \"time_us\": %.3f, \"compute_us\": %.3f, "
            "\"memory_us\": %.3f, \"floor_us\": %.3f, \"achieved_TFLOPS\": %.1f, "
            "\"achieved_GBps\": %.1f, \"eager_us\": %.3f}%s\n",
            k.name.c_str(), k.flops, k.bytes, k.m, k.n, k.k, k.groups, t.time_us, t.compute_us,
            t.memory_us, t.floor_us, t.achieved_TFLOPS, t.achieved_GBps,
            std::max(launch, t.time_us), i + 1 < ks.size() ? "," : "");
      }
      std::printf("  ], \"sum_us\": %.3f, \"sum_eager_us\": %.3f, \"kernels_count\": %zu}", sum,
                  sum_eager, ks.size());
    }
  }
  std::printf("\n ]}\n");
  return 0;
}
