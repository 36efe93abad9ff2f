// Calibration tables: parsing (topologies/calibration/*.json) and the built-in set.
#include <cmath>
#include <memory>
#include <mutex>
#include <vector>

#include "io/json_reader.hpp"
#include "io/quantity_ranges.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/perf.hpp"

namespace topoplan {
namespace {

constexpr const char* kReferenceFile = "topologies/calibration/h200-sxm.json";
// GPUs measured on their own (besides the reference): their curves replace the reference's scaled
// ones. H100-SXM: the lent nvidia-h100-x1 machine, 2026-12-06 (tools/measure/device/run_h100.sh).
constexpr const char* kOwnFiles[] = {"topologies/calibration/h100-sxm.json"};

namespace rg = io::ranges;

// {"x": [...], "fraction": [...]} with x in `x_key` units (bytes or FLOP, within `x_range`);
// stored as log(x / peak_per_us).
LogCurve parse_curve(const io::JsonReader& f, const std::string& key, const std::string& x_key,
                     double per_us, bool required) {
  const io::QuantityRange& x_range = x_key == "bytes" ? rg::kMeasuredBytes : rg::kMeasuredFlops;
  LogCurve c;
  if (!f.has(key)) {
    if (required) throw InputError(f.source(), f.pointer() + "/" + key, "missing efficiency curve");
    return c;
  }
  const io::JsonReader cf =
      io::JsonReader::object_at(f.at(key), f.source(), f.pointer() + "/" + key);
  const auto& xs = cf.at(x_key);
  const auto& ys = cf.at("fraction");
  if (!xs.is_array() || !ys.is_array() || xs.size() != ys.size() || xs.size() < 2)
    throw InputError(f.source(), cf.pointer(),
                     "'" + x_key + "' and 'fraction' must be arrays of equal length >= 2");
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const std::string at = cf.pointer() + "/" + x_key + "/" + std::to_string(i);
    if (!xs[i].is_number() || !ys[i].is_number())
      throw InputError(f.source(), at, "curve entries must be numbers");
    const double x = xs[i].get<double>(), y = ys[i].get<double>();
    if (const std::string p = io::out_of_range(x, x_range); !p.empty())
      throw InputError(f.source(), at, p);
    if (!(y > 0 && y <= 1.0))
      throw InputError(f.source(), cf.pointer() + "/fraction/" + std::to_string(i),
                       "a fraction of peak must be in (0, 1]");
    const double lx = std::log(x / per_us);
    if (!c.log_x.empty() && !(lx > c.log_x.back()))
      throw InputError(f.source(), at, "'" + x_key + "' must be strictly increasing");
    c.log_x.push_back(lx);
    c.y.push_back(y);
  }
  return c;
}

}  // namespace

Calibration parse_calibration(const std::string& json_text, const std::string& source) {
  const auto j = io::parse_json_text(json_text, source);
  const io::JsonReader f = io::JsonReader::object_at(j, source, "");
  Calibration c;
  c.gpu = f.str("gpu");
  c.source = f.str("source");
  const io::JsonReader peaks =
      io::JsonReader::object_at(f.at("reference_peaks"), source, "/reference_peaks");
  // Every constant within its plausible range (io/quantity_ranges.hpp): a floor of 1e300 µs
  // printed 300-digit step times.
  c.ref_hbm_GBps = peaks.quantity("hbm_GBps", rg::kGpuHbmGBps);
  c.ref_bf16_TFLOPS = peaks.quantity("bf16_TFLOPS", rg::kGpuTFLOPS);
  c.ref_fp8_TFLOPS = peaks.quantity("fp8_TFLOPS", rg::kGpuTFLOPS);
  c.floor_us = f.quantity("floor_us", rg::kKernelTime_us);
  // Optional overheads: absent is 0 (not measured); a given one is a kernel time.
  auto overhead = [&f](const char* key) {
    return f.has(key) ? f.quantity(key, rg::kKernelTime_us) : 0.0;
  };
  c.eager_launch_us = overhead("eager_launch_us");
  c.graph_gap_us = overhead("graph_gap_us");
  c.small_kernel_us = overhead("small_kernel_us");
  c.tile_m = f.has("tile_m") ? f.quantity("tile_m", rg::kMatrixDim) : 8;
  const double bytes_per_us = c.ref_hbm_GBps * 1e3;
  c.hbm_gemm = parse_curve(f, "hbm_gemm", "bytes", bytes_per_us, true);
  c.hbm_gemm_fp8 = parse_curve(f, "hbm_gemm_fp8", "bytes", bytes_per_us, false);
  c.hbm_stream = parse_curve(f, "hbm_stream", "bytes", bytes_per_us, true);
  c.hbm_attention = parse_curve(f, "hbm_attention", "bytes", bytes_per_us, false);
  c.tc_bf16 = parse_curve(f, "tc_bf16", "flops", c.ref_bf16_TFLOPS * 1e6, true);
  c.tc_fp8 = parse_curve(f, "tc_fp8", "flops", c.ref_fp8_TFLOPS * 1e6, false);
  if (c.tc_fp8.y.empty()) c.tc_fp8 = c.tc_bf16;
  if (f.has("attn_prefill")) {
    c.attn_prefill = parse_curve(f, "attn_prefill", "flops", c.ref_bf16_TFLOPS * 1e6, true);
    const io::JsonReader a =
        io::JsonReader::object_at(f.at("attn_prefill"), source, "/attn_prefill");
    c.attn_prefill_k_half = a.quantity("k_half", rg::kKHalf);
  }
  if (f.has("fp8_block_triton")) {
    const io::JsonReader b =
        io::JsonReader::object_at(f.at("fp8_block_triton"), source, "/fp8_block_triton");
    c.fp8_block_triton_ratio = b.number_at_most("ratio", 0, 1, true);
  }
  if (f.has("deepgemm_k_loop")) {
    const io::JsonReader d =
        io::JsonReader::object_at(f.at("deepgemm_k_loop"), source, "/deepgemm_k_loop");
    c.deepgemm_fixed_us = d.quantity("fixed_us", rg::kKernelTime_us);
    c.deepgemm_per_k_block_us = d.quantity("per_k_block_us", rg::kKernelTime_us);
  }
  if (f.has("gemm_k_shape")) {
    const io::JsonReader k =
        io::JsonReader::object_at(f.at("gemm_k_shape"), source, "/gemm_k_shape");
    c.k_ref = k.quantity("k_ref", rg::kMatrixDim);
    c.k_half_bf16 = k.quantity("k_half_bf16", rg::kKHalf);
    c.k_half_fp8 = k.quantity("k_half_fp8", rg::kKHalf);
  }
  return c;
}

double Calibration::k_shape(double k, bool fp8_rate) const {
  const double half = fp8_rate ? k_half_fp8 : k_half_bf16;
  if (!(half > 0) || !(k_ref > 0) || !(k > 0) || k >= k_ref) return 1.0;
  return (k / (k + half)) / (k_ref / (k_ref + half));
}

namespace {

Calibration embedded_calibration(const char* file) {
  const auto text = embedded_file(file);
  if (!text) throw InternalError(std::string("embedded calibration missing: ") + file);
  return parse_calibration(std::string(*text), std::string("builtin:") + file);
}

}  // namespace

const Calibration& reference_calibration() {
  static const Calibration cal = embedded_calibration(kReferenceFile);
  return cal;
}

const Calibration* builtin_calibration(std::string_view gpu_name) {
  const Calibration& ref = reference_calibration();
  if (ref.gpu == gpu_name) return &ref;
  static const std::vector<Calibration> own = [] {
    std::vector<Calibration> v;
    for (const char* f : kOwnFiles) v.push_back(embedded_calibration(f));
    return v;
  }();
  for (const Calibration& c : own)
    if (c.gpu == gpu_name) return &c;
  return nullptr;
}

}  // namespace topoplan
