// Each serving cost term on its own, with a value derived by hand (issue 11: a golden is never
// the only guard of a number). Kernel terms run on a made-up GPU whose efficiency curves are
// flat, every kernel reaching half of its peak, so each expected time is plain arithmetic:
// HBM 1000 GB/s, achieved 500 GB/s = 5e5 B/µs; bf16 100 TFLOPS, achieved 50 TFLOPS = 5e7
// flop/µs; a 2 µs floor per kernel.
// queue: serve_queue_us by hand in plan_usability_test.cpp; tp_allreduce: plan_time_test.cpp.
// Last: the batch shape every term is priced at (src/plan/batch_shape.hpp).
#include <doctest/doctest.h>

#include "plan/plan_test_util.hpp"
#include "plan/planner_impl.hpp"
#include "topoplan/perf.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

namespace {

ComputeModel flat_gpu() {
  GpuSpec gpu;
  gpu.name = "flat-test-gpu";
  gpu.hbm_GBps = 1000;
  gpu.bf16_TFLOPS = 100;
  Calibration cal;
  cal.gpu = gpu.name;
  cal.floor_us = 2;
  const LogCurve half{{0.0}, {0.5}};  // one point: flat at 0.5 everywhere
  cal.hbm_gemm = cal.hbm_stream = cal.tc_bf16 = cal.tc_fp8 = half;
  return ComputeModel::from_calibration(gpu, cal, true);
}

KernelCost kernel(KernelKind kind, double flops, double weight_bytes, double kv_bytes,
                  double activation_bytes) {
  KernelCost k;
  k.kind = kind;
  k.flops = flops;
  k.weight_bytes = weight_bytes;
  k.kv_bytes = kv_bytes;
  k.bytes = weight_bytes + kv_bytes + activation_bytes;
  return k;
}

// A memory-bound GEMV: 600 kB of weights and 400 kB of activations, 1 MFLOP.
// memory 1e6 / 5e5 = 2 µs, compute 1e6 / 5e7 = 0.02 µs: time 2 + 2 = 4 µs.
const KernelCost kGemv = kernel(KernelKind::Gemm, 1e6, 6e5, 0, 4e5);
// Decode attention reading 500 kB of KV cache, no tensor work: memory 1 µs, time 3 µs.
const KernelCost kAttention = kernel(KernelKind::Attention, 0, 0, 5e5, 0);
// A compute-bound GEMM: 200 MFLOP, 100 kB of weights. compute 2e8 / 5e7 = 4 µs, memory
// 1e5 / 5e5 = 0.2 µs: time 2 + 4 = 6 µs.
const KernelCost kGemm = kernel(KernelKind::Gemm, 2e8, 1e5, 0, 0);

const std::vector<KernelCost> kStep{kGemv, kAttention, kGemm};

}  // namespace

TEST_CASE("floors: one per kernel, 3 kernels x 2 us = 6 us") {
  CHECK(kernel_breakdown(flat_gpu(), kStep, 0).floors_us == doctest::Approx(6));
}

TEST_CASE("weights and activations: a memory-bound kernel's body split by its bytes") {
  // The GEMV's 2 µs body: 600/1000 weights = 1.2 µs, 400/1000 activations = 0.8 µs; the
  // compute-bound GEMM adds nothing to either.
  const TimeBreakdown b = kernel_breakdown(flat_gpu(), kStep, 0);
  CHECK(b.weights_us == doctest::Approx(1.2));
  CHECK(b.activations_us == doctest::Approx(0.8));
}

TEST_CASE("kv: decode attention's KV reads, 500 kB at 500 GB/s = 1 us") {
  CHECK(kernel_breakdown(flat_gpu(), kStep, 0).kv_us == doctest::Approx(1));
}

TEST_CASE("compute: a compute-bound GEMM's body, 200 MFLOP at 50 TFLOPS = 4 us") {
  CHECK(kernel_breakdown(flat_gpu(), kStep, 0).compute_us == doctest::Approx(4));
}

TEST_CASE("launch_overhead: eager kernels last at least the host's launch cost") {
  // 10 µs per eager launch: the 4, 3 and 6 µs kernels wait 6 + 7 + 4 = 17 µs; a kernel longer
  // than the launch waits 0; CUDA graphs (eager 0) wait nothing.
  CHECK(kernel_breakdown(flat_gpu(), kStep, 10).launch_overhead_us == doctest::Approx(17));
  CHECK(kernel_breakdown(flat_gpu(), {kGemm}, 5).launch_overhead_us == 0);
  CHECK(kernel_breakdown(flat_gpu(), kStep, 0).launch_overhead_us == 0);
  // The terms add up to the kernels' times: 4 + 3 + 6 = 13 µs.
  const TimeBreakdown b = kernel_breakdown(flat_gpu(), kStep, 0);
  CHECK(b.total_us() == doctest::Approx(13));
}

TEST_CASE("graph gap: every kernel of a CUDA graph adds the gap to the floor term, eager none") {
  // The flat GPU with a 0.5 µs gap: 3 kernels x (2 µs floor + 0.5 µs gap) = 7.5 µs of floors in
  // a graph; eagerly (10 µs launches) the launch wait covers the gap, floors stay 6 µs.
  GpuSpec gpu = flat_gpu().gpu();
  Calibration cal = flat_gpu().calibration();
  cal.graph_gap_us = 0.5;
  const ComputeModel cm = ComputeModel::from_calibration(gpu, cal, true);
  CHECK(kernel_breakdown(cm, kStep, 0).floors_us == doctest::Approx(7.5));
  CHECK(kernel_breakdown(cm, kStep, 0).total_us() == doctest::Approx(14.5));
  CHECK(kernel_breakdown(cm, kStep, 10).floors_us == doctest::Approx(6));
}

TEST_CASE("small kernels: a non-GEMM kernel lasts at least small_kernel_us, the rest is floor") {
  // small_kernel_us 5: a 100 kB elementwise kernel (memory 0.2 µs, floor 2 µs → 2.2 µs) lasts
  // 5 µs, 4.8 of them floor; a 10 MB one (memory 20 µs) keeps 2 + 20; a GEMM is not affected.
  GpuSpec gpu = flat_gpu().gpu();
  Calibration cal = flat_gpu().calibration();
  cal.small_kernel_us = 5;
  const ComputeModel cm = ComputeModel::from_calibration(gpu, cal, true);
  const KernelTiming small = cm.explain(kernel(KernelKind::Elementwise, 0, 0, 0, 1e5));
  CHECK(small.time_us == doctest::Approx(5));
  CHECK(small.floor_us == doctest::Approx(4.8));
  CHECK(cm.explain(kernel(KernelKind::Elementwise, 0, 0, 0, 1e7)).time_us == doctest::Approx(22));
  CHECK(cm.explain(kernel(KernelKind::Gemm, 0, 0, 0, 1e5)).time_us == doctest::Approx(2.2));
  // Without the term (0, a calibration that does not state it) the floor model is unchanged.
  CHECK(flat_gpu().explain(kernel(KernelKind::Elementwise, 0, 0, 0, 1e5)).time_us ==
        doctest::Approx(2.2));
}

TEST_CASE("prefill logits: the LM head computes the last token of each sequence only") {
  const ModelSpec m = load_model("llama-3-8b");  // hidden 4096, vocab 128256, untied head
  const Workload prefill{.phase = Phase::Prefill, .batch = 2, .new_tokens = 512, .context = 0};
  const Workload decode{.phase = Phase::Decode, .batch = 2, .new_tokens = 3, .context = 100};
  CHECK(prefill.logit_rows() == 2);  // 2 sequences, not 1024 tokens
  CHECK(decode.logit_rows() == 6);   // every verified token of a decode step
  auto lm_head = [&](const Workload& w) {
    for (const KernelCost& k : head_kernels(m, w, Shard{.tp = 2}))
      if (k.name == "lm_head") return k;
    FAIL("no lm_head kernel");
    return KernelCost{};
  };
  // 2 rows x (128256 / 2) columns x 4096 inputs x 2 flops = 1,050,673,152.
  CHECK(lm_head(prefill).m == 2);
  CHECK(lm_head(prefill).flops == doctest::Approx(1050673152.0));
  CHECK(lm_head(decode).flops == doctest::Approx(3 * 1050673152.0));
}

TEST_CASE("pipeline bubble: pp - m idle stage times in decode, prefill fill is stage work") {
  Machine h100("hgx-h100-8");
  const ModelSpec m = load_model("llama-3-8b");
  Planner p(m, *h100.router, PlanRequest{});
  // Decode, 4 stages, 2 sequences: m = 2 micro-batches in flight, each stage idle for the other
  // 4 - 2 = 2 stage times of every cycle. The step is m stage times + sends + the bubble.
  const TimeBreakdown d = p.decode_step(strat(2, 4), 2, 1536, PlacementOrder::TpPpDp);
  const double stage = (d.total_us() - d.bubble_us - d.pp_sendrecv_us) / 2;
  CHECK(d.bubble_us == doctest::Approx(2 * stage));
  // Prefill of one 512-token prompt (one chunk): the last stage starts after the 4 - 1 = 3
  // stage times of the fill, in which stages 2..4 compute the same layers: no idle time, the
  // step is 1 + 3 = 4 stage times + 3 sends, and the fill is 3 of the 4 stage times.
  const TimeBreakdown f = p.prefill(strat(2, 4), 1, 512, PlacementOrder::TpPpDp);
  const double fill_stage = (f.total_us() - f.pp_sendrecv_us) / 4;
  CHECK(f.bubble_us == 0);
  CHECK(f.pipeline_fill_us == doctest::Approx(3 * fill_stage));
  // The same compute as 4 stages each running a quarter of the layers once: pp = 1 on one stage
  // of all layers computes about what the 4-stage pass computes (a stage holds 1/4 of them).
  const TimeBreakdown one = p.prefill(strat(2, 1), 1, 512, PlacementOrder::TpPpDp);
  CHECK(f.compute_us + f.weights_us + f.activations_us + f.kv_us ==
        doctest::Approx(one.compute_us + one.weights_us + one.activations_us + one.kv_us)
            .epsilon(0.15));
  // 4 sequences fill the 4 stages: no decode bubble.
  CHECK(p.decode_step(strat(2, 4), 4, 1536, PlacementOrder::TpPpDp).bubble_us == 0);
}

TEST_CASE(
    "batch shape: one (strategy, batch) -> replica, attention ranks, micro-batches, by hand") {
  // tp8 pp2 dp2 with attention DP, 40 sequences: 40 / 2 = 20 per replica, split over 8
  // attention ranks, the busiest holding ceil(20 / 8) = 3; min(floor(20), pp 2) = 2 decode
  // micro-batches; a unit of 8 ranks x 2 replicas = 16 sequences.
  const BatchShape a = batch_shape(strat(8, 2, 2, 8, true), 40);
  CHECK(a.replica == 20);
  CHECK(a.attention_ranks == 8);
  CHECK(a.per_rank_max == 3);
  CHECK(a.decode_micro_batches == 2);
  CHECK(a.unit == 16);
  // tp4 dp3 without attention DP, 5 sequences: 5/3 per replica, every TP rank holds its share
  // of each (no rounding), one micro-batch without a pipeline, a unit of 3.
  const BatchShape b = batch_shape(strat(4, 1, 3), 5);
  CHECK(b.replica == doctest::Approx(5.0 / 3));
  CHECK(b.per_rank_max == doctest::Approx(5.0 / 3));
  CHECK(b.decode_micro_batches == 1);
  CHECK(b.unit == 3);
  // Fewer sequences than replicas: a replica still runs one.
  CHECK(batch_shape(strat(2, 4, 4), 1).replica == 1);
  CHECK(batch_shape(strat(2, 4, 4), 1).decode_micro_batches == 1);
}
