// Single-GPU compute model: prices one kernel (KernelCost from the model layer) on one GPU.
//
//   time_us = floor_us + max(flops ÷ achieved FLOPS, bytes ÷ achieved HBM bandwidth)
//
// The achieved rates are not constants. They come from efficiency curves measured on a real GPU
// (tools/probe/, topologies/calibration/, docs/compute-model.md):
//   - HBM: achieved fraction of peak as a function of the bytes one kernel moves (small kernels
//     cannot fill the memory pipes), per kernel family (GEMV/GEMM weights, streaming copies,
//     decode attention), piecewise-linear in log(bytes) between measured points;
//   - tensor cores: achieved fraction of peak as a function of the GEMM shape: tile padding of
//     small m, wave quantization over the SMs, and a size curve in log(flops);
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

// A curve y(x), piecewise linear in log(x) between points sorted by x, flat beyond the ends.
struct LogCurve {
  std::vector<double> log_x;  // natural log of x, strictly increasing
  std::vector<double> y;
  double at(double x) const noexcept;
};

// Fitted efficiency tables of one measured GPU (topologies/calibration/<gpu>.json).
struct Calibration {
  std::string gpu;             // catalog name the measurement was made on ("H200")
  std::string source;          // file, date, hardware and command of the measurement
  double ref_hbm_GBps = 0;     // datasheet peaks the fractions are relative to
  double ref_bf16_TFLOPS = 0;
  double ref_fp8_TFLOPS = 0;
  double floor_us = 0;         // per-kernel GPU-side floor (CUDA graph)
  LogCurve hbm_gemm;           // achieved/peak HBM vs weight+activation bytes of a GEMM/GEMV
  LogCurve hbm_stream;         // achieved/peak HBM vs bytes of a streaming kernel (copy, norm)
  LogCurve hbm_attention;      // achieved/peak HBM vs KV bytes of a decode attention kernel
  LogCurve tc_bf16;            // achieved/peak tensor FLOPS vs flops of one GEMM (bf16/fp16)
  LogCurve tc_fp8;             // same for fp8 (also used for int8/fp4 math)
  double tile_m = 64;          // tensor-core tile rows: m is padded up to a multiple of this
  int sm_count = 0;            // for wave quantization; 0 disables it
  double tile_mn = 0;          // output elements per CTA tile (e.g. 128×256) for waves
};

// The built-in calibration measured on `gpu_name`, or nullptr when none was measured.
const Calibration* builtin_calibration(std::string_view gpu_name);
// The reference calibration whose curve shapes other GPUs borrow (the H200 measurement).
const Calibration& reference_calibration();
// Parses a calibration file (format in docs/compute-model.md). Throws InputError naming
// `source` and the JSON pointer of a bad field.
Calibration parse_calibration(const std::string& json_text, const std::string& source);

class ComputeModel {
 public:
  // Uses the GPU's own calibration when one is built in, else the reference curve shapes
  // scaled by the GPU's datasheet peaks. Throws InputError when the spec has no HBM bandwidth
  // or no bf16 rate.
  static ComputeModel for_gpu(const GpuSpec& gpu);
  static ComputeModel from_calibration(const GpuSpec& gpu, const Calibration& cal, bool measured);

  // Replaces the peak memory bandwidth (e.g. a CPU host at 64 GB/s); curve shapes are kept.
  ComputeModel with_memory_bandwidth(double GBps) const;

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
  double peak_hbm_GBps() const noexcept { return hbm_GBps_; }
  bool measured() const noexcept { return measured_; }           // curves measured on this GPU
  bool bandwidth_overridden() const noexcept { return bw_override_; }
  const std::string& gpu_name() const noexcept { return gpu_.name; }
  const Calibration& calibration() const noexcept { return cal_; }
  // One line saying where the curves come from ("measured on H200 ..." / "scaled from ...").
  std::string provenance() const;

 private:
  GpuSpec gpu_;
  Calibration cal_;
  double hbm_GBps_ = 0;
  bool measured_ = false;
  bool bw_override_ = false;
};

}  // namespace topoplan
