// Single-GPU compute model: prices one kernel (KernelCost from the model layer) on one GPU.
//
//   time_us = floor_us + max(flops ÷ achieved FLOPS, bytes ÷ achieved HBM bandwidth)
//
// The achieved rates are not constants. They come from efficiency curves measured on a real GPU
// (tools/probe/, topologies/calibration/, docs/compute-model.md):
//   - HBM: achieved fraction of peak as a function of the bytes one kernel moves (small kernels
//     cannot fill the memory pipes), per kernel family (GEMV/GEMM weights, streaming copies,
//     decode attention), log-log interpolation between measured points;
//   - tensor cores: achieved fraction of peak as a function of the GEMM size, after padding m
//     up to the token granularity of the tensor-core instruction (tile_m);
//   - floor: the GPU-side cost of one kernel inside a CUDA graph.
// A GPU without its own measurement uses the reference GPU's curve shapes scaled by its
// datasheet peaks (GpuSpec::hbm_GBps, *_TFLOPS); `measured()` says which case applies.
//
// kernel_time_us() allocates nothing and is a handful of table look-ups: the planner calls it
// millions of times.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topoplan/dtype.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/kernel.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

enum class Bound { Compute, Memory, Floor };
std::string_view to_string(Bound b);

// Breakdown of one kernel's predicted time.
struct KernelTiming {
  double time_us = 0;          // the prediction: floor_us + max(compute_us, memory_us)
  double compute_us = 0;       // flops ÷ achieved FLOPS (0 when the kernel has no flops)
  double memory_us = 0;        // bytes ÷ achieved HBM bandwidth
  double floor_us = 0;         // per-kernel fixed cost
  double achieved_TFLOPS = 0;  // rate used for compute_us
  double achieved_GBps = 0;    // rate used for memory_us
  double peak_TFLOPS = 0;      // datasheet peak of the math dtype (after fallbacks)
  double peak_GBps = 0;        // peak HBM bandwidth (or the override)
  Bound bound = Bound::Floor;  // the largest of the three terms
};

// A curve y(x) > 0: log y piecewise linear in log x between points sorted by x, flat beyond the
// ends.
struct LogCurve {
  std::vector<double> log_x;  // natural log of x, strictly increasing
  std::vector<double> y;
  double at(double x) const noexcept;
};

// Fitted efficiency tables of one measured GPU (topologies/calibration/<gpu>.json). Every curve's
// x is the kernel's ideal time in µs at the peak rate (bytes ÷ peak bandwidth, or padded flops ÷
// peak FLOPS): by Little's law a kernel fills the machine once it lasts several memory or pipeline
// latencies, so one curve shape carries over to GPUs of other peaks (and to a CPU override).
struct Calibration {
  std::string gpu;          // catalog name the measurement was made on ("H200")
  std::string source;       // file, date, hardware and command of the measurement
  double ref_hbm_GBps = 0;  // datasheet peaks the fractions are relative to
  double ref_bf16_TFLOPS = 0;
  double ref_fp8_TFLOPS = 0;
  double floor_us = 0;  // per-kernel GPU-side floor (CUDA graph)
  // Host-bound cost of one eager kernel launch (PyTorch op + cudaLaunchKernel, no CUDA graph):
  // the GPU time per kernel when the host cannot run ahead. 0: not measured (use the reference).
  double eager_launch_us = 0;
  // Decode steps replayed in one CUDA graph (docs/compute-model.md, "A whole R1 decode layer"):
  // the idle time between consecutive kernels of a graph, paid at every kernel boundary, and
  // the duration of a small non-GEMM kernel (norm, quant, rope, top-k: one CTA per row walks a
  // latency chain, so it lasts longer than an empty kernel). 0: not measured (no such term).
  double graph_gap_us = 0;
  double small_kernel_us = 0;
  LogCurve hbm_gemm;       // achieved/peak HBM of a bf16 GEMM/GEMV (weights + activations)
  LogCurve hbm_gemm_fp8;   // same for fp8 weights (empty: use hbm_gemm)
  LogCurve hbm_stream;     // achieved/peak HBM of a streaming kernel (copy, norm, embedding)
  LogCurve hbm_attention;  // achieved/peak HBM of decode attention (KV reads; empty: stream)
  LogCurve tc_bf16;        // achieved/peak tensor FLOPS of one GEMM (bf16/fp16/tf32)
  LogCurve tc_fp8;         // same for fp8 (also int8/fp4 math)
  double tile_m = 8;       // m (tokens) is padded up to a multiple of this (wgmma N step,
                           // small-m kernels swap A/B)
  // Small-k GEMMs: an output tile's fixed cost (prologue, pipeline fill, epilogue) is amortised
  // over k / BLOCK_K main-loop steps, so the rate scales as r(k) = k / (k + k_half); the size
  // curves above are taken at k_ref, and a GEMM with k < k_ref runs r(k) / r(k_ref) of their
  // rate (docs/compute-model.md, "Small k"). 0: not measured (no k term).
  double k_half_bf16 = 0, k_half_fp8 = 0, k_ref = 0;
  // Rate of a Triton block-scaled FP8 GEMM ÷ the per-tensor FP8 rate at the same shape
  // (`fp8_block_triton.ratio`; 0: not measured). Used only when a plan asks for that kernel.
  double fp8_block_triton_ratio = 0;
  // DeepGEMM's serial k-loop (`deepgemm_k_loop`; 0: not measured): it never splits K, so a
  // kernel takes at least fixed + ceil(k / 128) · per-block, however few rows it has. Used
  // for block-scaled FP8 GEMMs that DeepGEMM runs (`Fp8BlockGemm::Auto`, not the fused MoE).
  double deepgemm_fixed_us = 0, deepgemm_per_k_block_us = 0;
  // Prefill attention (`attn_prefill`): fraction of the bf16 peak at many keys per query, by
  // ideal time, and the per-row-tile fixed part in keys: rate = curve · K / (K + k_half) for K
  // mean keys per query (docs/compute-model.md, "Prefill attention"). Empty: the GEMM curve.
  LogCurve attn_prefill;
  double attn_prefill_k_half = 0;
  // r(k) / r(k_ref) capped at 1 for the bf16 or fp8 class; 1 when not measured or k unknown.
  double k_shape(double k, bool fp8_rate) const;
};

// The built-in calibration measured on `gpu_name`, or nullptr when none was measured.
const Calibration* builtin_calibration(std::string_view gpu_name);
// The reference calibration whose curve shapes other GPUs borrow (the H200 measurement).
const Calibration& reference_calibration();
// Parses a calibration file (format in docs/compute-model.md). Throws InputError naming
// `source` and the JSON pointer of a bad field.
Calibration parse_calibration(const std::string& json_text, const std::string& source);

// One point of a probe measurement (tools/measure/probe_compute.py output), as the kernel the
// model prices and the time the GPU took. Used to check a calibration against its own data.
struct MeasuredKernel {
  // "copy", "gemv", "gemm", "gemm_square", "attn_decode"; from tools/probe's C++ probe also
  // "tp_gemm", "grouped_gemm" (GroupedGemm, `groups` experts) and "mla_decode" (Attention)
  std::string op;
  std::string variant;     // "bf16", "fp8_tensor", "fp8_block" (C++ probe); else the dtype
  std::string label;       // layer and model the shape comes from, when the file says
  KernelCost kernel;       // copy: Elementwise; gemv/gemm: Gemm; attn_decode: Attention
  double measured_us = 0;  // median over CUDA-graph replays
};
// Parses the points of a probe result (failed points and floor probes are skipped). Throws
// InputError naming `source` and the JSON pointer of a malformed point.
std::vector<MeasuredKernel> parse_probe_results(const std::string& json_text,
                                                const std::string& source);

// Which kernel runs GEMMs with block-scaled FP8 weights: priced like per-tensor FP8 (cuBLASLt,
// DeepGEMM-class kernels), or at the measured rate of a Triton block-FP8 kernel (SGLang/vLLM
// `w8a8_block_fp8_matmul` and the fused-MoE Triton path). Auto (the engine default, SGLang
// 0.5.x on sm90): dense GEMMs through DeepGEMM (per-tensor rate), fused-MoE experts
// (KernelCost::fused_moe) through Triton (docs/compute-model.md, "Which block-FP8 kernel runs");
// the dense ones also pay DeepGEMM's serial k-loop at few rows (Calibration::deepgemm_*).
enum class Fp8BlockGemm { Cublas, Triton, Auto };
std::string_view to_string(Fp8BlockGemm g);                // "cublas", "triton", "auto"
Fp8BlockGemm parse_fp8_block_gemm(std::string_view text);  // UnknownNameError otherwise

class ComputeModel {
 public:
  // Uses the GPU's own calibration when one is built in, else the reference curve shapes
  // scaled by the GPU's datasheet peaks. Throws InputError when the spec has no HBM bandwidth
  // or no bf16 rate.
  static ComputeModel for_gpu(const GpuSpec& gpu);
  static ComputeModel from_calibration(const GpuSpec& gpu, const Calibration& cal, bool measured);

  // Replaces the peak memory bandwidth (e.g. a CPU host at 64 GB/s); curve shapes are kept.
  ComputeModel with_memory_bandwidth(double GBps) const;
  // Block-scaled FP8 GEMMs at the Triton rate (Calibration::fp8_block_triton_ratio, or the
  // reference calibration's when this GPU's has none); Cublas: as per-tensor FP8 (default).
  ComputeModel with_fp8_block_gemm(Fp8BlockGemm g) const;

  double kernel_time_us(const KernelCost& k) const noexcept;
  KernelTiming explain(const KernelCost& k) const noexcept;

  // Achieved HBM bandwidth (GB/s) of a kernel of family `kind` moving `bytes`.
  double achieved_hbm_GBps(double bytes, KernelKind kind = KernelKind::Elementwise) const noexcept;
  // Achieved tensor-core rate (TFLOPS) of an m×n×k product (2mnk flops) in `dtype`.
  double achieved_TFLOPS(Dtype dtype, double m, double n, double k) const noexcept;
  // Datasheet peak used for `dtype` math: fp8/int8/fp4 fall back to bf16 on GPUs without them
  // (weights are dequantized), fp32 runs as TF32 = bf16 ÷ 2.
  double peak_TFLOPS(Dtype dtype) const noexcept;

  double floor_us() const noexcept { return cal_.floor_us; }
  // DeepGEMM's serial k-loop for a GEMM of depth k, less this GPU's floor (0: not measured).
  double deepgemm_k_loop_us(double k) const;
  // Eager launch cost (host-side, so GPUs without their own measurement take the reference's).
  double eager_launch_us() const;
  // GPU-side, so no fallback: a calibration that does not state them has no such terms (GPUs
  // priced from the reference's curves take its values with them).
  double graph_gap_us() const noexcept { return cal_.graph_gap_us; }
  double small_kernel_us() const noexcept { return cal_.small_kernel_us; }
  double peak_hbm_GBps() const noexcept { return hbm_GBps_; }
  bool measured() const noexcept { return measured_; }  // curves measured on this GPU
  bool bandwidth_overridden() const noexcept { return bw_override_; }
  const GpuSpec& gpu() const noexcept { return gpu_; }
  const Calibration& calibration() const noexcept { return cal_; }
  // One line saying where the curves come from ("measured on H200 ..." / "scaled from ...").
  std::string provenance() const;

 private:
  GpuSpec gpu_;
  Calibration cal_;
  double hbm_GBps_ = 0;
  bool measured_ = false;
  bool bw_override_ = false;
  double block_fp8_ratio_ = 1;            // applied to block-scaled FP8 GEMMs' tensor rate
  double fused_moe_block_fp8_ratio_ = 1;  // the same for fused-MoE expert GEMMs
  bool deepgemm_k_loop_ = false;          // Auto: dense block-FP8 GEMMs pay DeepGEMM's k-loop
  bool runs_on_deepgemm(const KernelCost& k) const noexcept;
};

// Marks every weight format `gpu` has no tensor cores for (FP8 before Ada/Hopper, FP4 before
// Blackwell) weight-only: the GEMM reads the narrow weights and multiplies in bf16 (vLLM's
// Marlin W8A16/W4A16 path), and the MoE dispatch of such experts stays 16-bit. Returns one note
// per format changed, for the output. Throws InputError below sm80 (no such kernels).
std::vector<std::string> fit_formats_to_gpu(ModelSpec& m, const GpuSpec& gpu);

// ---- Roofline of one decode step on one GPU (`topoplan model roofline`) ----------------------

// The seed's naive bound: every active weight byte streamed once at the peak bandwidth,
// bytes ÷ (GBps · 1e3) µs. 37e9 B at 4000 GB/s = 9250 µs.
double naive_bound_us(double active_weight_bytes, double GBps);

// Kernels of one name summed over the step (e.g. "experts" over the 58 MoE layers).
struct KernelGroup {
  std::string name;
  KernelKind kind = KernelKind::Gemm;
  double count = 0;  // launches per step
  double flops = 0, bytes = 0, weight_bytes = 0, kv_bytes = 0;
  double time_us = 0;           // sum of ComputeModel::kernel_time_us
  double floor_us = 0;          // part of time_us that is the per-kernel floor
  double ideal_us = 0;          // bytes ÷ peak bandwidth (what the naive bound charges per byte)
  double memory_us = 0;         // sum of memory terms (bytes ÷ achieved bandwidth)
  double compute_us = 0;        // sum of compute terms (flops ÷ achieved FLOPS)
  Bound bound = Bound::Memory;  // bound of the largest share of this group's time
};

// refined_us − naive_us split into causes; the terms sum to the difference exactly.
struct RooflineGap {
  double weights_us = 0;  // (weight bytes read − active weight bytes) ÷ peak: MoE experts touched
                          // by a batch, embedding rows instead of the whole table
  double kv_us = 0;           // KV cache bytes ÷ peak
  double activations_us = 0;  // other bytes (activations, outputs) ÷ peak
  double efficiency_us = 0;   // memory-bound kernels below peak bandwidth (small kernels)
  double compute_us = 0;      // kernels whose tensor-core time exceeds their memory time
  double floors_us = 0;       // per-kernel floors × launches
};

struct RooflineResult {
  double naive_us = 0;                // naive_bound_us(active weight bytes ÷ tp, peak)
  double refined_us = 0;              // sum of kernel times of one decode step
  double active_weight_bytes = 0;     // whole model, per token
  double weight_bytes_per_gpu = 0;    // held by one GPU of the shard
  double kv_cache_bytes_per_gpu = 0;  // batch × context × KV bytes per token on one GPU
  double memory_bytes = 0;            // GPU capacity (0 with a bandwidth override: unknown)
  bool fits = true;                   // weights + KV cache fit the GPU memory
  double kernels_per_step = 0;
  double flops = 0, bytes = 0, weight_bytes_read = 0, kv_bytes_read = 0;
  RooflineGap gap;
  std::vector<KernelGroup> groups;  // sorted by time, largest first
};

// One decode step (w.phase must be Decode) of `m` on one GPU of shard `s`: every layer's
// kernels from layer_kernels()/head_kernels(), each priced by `cm`.
RooflineResult decode_roofline(const ModelSpec& m, const ComputeModel& cm, const Workload& w,
                               const Shard& s);
// The request of `model roofline`, checked by field: the shared batch and context rules
// (model.hpp) and tp dividing the attention heads. Throws FieldError.
void validate_roofline(const ModelSpec& m, const Workload& w, const Shard& s);

}  // namespace topoplan
