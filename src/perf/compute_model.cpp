// ComputeModel: roofline per kernel with measured efficiency curves (docs/compute-model.md).
#include <algorithm>
#include <cmath>

#include "io/quantity_ranges.hpp"
#include "topoplan/error.hpp"
#include "topoplan/perf.hpp"

namespace topoplan {
namespace {

bool fp8_class(Dtype d) {
  return d == Dtype::FP8 || d == Dtype::INT8 || d == Dtype::FP4;
}

// STREAM copy / triad / dot (TB/s) of one lab on several GPUs, Azure/AI-benchmarking-guide
// (reference/calibration-points.md). GPUs reach different fractions of their datasheet HBM
// bandwidth (HBM2e A100 ≈ 84%, HBM3 H100 ≈ 90%, HBM3e H200 ≈ 87% on average), which scaling
// the H200's curves by datasheet peaks alone would miss. One lab on both sides cancels its bias.
struct Stream {
  const char* gpu;
  double copy_TBps, triad_TBps, dot_TBps;
};
constexpr Stream kStream[] = {
    {"A100-SXM-80GB", 1.61, 1.70, 1.75},
    {"H100-SXM", 2.90, 2.97, 3.18},
    {"H200-SXM", 4.01, 4.15, 4.48},
};

const Stream* stream_of(const std::string& gpu) {
  for (const Stream& s : kStream)
    if (gpu == s.gpu) return &s;
  return nullptr;
}

// Mean over the three STREAM kernels of (fraction of peak on `gpu`) ÷ (fraction on the GPU the
// calibration was measured on); 1 when either was not measured.
double stream_ratio(const GpuSpec& gpu, const Calibration& cal) {
  const Stream* a = stream_of(gpu.name);
  const Stream* b = stream_of(cal.gpu);
  if (!a || !b || !(gpu.hbm_GBps > 0) || !(cal.ref_hbm_GBps > 0)) return 1.0;
  const double pa = gpu.hbm_GBps * 1e-3, pb = cal.ref_hbm_GBps * 1e-3;
  return (a->copy_TBps / pa / (b->copy_TBps / pb) + a->triad_TBps / pa / (b->triad_TBps / pb) +
          a->dot_TBps / pa / (b->dot_TBps / pb)) /
         3;
}

void scale_curve(LogCurve& c, double r) {
  for (double& y : c.y) y = std::min(1.0, y * r);
}

}  // namespace

ComputeModel ComputeModel::from_calibration(const GpuSpec& gpu, const Calibration& cal,
                                            bool measured) {
  if (!(gpu.hbm_GBps > 0))
    throw InputError("gpu " + gpu.name, "/hbm_GBps", "the compute model needs a memory bandwidth");
  if (!(gpu.bf16_TFLOPS > 0))
    throw InputError("gpu " + gpu.name, "/bf16_TFLOPS", "the compute model needs a bf16 rate");
  ComputeModel cm;
  cm.gpu_ = gpu;
  cm.cal_ = cal;
  cm.hbm_GBps_ = gpu.hbm_GBps;
  cm.measured_ = measured;
  return cm;
}

ComputeModel ComputeModel::for_gpu(const GpuSpec& gpu) {
  if (const Calibration* own = builtin_calibration(gpu.name))
    return from_calibration(gpu, *own, true);
  // Another GPU: the reference GPU's curves, their HBM fractions scaled by the two GPUs' STREAM
  // fractions where both were measured (A100-80GB × 0.943, H100 × 1.026 against the H200).
  Calibration cal = reference_calibration();
  const double r = stream_ratio(gpu, cal);
  for (LogCurve* c : {&cal.hbm_stream, &cal.hbm_gemm, &cal.hbm_gemm_fp8, &cal.hbm_attention})
    scale_curve(*c, r);
  return from_calibration(gpu, cal, false);
}

std::string_view to_string(Fp8BlockGemm g) {
  switch (g) {
    case Fp8BlockGemm::Triton:
      return "triton";
    case Fp8BlockGemm::Auto:
      return "auto";
    case Fp8BlockGemm::Cublas:
      break;
  }
  return "cublas";
}

Fp8BlockGemm parse_fp8_block_gemm(std::string_view text) {
  for (Fp8BlockGemm g : {Fp8BlockGemm::Cublas, Fp8BlockGemm::Triton, Fp8BlockGemm::Auto})
    if (text == to_string(g)) return g;
  throw UnknownNameError("fp8 block GEMM kernel", std::string(text), {"auto", "cublas", "triton"});
}

ComputeModel ComputeModel::with_fp8_block_gemm(Fp8BlockGemm g) const {
  ComputeModel cm = *this;
  const double own = cal_.fp8_block_triton_ratio;
  const double r = own > 0 ? own : reference_calibration().fp8_block_triton_ratio;
  const double triton = r > 0 ? r : 1;
  cm.block_fp8_ratio_ = g == Fp8BlockGemm::Triton ? triton : 1;
  // SGLang 0.5.x: Fp8MoEMethod.create_moe_runner picks DeepGEMM only with the DeepEP all-to-all,
  // the Triton fused MoE otherwise; dense block-FP8 linears go to DeepGEMM when its JIT is on
  // (the default on sm90). docs/compute-model.md, "Which block-FP8 kernel runs".
  cm.fused_moe_block_fp8_ratio_ = g == Fp8BlockGemm::Cublas ? 1 : triton;
  cm.deepgemm_k_loop_ = g == Fp8BlockGemm::Auto;
  return cm;
}

ComputeModel ComputeModel::with_memory_bandwidth(double GBps) const {
  // A GPU's range (--mem-bw): 1e-300 GB/s printed 300-digit times, 1e300 a zero-time roofline.
  io::require_in_range(GBps, io::ranges::kGpuHbmGBps, "hbm_GBps");
  ComputeModel cm = *this;
  cm.hbm_GBps_ = GBps;
  cm.bw_override_ = true;
  return cm;
}

double ComputeModel::peak_TFLOPS(Dtype d) const noexcept {
  const double bf16 = gpu_.bf16_TFLOPS;
  switch (d) {
    case Dtype::BF16:
      return bf16;
    case Dtype::FP16:
      return gpu_.fp16_TFLOPS > 0 ? gpu_.fp16_TFLOPS : bf16;
    case Dtype::FP32:
      return bf16 / 2;  // TF32 tensor cores: half the bf16 rate (A100/H100 sheets)
    case Dtype::FP8:
      return gpu_.fp8_TFLOPS > 0 ? gpu_.fp8_TFLOPS : bf16;
    case Dtype::INT8:
      return gpu_.int8_TOPS > 0 ? gpu_.int8_TOPS : bf16;
    case Dtype::FP4:
      return gpu_.fp4_TFLOPS > 0 ? gpu_.fp4_TFLOPS : (gpu_.fp8_TFLOPS > 0 ? gpu_.fp8_TFLOPS : bf16);
    case Dtype::INT4:
    case Dtype::E8M0:  // a scale type, never GEMM math
      return bf16;     // no int4 tensor path on Hopper: dequantized to bf16 math
  }
  return bf16;
}

double ComputeModel::achieved_hbm_GBps(double bytes, KernelKind kind) const noexcept {
  KernelCost kc;
  kc.kind = kind;
  kc.bytes = bytes;
  return explain(kc).achieved_GBps;
}

double ComputeModel::achieved_TFLOPS(Dtype dtype, double m, double n, double k) const noexcept {
  KernelCost kc;
  kc.kind = KernelKind::Gemm;
  kc.math_dtype = dtype;
  kc.m = m, kc.n = n, kc.k = k;
  kc.flops = 2 * m * n * k;
  const KernelTiming t = explain(kc);
  return t.compute_us > 0 ? kc.flops / t.compute_us * 1e-6 : 0;
}

KernelTiming ComputeModel::explain(const KernelCost& k) const noexcept {
  KernelTiming t;
  t.floor_us = cal_.floor_us;
  t.peak_GBps = hbm_GBps_;
  if (k.bytes > 0) {
    const LogCurve* curve = &cal_.hbm_stream;
    if (k.kind == KernelKind::Gemm || k.kind == KernelKind::GroupedGemm)
      curve = fp8_class(k.math_dtype) && !cal_.hbm_gemm_fp8.y.empty() ? &cal_.hbm_gemm_fp8
                                                                      : &cal_.hbm_gemm;
    else if (k.kind == KernelKind::Attention && !cal_.hbm_attention.y.empty())
      curve = &cal_.hbm_attention;
    const double ideal_us = k.bytes / (hbm_GBps_ * 1e3);
    t.achieved_GBps = hbm_GBps_ * curve->at(ideal_us);
    t.memory_us = k.bytes / (t.achieved_GBps * 1e3);
  }
  const bool tensor = k.kind == KernelKind::Gemm || k.kind == KernelKind::GroupedGemm ||
                      k.kind == KernelKind::Attention;
  if (k.flops > 0 && tensor) {
    t.peak_TFLOPS = peak_TFLOPS(k.math_dtype);
    const bool fp8_rate = fp8_class(k.math_dtype) && t.peak_TFLOPS > gpu_.bf16_TFLOPS;
    const LogCurve& curve = fp8_rate ? cal_.tc_fp8 : cal_.tc_bf16;
    double work = k.flops;  // flops the tensor cores actually execute
    if (k.kind != KernelKind::Attention && k.m > 0) {
      const double padded_m = std::ceil(k.m / cal_.tile_m) * cal_.tile_m;
      work = k.flops * padded_m / k.m;
    }
    const double ideal_us = work / (t.peak_TFLOPS * 1e6);
    double frac = curve.at(ideal_us);
    if (k.kind == KernelKind::Attention && k.mean_keys > 0 && !fp8_rate &&
        !cal_.attn_prefill.y.empty()) {
      // Prefill attention: its own measured curve, less each row tile's fixed part.
      frac =
          cal_.attn_prefill.at(ideal_us) * k.mean_keys / (k.mean_keys + cal_.attn_prefill_k_half);
    }
    if (k.kind != KernelKind::Attention) frac *= cal_.k_shape(k.k, fp8_rate);
    if (k.block_scaled && fp8_rate)
      frac *= k.fused_moe ? fused_moe_block_fp8_ratio_ : block_fp8_ratio_;
    t.compute_us = ideal_us / frac;
    t.achieved_TFLOPS = k.flops / t.compute_us * 1e-6;
  }
  if (deepgemm_k_loop_ && runs_on_deepgemm(k))
    t.compute_us = std::max(t.compute_us, deepgemm_k_loop_us(k.k));
  // A small non-GEMM kernel lasts its latency chain (small_kernel_us), not the empty kernel's
  // floor plus its byte time: the rest of that duration is floor, not bytes.
  const double body = std::max(t.compute_us, t.memory_us);
  if (k.kind == KernelKind::Elementwise)
    t.floor_us = std::max(t.floor_us, cal_.small_kernel_us - body);
  t.time_us = t.floor_us + body;
  t.bound = t.compute_us >= t.memory_us ? Bound::Compute : Bound::Memory;
  if (t.floor_us >= std::max(t.compute_us, t.memory_us)) t.bound = Bound::Floor;
  return t;
}

// The GEMMs DeepGEMM runs under `auto`: block-scaled FP8 on FP8 tensor cores, not the Triton
// fused MoE.
bool ComputeModel::runs_on_deepgemm(const KernelCost& k) const noexcept {
  return k.block_scaled && !k.fused_moe && k.math_dtype == Dtype::FP8 && k.k > 0 &&
         k.kind != KernelKind::Attention && peak_TFLOPS(Dtype::FP8) > gpu_.bf16_TFLOPS;
}

// DeepGEMM gives each output tile one CTA that walks all of K in 128-deep steps (no split-K), so
// at few rows the kernel is that serial loop, not bandwidth: the measured whole-kernel time less
// the floor that time_us adds back. GPUs without their own measurement take the reference's.
double ComputeModel::deepgemm_k_loop_us(double k) const {
  const Calibration& c = cal_.deepgemm_per_k_block_us > 0 ? cal_ : reference_calibration();
  if (!(c.deepgemm_per_k_block_us > 0)) return 0;
  const double loop = c.deepgemm_fixed_us + std::ceil(k / 128) * c.deepgemm_per_k_block_us;
  return std::max(0.0, loop - cal_.floor_us);
}

double ComputeModel::eager_launch_us() const {
  return cal_.eager_launch_us > 0 ? cal_.eager_launch_us : reference_calibration().eager_launch_us;
}

double ComputeModel::kernel_time_us(const KernelCost& k) const noexcept {
  return explain(k).time_us;
}

std::string ComputeModel::provenance() const {
  std::string s;
  if (cal_.gpu.find("provisional") != std::string::npos) {
    s = "PROVISIONAL efficiency curves (not measured: cited asymptotes, assumed small-kernel "
        "shape)";
    if (gpu_.name + "-provisional" != cal_.gpu) s += ", scaled to this GPU's datasheet peaks";
  } else if (measured_) {
    s = "efficiency curves measured on this GPU (" + cal_.source + ")";
  } else {
    s = "efficiency curves measured on " + cal_.gpu +
        ", scaled to this GPU's datasheet peaks (not measured)";
  }
  if (bw_override_) s += "; memory bandwidth overridden";
  return s;
}

}  // namespace topoplan
