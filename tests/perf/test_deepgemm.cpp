// DeepGEMM's serial k-loop (Calibration::deepgemm_*) by hand, and the model against the H200
// DeepGEMM measurements it came from (topologies/calibration/deepgemm-*-h200-2026-12-04.json).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "topoplan/embedded.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/perf.hpp"

using namespace topoplan;

namespace {

const ComputeModel& h200_auto() {
  static const ComputeModel cm = ComputeModel::for_gpu(Catalog::builtin().gpu("H200-SXM"))
                                     .with_fp8_block_gemm(Fp8BlockGemm::Auto);
  return cm;
}

KernelCost block_fp8_gemm(double m, double n, double k) {
  KernelCost c;
  c.kind = KernelKind::Gemm;
  c.math_dtype = Dtype::FP8;
  c.m = m, c.n = n, c.k = k;
  c.flops = 2 * m * n * k;
  c.bytes = n * k + m * k + 2 * m * n;
  c.block_scaled = true;
  return c;
}

std::vector<MeasuredKernel> points(const std::string& name) {
  const std::string path = TOPOPLAN_SOURCE_DIR "/topologies/calibration/" + name;
  return parse_probe_results(read_text_file(path), path);
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TEST_CASE("DeepGEMM k-loop: one row of a k 7168 GEMM waits for 56 serial k-blocks") {
  // fixed 3.0694 us + ceil(7168 / 128) = 56 blocks x 0.10518 us = 8.95948 us (h200-sxm.json),
  // far above the 3.7 MB of weights at the fp8 GEMM curve's bandwidth.
  const KernelCost k = block_fp8_gemm(1, 512, 7168);
  CHECK(h200_auto().kernel_time_us(k) == doctest::Approx(3.0694 + 56 * 0.10518).epsilon(1e-6));
  CHECK(h200_auto().explain(k).bound == Bound::Compute);
  // k 200 rounds up to 2 blocks: 3.0694 + 2 x 0.10518 = 3.27976 us, unless bandwidth is longer.
  CHECK(h200_auto().deepgemm_k_loop_us(200) ==
        doctest::Approx(3.0694 + 2 * 0.10518 - h200_auto().floor_us()).epsilon(1e-6));
}

TEST_CASE("DeepGEMM k-loop: only dense block-FP8 GEMMs, only under auto, only with FP8 math") {
  const ComputeModel base = ComputeModel::for_gpu(Catalog::builtin().gpu("H200-SXM"));
  KernelCost k = block_fp8_gemm(1, 512, 7168);
  const double loop = 3.0694 + 56 * 0.10518;
  CHECK(base.with_fp8_block_gemm(Fp8BlockGemm::Cublas).kernel_time_us(k) < loop / 1.5);
  CHECK(base.with_fp8_block_gemm(Fp8BlockGemm::Triton).kernel_time_us(k) < loop / 1.5);
  k.fused_moe = true;  // the Triton fused MoE at EP1, not DeepGEMM
  CHECK(h200_auto().kernel_time_us(k) < loop / 1.5);
  k.fused_moe = false;
  k.block_scaled = false;  // per-tensor FP8: cuBLASLt
  CHECK(h200_auto().kernel_time_us(k) < loop / 1.5);
  // A100: FP8 weights run weight-only (no FP8 tensor cores), so no DeepGEMM.
  const ComputeModel a100 = ComputeModel::for_gpu(Catalog::builtin().gpu("A100-SXM-80GB"));
  k.block_scaled = true;
  CHECK(a100.with_fp8_block_gemm(Fp8BlockGemm::Auto).kernel_time_us(k) ==
        doctest::Approx(a100.with_fp8_block_gemm(Fp8BlockGemm::Cublas).kernel_time_us(k)));
}

TEST_CASE(
    "DeepGEMM decode shapes: the two fitted kernels within 10%, the contended ones still fast") {
  // Fitted (m <= 32): R1 shared down /tp8 (k 256) and shared gate+up /tp8 (k 7168, 32 CTAs),
  // each from the median of four runs that spread 3.25-3.33 and 8.77-9.81 us.
  // Not modelled: the same loop with 116-132 narrow CTAs (fused q_a+kv_a n 2112 and dense
  // gate+up n 4608 at k 7168) runs 1.5-2.4x longer; the model stays below 0.70x of those
  // measurements, which is the gap docs/compute-model.md states. A fix has to move this check.
  int fitted = 0, contended = 0;
  for (const MeasuredKernel& p : points("deepgemm-decode-h200-2026-12-04.json")) {
    if (p.kernel.m > 32) continue;
    const double ratio = h200_auto().kernel_time_us(p.kernel) / p.measured_us;
    if (ends_with(p.label, "shared down /tp8") || ends_with(p.label, "shared gate+up /tp8")) {
      CHECK(ratio == doctest::Approx(1).epsilon(0.10));
      ++fitted;
    }
    if (ends_with(p.label, "fused q_a+kv_a (replicated)") ||
        ends_with(p.label, "dense gate+up /tp8")) {
      CHECK(ratio < 0.70);
      ++contended;
    }
  }
  CHECK(fitted == 8);
  CHECK(contended >= 8);
}

TEST_CASE("DeepGEMM prefill shapes: auto prices an R1 TP8 layer's dense GEMMs within 10%") {
  // m = 8000, the dense linears of one MoE layer as the model prices them (q_a and kv_a apart):
  // measured 131.9 + 63.1 + 60.5 + 38.8 + 193.9 + 46.4 + 43.0 = 577.6 us; the per-tensor curve
  // gives about 5% more. The k-loop is far below these times (no effect at m = 8000).
  const std::vector<std::string> layer = {
      "q_a_proj (replicated)", "kv_a_proj_with_mqa (replicated)",
      "q_b_proj /tp8",         "kv_b_proj /tp8",
      "o_proj /tp8",           "shared gate+up /tp8",
      "shared down /tp8"};
  double measured = 0, model = 0;
  int n = 0;
  for (const MeasuredKernel& p : points("deepgemm-h200-2026-12-04.json")) {
    if (p.kernel.m != 8000) continue;
    for (const std::string& l : layer)
      if (ends_with(p.label, l)) {
        measured += p.measured_us;
        model += h200_auto().kernel_time_us(p.kernel);
        ++n;
      }
  }
  CHECK(n == 7);
  CHECK(measured == doctest::Approx(577.6).epsilon(0.01));
  CHECK(model / measured == doctest::Approx(1.0).epsilon(0.10));
}
