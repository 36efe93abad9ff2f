// Decode roofline: the seed's naive bound by hand, the gap decomposition identity, R1 on H20.
#include <doctest/doctest.h>

#include "topoplan/hardware.hpp"
#include "topoplan/model.hpp"
#include "topoplan/perf.hpp"

using namespace topoplan;

TEST_CASE("naive bound by hand: active-weight bytes / bandwidth") {
  // 37e9 B / 4e12 B/s = 9.25 ms; / 64e9 B/s = 578.125 ms.
  CHECK(naive_bound_us(37e9, 4000) == doctest::Approx(9250));
  CHECK(naive_bound_us(37e9, 64) == doctest::Approx(578125));
}

namespace {
RooflineResult r1_on_h20(double mem_bw_GBps, double batch, double context) {
  ComputeModel cm = ComputeModel::for_gpu(Catalog::builtin().gpu("H20"));
  if (mem_bw_GBps > 0) cm = cm.with_memory_bandwidth(mem_bw_GBps);
  const ModelSpec m = load_model("deepseek-r1");
  return decode_roofline(m, cm, Workload{Phase::Decode, batch, 1, context}, Shard{});
}
}  // namespace

TEST_CASE("DeepSeek-R1 FP8 on one H20: the seed's 9 ms and 578 ms bounds") {
  const RooflineResult r = r1_on_h20(0, 1, 4096);
  // 37B active parameters, FP8 (1 B each) plus bf16 embedding/LM head and block scales:
  // between 37 and 40 GB, so 9.25 .. 10 ms at 4000 GB/s (the seed says "≈ 9 ms").
  CHECK(r.active_weight_bytes > 37e9);
  CHECK(r.active_weight_bytes < 40e9);
  CHECK(r.naive_us == doctest::Approx(r.active_weight_bytes / 4e6));
  CHECK(r.naive_us > 9000);
  CHECK(r.naive_us < 10000);
  CHECK_FALSE(r.fits);  // 671B FP8 weights do not fit 96 GB
  const RooflineResult cpu = r1_on_h20(64, 1, 4096);
  CHECK(cpu.naive_us == doctest::Approx(r.active_weight_bytes / 64e3));
  CHECK(cpu.naive_us > 578000);
  CHECK(cpu.naive_us < 625000);
  // The refined estimate is never below the naive bound at batch 1: it reads at least the
  // active weights (minus the untouched embedding table) and adds KV, floors and efficiency.
  CHECK(r.refined_us > r.naive_us);
  CHECK(cpu.refined_us > cpu.naive_us);
}

TEST_CASE("gap terms add up to refined − naive exactly") {
  for (double batch : {1.0, 16.0}) {
    const RooflineResult r = r1_on_h20(0, batch, 8192);
    const RooflineGap& g = r.gap;
    const double sum =
        g.weights_us + g.kv_us + g.activations_us + g.efficiency_us + g.compute_us + g.floors_us;
    CHECK(r.naive_us + sum == doctest::Approx(r.refined_us).epsilon(1e-9));
    double group_sum = 0;
    for (const KernelGroup& k : r.groups) group_sum += k.time_us;
    CHECK(group_sum == doctest::Approx(r.refined_us).epsilon(1e-9));
    CHECK(g.kv_us > 0);
    // Every kernel pays the floor and the graph gap; non-GEMM kernels shorter than
    // small_kernel_us pay up to (small_kernel_us − floor) more.
    const ComputeModel cm = ComputeModel::for_gpu(Catalog::builtin().gpu("H20"));
    const double per_kernel = cm.floor_us() + cm.graph_gap_us();
    double elementwise = 0;
    for (const KernelGroup& k : r.groups)
      if (k.kind == KernelKind::Elementwise) elementwise += k.count;
    CHECK(cm.graph_gap_us() == doctest::Approx(0.35));
    CHECK(g.floors_us >= r.kernels_per_step * per_kernel);
    CHECK(g.floors_us <= r.kernels_per_step * per_kernel +
                             elementwise * (cm.small_kernel_us() - cm.floor_us()) + 1e-9);
  }
}

TEST_CASE("more context or a bigger batch never makes a decode step faster") {
  const RooflineResult a = r1_on_h20(0, 1, 1024);
  const RooflineResult b = r1_on_h20(0, 1, 32768);
  const RooflineResult c = r1_on_h20(0, 8, 1024);
  CHECK(b.refined_us > a.refined_us);
  CHECK(c.refined_us > a.refined_us);
  CHECK(c.weight_bytes_read > a.weight_bytes_read);  // a batch of 8 touches more experts
}
