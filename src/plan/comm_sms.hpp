// SMs that communication kernels hold while they overlap compute, and what that costs the
// compute: shared by training (DP/ZeRO collectives, DualPipe, --ep-overlap; train_step.cpp) and
// serving's two-batch overlap (step_time.cpp).
#pragma once

#include <algorithm>
#include <span>

namespace topoplan {

// DeepSeek-V3 §3.2.2 gives 20 of the H800's 132 SMs to communication; DeepEP's Buffer.num_sms
// defaults to the same 20 for its normal (high-throughput) kernels. kH800Sms stands in for a
// GPU whose catalog entry has no SM count.
inline constexpr double kDualPipeCommSms = 20, kH800Sms = 132;

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

// CTAs, one SM each, that a NCCL ring collective across servers runs on, from the channels its
// graph search finds (one per NIC the ring uses in a server, at the per-channel bandwidth
// below): NVIDIA/nccl 5067397c (2.30.7). search.cc: the inter-node per-channel bandwidth is the
// first entry of sm90SpeedArrayInter {48, 45, 42, 40, 30, ...} (speedArrayInter {48, 30, 28,
// 24, ...} before Hopper, sm100SpeedArrayInter {96, 86, 80, 48, ...} from Blackwell) at or
// below the NIC's rate; ncclTopoDupChannels doubles the channels
// (halving their bandwidth, at most 32 for rings) unless that bandwidth is under 25 GB/s, or the
// GPU is newer than sm80 with a bandwidth under 50 and more than 4 channels. connect.cc
// ncclTopoPostset: the runtime channels are twice the graph's (at most 64), and twice again on
// sm90+ across servers when the ring's bandwidth exceeds 45 GB/s and fewer than 16 remain
// ("4 compute channels per search channel"). NCCL launches one CTA per channel for a large
// collective. 8 × 400G NICs on Hopper: 8 channels at 48 GB/s, 16 CTAs; one NIC: 4.
inline int nccl_ring_ctas(int graph_channels, double nic_GBps, int sm_version) {
  static constexpr double kSm90[] = {48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2};
  static constexpr double kOlder[] = {48, 30, 28, 24, 20, 18, 15,  12, 10,
                                      9,  7,  6,  5,  4,  3,  2.4, 1.2};
  static constexpr double kSm100[] = {96, 86, 80,   48, 45.1, 42, 40, 30,  24,
                                      22, 20, 17.5, 15, 12,   6,  3,  2.4, 1.2};
  if (graph_channels <= 0) return 0;
  const bool hopper = sm_version >= 90;
  const std::span<const double> speeds = sm_version >= 100 ? std::span<const double>(kSm100)
                                         : hopper          ? std::span<const double>(kSm90)
                                                           : std::span<const double>(kOlder);
  double bw = 0;
  for (double v : speeds)
    if (v <= nic_GBps) {
      bw = v;
      break;
    }
  int n = graph_channels;
  if (bw >= 25 && !(sm_version > 80 && bw < 50 && n > 4)) {  // ncclTopoDupChannels
    n = std::min(2 * n, 32);
    bw /= 2;
  }
  n = std::min(2 * n, 64);                     // ncclTopoPostset
  if (hopper && bw > 45 && n < 16) n = 2 * n;  // sm90+, across servers
  return n;
}

}  // namespace topoplan
