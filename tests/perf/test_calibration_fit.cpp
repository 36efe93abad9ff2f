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
  if (reference_calibration().gpu.find("provisional") != std::string::npos) {
    MESSAGE("SKIPPED: the built-in calibration is provisional (no measurement to reproduce)");
    return;
  }
  const auto points = parse_probe_results(read_text_file(kRawMeasurement), kRawMeasurement);
  REQUIRE(points.size() > 200);
  std::map<std::string, std::vector<double>> errs;
  for (const MeasuredKernel& p : points) {
    const double predicted = h200().kernel_time_us(p.kernel);
    const std::string key = p.op + "/" + std::string(to_string(p.kernel.math_dtype));
    errs[key].push_back(std::fabs(predicted / p.measured_us - 1));
    errs["all"].push_back(std::fabs(predicted / p.measured_us - 1));
  }
  // Bounds (docs/compute-model.md, "Fit errors"): measured spread between shapes of equal bytes
  // and the interpolation between binned points; stated, not tuned per point.
  const std::map<std::string, std::pair<double, double>> bound = {
      {"copy/bf16", {0.05, 0.15}},
      {"gemv/bf16", {0.10, 0.35}},
      {"gemv/fp8", {0.10, 0.35}},
      {"gemm/bf16", {0.10, 0.35}},
      {"gemm/fp8", {0.10, 0.40}},
      {"gemm_square/bf16", {0.10, 0.35}},
      {"gemm_square/fp8", {0.10, 0.40}},
      {"attn_decode/bf16", {0.10, 0.35}},
      {"all", {0.10, 0.40}}};
  for (const auto& [key, e] : errs) {
    const ErrStats s = stats(e);
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
  CHECK(copy_TBps == doctest::Approx(4.01).epsilon(0.10));
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
    CHECK(tflops == doctest::Approx(published[i]).epsilon(0.25));
  }
}
