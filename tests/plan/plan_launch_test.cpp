// CUDA graphs on/off: eager kernels last max(eager launch cost, GPU time); the difference is the
// launch_overhead term. Hand-made kernels first, then the planner rebuilt from the compute model.
#include <doctest/doctest.h>

#include <algorithm>

#include "perf/round_gpu.hpp"
#include "plan/plan_test_util.hpp"
#include "plan/planner_impl.hpp"
#include "topoplan/perf.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

namespace {

// 1000 GB/s and 100 TFLOPS peaks, every curve at 0.5, floor 2 µs, eager launch 10 µs.
ComputeModel flat_model() {
  GpuSpec g = test::round_gpu();
  const char* text = R"({"gpu": "ROUND", "source": "hand-made",
    "reference_peaks": {"hbm_GBps": 1000, "bf16_TFLOPS": 100, "fp8_TFLOPS": 200},
    "floor_us": 2, "eager_launch_us": 10, "tile_m": 64,
    "hbm_gemm": {"bytes": [1e3, 1e12], "fraction": [0.5, 0.5]},
    "hbm_stream": {"bytes": [1e3, 1e12], "fraction": [0.5, 0.5]},
    "tc_bf16": {"flops": [1e3, 1e18], "fraction": [0.5, 0.5]}})";
  return ComputeModel::from_calibration(g, parse_calibration(text, "flat.json"), true);
}

KernelCost copy_kernel(double bytes) {
  KernelCost k;
  k.name = "copy";
  k.kind = KernelKind::Elementwise;
  k.bytes = bytes;
  return k;
}

// Σ max(0, eager − t) over the kernels of one decode step of a dense model (pp = 1), rebuilt
// from the compute model: layers × one layer's kernels + embedding, final norm, LM head.
double rebuilt_overhead(const ModelSpec& m, const ComputeModel& cm, const Workload& w, int tp) {
  Shard sh{.tp = tp, .ep = 1, .expert_tp = tp, .attention_dp = false};
  auto wait = [&](const std::vector<KernelCost>& ks) {
    double us = 0;
    for (const KernelCost& k : ks) us += std::max(0.0, cm.eager_launch_us() - cm.kernel_time_us(k));
    return us;
  };
  return m.layers * wait(layer_kernels(m, LayerType::Dense, w, sh)) + wait(head_kernels(m, w, sh));
}

}  // namespace

TEST_CASE(
    "eager kernel = max(launch, GPU time): short kernels wait for the host, long ones hide it") {
  ComputeModel cm = flat_model();
  CHECK(cm.eager_launch_us() == 10);
  // 5e5 B at 0.5 × 1000 GB/s = 1 µs + 2 µs floor = 3 µs: the GPU idles 10 − 3 = 7 µs.
  // 1e7 B: 20 + 2 = 22 µs > 10 µs: the host runs ahead, no wait.
  std::vector<KernelCost> ks{copy_kernel(5e5), copy_kernel(1e7)};
  TimeBreakdown graph = kernel_breakdown(cm, ks), eager = kernel_breakdown(cm, ks, 10);
  CHECK(graph.launch_overhead_us == 0);
  CHECK(eager.launch_overhead_us == doctest::Approx(7));
  CHECK(eager.floors_us == doctest::Approx(4));
  CHECK(eager.activations_us == doctest::Approx(21));
  CHECK(eager.total_us() == doctest::Approx(graph.total_us() + 7));
  // Floor-bound kernels (no bytes): each adds exactly eager − floor = 8 µs; 3 of them 24 µs.
  std::vector<KernelCost> tiny(3, copy_kernel(0));
  CHECK(kernel_breakdown(cm, tiny, 10).launch_overhead_us == doctest::Approx(3 * (10 - 2)));
}

TEST_CASE("decode with --cuda-graphs off adds the rebuilt launch waits to TPOT, prefill is eager") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  ComputeModel cm = ComputeModel::for_gpu(h100.topology.gpu_spec(h100.topology.gpus().front()));
  PlanRequest on, off;
  off.cuda_graphs = false;
  Planner p_on(m, *h100.router, on), p_off(m, *h100.router, off);
  TimeBreakdown a = p_on.decode_step(strat(8), 1, 1536, PlacementOrder::TpPpDp);
  TimeBreakdown b = p_off.decode_step(strat(8), 1, 1536, PlacementOrder::TpPpDp);
  double expected = rebuilt_overhead(m, cm, Workload{Phase::Decode, 1, 1, 1536}, 8);
  CHECK(a.launch_overhead_us == 0);
  CHECK(expected > 0);
  CHECK(b.launch_overhead_us == doctest::Approx(expected));
  // Only the launch waits and the graph's inter-kernel gaps (0.35 µs per kernel, 32 layers × n
  // + 3 head kernels) differ: bytes and collectives are those of the graph run.
  double n =
      32.0 * static_cast<double>(layer_kernels(m, LayerType::Dense, {}, Shard{.tp = 8}).size()) + 3;
  CHECK(a.floors_us - b.floors_us == doctest::Approx(n * cm.graph_gap_us()));
  CHECK(b.total_us() - a.total_us() == doctest::Approx(expected - n * cm.graph_gap_us()));
  CHECK(b.tp_allreduce_us == doctest::Approx(a.tp_allreduce_us));
  // Upper bound: every kernel at its floor waits eager − floor.
  CHECK(b.launch_overhead_us <= n * (cm.eager_launch_us() - cm.floor_us()));
  // Prefill runs eagerly whatever the switch (engines capture graphs for decode only).
  TimeBreakdown f_on = p_on.prefill(strat(8), 1, 128, PlacementOrder::TpPpDp);
  TimeBreakdown f_off = p_off.prefill(strat(8), 1, 128, PlacementOrder::TpPpDp);
  CHECK(f_on.launch_overhead_us > 0);
  CHECK(f_on.total_us() == doctest::Approx(f_off.total_us()));
}
