// SMs that communication kernels hold while they overlap compute, and what that costs the
// compute: shared by training (DP/ZeRO collectives, DualPipe, --ep-overlap; train_step.cpp) and
// serving's two-batch overlap (step_time.cpp).
#pragma once

#include <algorithm>

namespace topoplan {

// DeepSeek-V3 §3.2.2 gives 20 of the H800's 132 SMs to communication; DeepEP's Buffer.num_sms
// defaults to the same 20 for its normal (high-throughput) kernels. kH800Sms stands in for a
// GPU whose catalog entry has no SM count.
inline constexpr double kDualPipeCommSms = 20, kH800Sms = 132;

// SMs TE's userbuffers comm+GEMM overlap (Megatron --tp-comm-overlap) gives each overlap kernel
// unless a recipe passes its own config: Transformer Engine's initialize_ub get_default_config
// (transformer_engine/pytorch/module/base.py) sets num_sm = 1 for the ring_exchange method (the
// all-gather before qkv/fc1 fprop and before proj/fc2 dgrad, moved by copy engines) and 16 for
// "pipeline" (the reduce-scatter after proj/fc2 fprop, the GEMM launched on the SMs left) and
// "bulk" (the gather of the input beside qkv/fc1 dgrad, the reduce-scatter of their dgrad beside
// their wgrad). Megatron-Bridge's H100 / B200 presets (src/megatron/bridge/training/
// comm_overlap.py) use 8 to 32 for these and ring_exchange for proj/fc2 fprop in every FP8 one.
inline constexpr double kUbRingSms = 1, kUbPipelineSms = 16, kUbBulkSms = 16;

// Extra compute time per unit of compute time that runs beside a communication kernel holding
// `held` of the GPU's `sms` SMs (one per NCCL channel): the compute keeps sms − held SMs, so it
// lasts sms / (sms − held) as long, held / (sms − held) more.
// Measured on one H100 SXM (2026-12-06; tools/measure/probe_overlap.py, raw results in
// topologies/calibration/overlap-h100-2026-12-06.json, docs/training.md "SMs held by overlapped
// communication"): a stand-in channel kernel (k blocks of 640 threads with 120 KiB of shared
// memory, one per SM, as NCCL's) slowed bf16 training GEMMs at four Llama-70B / 13B shapes by
// 1.21 / 1.33 on average at k = 24 / 32 holding its SMs without traffic, where sms / (sms − k)
// gives 1.22 / 1.32, and by 1.10 / 1.21 at k = 8 / 16 (rule: 1.065 / 1.138; the excess depends
// on where the held SMs land and is not charged). The former charge, held / sms, was 1.15–2.1×
// short of every measured point. HBM traffic added +0.55% of GEMM time per 100 GB/s (both
// directions) on top, not charged: the collectives priced with this rule are network-bound
// (≤ 50 GB/s per NIC, ≤ 0.6%). Held SMs are capped at half the GPU's (a factor of 1).
inline double held_sm_slowdown(double held, double sms) {
  const double k = std::clamp(held, 0.0, sms / 2);
  return k / (sms - k);
}

}  // namespace topoplan
