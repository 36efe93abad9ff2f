// The built-in H200 calibration against the raw measurement it was fitted from, and against
// published measurements (/work/shared/reference/calibration-points.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "topoplan/embedded.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/perf.hpp"
#include "topoplan/probe.hpp"
#include "topoplan/units.hpp"

using namespace topoplan;

namespace {

const char* kRawMeasurement =
    TOPOPLAN_SOURCE_DIR "/topologies/calibration/h200-sxm-2026-12-02.json";

const ComputeModel& h200() {
  static const ComputeModel cm = ComputeModel::for_gpu(Catalog::builtin().gpu("H200-SXM"));
  return cm;
}

struct ErrStats {
  double median = 0, worst = 0;
  std::size_t n = 0;
};

ErrStats stats(std::vector<double> e) {
  ErrStats s;
  s.n = e.size();
  if (e.empty()) return s;
  std::sort(e.begin(), e.end());
  s.median = e[e.size() / 2];
  s.worst = e.back();
  return s;
}

}  // namespace

TEST_CASE("the H200 calibration reproduces its own measurement") {
  const Calibration& ref = reference_calibration();
  const bool provisional = ref.gpu.find("provisional") != std::string::npos;
  // A provisional calibration has no measurement to fit: the case says so in its output and
  // checks, instead of the fit, that every plan priced on it says PROVISIONAL (so its users see
  // what this test cannot verify).
  if (provisional) {
    MESSAGE("SKIPPED: the built-in calibration is provisional (no measurement to reproduce)");
    const GpuSpec& gpu = Catalog::builtin().gpu(ref.gpu.substr(0, ref.gpu.find("-provisional")));
    CHECK(ComputeModel::for_gpu(gpu).provenance().find("PROVISIONAL") == 0);
    return;
  }
  const auto points = parse_probe_results(read_text_file(kRawMeasurement), kRawMeasurement);
  REQUIRE(points.size() > 200);
  std::map<std::string, std::vector<double>> errs;
  double copy_256MiB_GBps = 0, copy_large_worst_GBps = 1e9;
  for (const MeasuredKernel& p : points) {
    // Copies of >= 512 MiB (2 × 512 MiB moved) are left out of the fit (fit_calibration.py):
    // they ran at 2.7 TB/s while GEMV/attention reads of 1-4 GB reached 4.2-4.6 TB/s. Checked
    // below that they are that anomaly and nothing else is excluded.
    if (p.op == "copy" && p.kernel.bytes >= 2 * 512 * kMiB) {
      copy_large_worst_GBps = std::min(copy_large_worst_GBps, p.kernel.bytes / p.measured_us / 1e3);
      continue;
    }
    if (p.op == "copy" && p.kernel.bytes == 2 * 256 * kMiB)
      copy_256MiB_GBps = p.kernel.bytes / p.measured_us / 1e3;
    const double predicted = h200().kernel_time_us(p.kernel);
    const std::string key = p.op + "/" + std::string(to_string(p.kernel.math_dtype));
    errs[key].push_back(std::fabs(predicted / p.measured_us - 1));
    errs["all"].push_back(std::fabs(predicted / p.measured_us - 1));
  }
  CHECK(copy_256MiB_GBps > 4000);
  CHECK(copy_large_worst_GBps < 0.7 * copy_256MiB_GBps);
  // Bounds (docs/compute-model.md, "Fit errors"), {median |err|, worst |err|}: the fit gave
  // medians of 0-7% and a worst of 39% (fp8 m=256 on a 2048x7168 expert: one size curve cannot
  // tell skinny shapes from square ones of equal flops); the bounds sit a little above those.
  const std::map<std::string, std::pair<double, double>> bound = {
      {"copy/bf16", {0.02, 0.05}},
      {"gemv/bf16", {0.05, 0.30}},
      {"gemv/fp8", {0.08, 0.35}},
      {"gemm/bf16", {0.05, 0.30}},
      {"gemm/fp8", {0.05, 0.45}},
      {"gemm_square/bf16", {0.06, 0.35}},
      {"gemm_square/fp8", {0.10, 0.20}},
      {"attn_decode/bf16", {0.02, 0.08}},
      {"all", {0.05, 0.45}}};
  for (const auto& entry : errs) {  // not a binding: clang 14 cannot capture those in INFO
    const std::string& key = entry.first;
    const ErrStats s = stats(entry.second);
    INFO(key << ": n=" << s.n << " median |err| " << s.median << " worst " << s.worst);
    auto it = bound.find(key);
    REQUIRE(it != bound.end());
    CHECK(s.median <= it->second.first);
    CHECK(s.worst <= it->second.second);
  }
}

TEST_CASE(
    "published H200 checks: STREAM copy and cuBLASLt FP8 GEMM (Azure AI benchmarking guide)") {
  // STREAM copy 4.01 TB/s counts read + write bytes of a large array: a 2 GiB copy moves 4 GiB.
  KernelCost copy;
  copy.kind = KernelKind::Elementwise;
  copy.bytes = 2 * 2 * 1073741824.0;
  const double copy_TBps = copy.bytes / h200().kernel_time_us(copy) / 1e6;
  INFO("model copy " << copy_TBps << " TB/s vs published 4.01");
  CHECK(copy_TBps == doctest::Approx(4.01).epsilon(0.08));  // model 4.22 (+5%)
  // FP8 GEMM m=n=k 4096 / 8192 / 16384: 1249 / 1301 / 1366 TFLOPS.
  const double sizes[] = {4096, 8192, 16384}, published[] = {1249, 1301, 1366};
  for (int i = 0; i < 3; ++i) {
    const double s = sizes[i];
    KernelCost g;
    g.kind = KernelKind::Gemm;
    g.math_dtype = Dtype::FP8;
    g.m = g.n = g.k = s;
    g.flops = 2 * s * s * s;
    g.bytes = 3 * s * s;
    const double tflops = g.flops / h200().kernel_time_us(g) / 1e6;
    INFO("size " << s << ": model " << tflops << " TFLOPS vs published " << published[i]);
    // Model 1217 / 1236 / 1245 (−3% / −5% / −9%); own measurement 1299 / 1363 / 1250.
    CHECK(tflops == doctest::Approx(published[i]).epsilon(0.10));
  }
}

namespace {

// A held-out topoplan-probe run (cuBLASLt, TP-sharded and grouped shapes the fit never saw) against
// `cm`: each GEMV/GEMM family's median |predicted / measured - 1| within `bound`. fp8 with block
// scales and copies are documented misses (docs/compute-model.md) and not bounded here.
void check_held_out_probe(const char* file, const char* gpu, const ComputeModel& cm, double bound) {
  const std::string path = std::string(TOPOPLAN_SOURCE_DIR "/topologies/calibration/") + file;
  const ProbeResult r = parse_probe_file(read_text_file(path), path);
  CHECK(r.gpu_name == gpu);
  CHECK(r.nccl_version == "2.28.3");
  std::map<std::string, std::vector<double>> errs;
  for (const MeasuredKernel& k : r.kernels) {
    if (k.op == "copy" || k.variant == "fp8_block") continue;
    errs[k.op + "/" + k.variant].push_back(
        std::fabs(cm.kernel_time_us(k.kernel) / k.measured_us - 1));
  }
  for (const std::string family :
       {"gemv/bf16", "gemv/fp8_tensor", "gemm/bf16", "gemm/fp8_tensor", "tp_gemm/bf16",
        "tp_gemm/fp8_tensor", "grouped_gemm/bf16", "grouped_gemm/fp8_tensor"}) {
    const ErrStats s = stats(errs[family]);
    INFO(family << ": n=" << s.n << " median |err| " << s.median << " worst " << s.worst);
    CHECK(s.n >= 49);
    CHECK(s.median <= bound);
  }
}

}  // namespace

TEST_CASE("the H200 calibration predicts the held-out C++ probe run (cuBLASLt, 2026-12-03)") {
  // probe-h200-2026-12-03.json: tools/probe's topoplan-probe on the same H200 a day after the
  // PyTorch measurement the curves were fitted to (docs/probe.md). `validate --probe` printed
  // medians |err| of 4.4-7.4% for these families; the bound is 10%.
  check_held_out_probe("probe-h200-2026-12-03.json", "NVIDIA H200", h200(), 0.10);
}

TEST_CASE("the H100 calibration predicts the held-out C++ probe run (cuBLASLt, 2026-12-06)") {
  // probe-h100-2026-12-06.json: the C++ probe on the lent H100 15 minutes after the PyTorch run
  // the H100 curves were fitted to (tools/measure/device/run_h100_probe.sh). `validate --probe`:
  // medians |err| gemv 2.9 / 4.1%, gemm 4.4 / 5.7%, tp_gemm 5.7 / 6.4%, grouped 3.0 / 3.0% (bf16 /
  // fp8 per-tensor); the bound is 8%.
  const ComputeModel h100 = ComputeModel::for_gpu(Catalog::builtin().gpu("H100-SXM"));
  check_held_out_probe("probe-h100-2026-12-06.json", "NVIDIA H100 80GB HBM3", h100, 0.08);
}

TEST_CASE("small-k term, fitted on the Triton/bmm MoE run, predicts the held-out cuBLASLt run") {
  // h200-sxm.json gemm_k_shape was fitted (tools/measure/fit_k_shape.py) on the k = 256 / 7168
  // rate ratio of topologies/calibration/moe-tp-h200-2026-12-03.json only. Held out: the C++
  // probe's cuBLASLt GEMMs of 2026-12-03 with k < 4096 (TP-sliced experts k = 256, 512, 2048,
  // row-parallel projections k = 1024 .. 3584), compute-bound (m >= 256). By hand for fp8:
  // k_half 380.9, k_ref 4096 → k = 256: (256/636.9)/(4096/4476.9) = 0.43933; k = 1024:
  // (1024/1404.9)/0.914919 = 0.79666; bf16 (k_half 89.9), k = 256: (256/345.9)/(4096/4185.9)
  // = 0.75634. Equal flops on both sides (n × k fixed), so the size curve cancels.
  const auto ratio = [](Dtype d, double k) {
    return h200().achieved_TFLOPS(d, 4096, 7168.0 * 256 / k, k) /
           h200().achieved_TFLOPS(d, 4096, 448, 4096);
  };
  CHECK(ratio(Dtype::FP8, 256) == doctest::Approx(0.43933).epsilon(1e-3).scale(0));
  CHECK(ratio(Dtype::FP8, 1024) == doctest::Approx(0.79666).epsilon(1e-3).scale(0));
  CHECK(ratio(Dtype::BF16, 256) == doctest::Approx(0.75634).epsilon(1e-3).scale(0));
  CHECK(ratio(Dtype::FP8, 8192) == doctest::Approx(1.0).epsilon(1e-9));  // k >= k_ref: no term
  Calibration off = reference_calibration();
  off.k_half_bf16 = off.k_half_fp8 = 0;
  const ComputeModel size_only =
      ComputeModel::from_calibration(Catalog::builtin().gpu("H200-SXM"), off, true);
  const std::string path = TOPOPLAN_SOURCE_DIR "/topologies/calibration/probe-h200-2026-12-03.json";
  const ProbeResult r = parse_probe_file(read_text_file(path), path);
  std::vector<double> with_k, without_k, signed_k256;
  for (const MeasuredKernel& k : r.kernels) {
    const bool gemm = k.op == "tp_gemm" || k.op == "grouped_gemm" || k.op == "gemm";
    if (!gemm || k.variant == "fp8_block" || k.kernel.k >= 4096 || k.kernel.m < 256) continue;
    with_k.push_back(std::fabs(h200().kernel_time_us(k.kernel) / k.measured_us - 1));
    without_k.push_back(std::fabs(size_only.kernel_time_us(k.kernel) / k.measured_us - 1));
    if (k.kernel.k == 256) signed_k256.push_back(h200().kernel_time_us(k.kernel) / k.measured_us);
  }
  const ErrStats a = stats(with_k), b = stats(without_k), k256 = stats(signed_k256);
  INFO("k < 4096, m >= 256: n=" << a.n << " median |err| " << a.median << " (size only " << b.median
                                << "), worst " << a.worst << " (" << b.worst
                                << "); k = 256 predicted/measured median " << k256.median);
  CHECK(a.n >= 60);
  CHECK(a.median < b.median);
  CHECK(a.worst < b.worst);
  CHECK(a.median <= 0.10);
  // The k = 256 slices were the worst optimism of the size-only curve (−43%): now within 15%.
  CHECK(k256.median == doctest::Approx(1.0).epsilon(0.15));
}
