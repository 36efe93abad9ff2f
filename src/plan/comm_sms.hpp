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

// CTAs of a NCCL ring (or tree) collective inside one server of `nvlinks` NVLinks per GPU to
// NVSwitches, from the same source: NCCL counts each NVLink at SM80_NVLINK_BW 20.0, SM90 20.6,
// SM100 40.1 GB/s (graph/topo.h); the ring search (search.cc) starts at the first speed of the
// intra array at or below the GPU's NVLink total, places as many channels as fit (32 at most),
// keeps a lower speed only when channels × speed grows, and stops lowering once the next speed
// is at most 0.49 of the best one's; then ncclTopoDupChannels and ncclTopoPostset as above.
// HGX H100 (18 NVLinks, 370.8 GB/s): 6 channels at 60, 12 at 30, 24 CTAs (the graph NCCL logs
// in NVIDIA/nccl#1197: "nChannels 12, bw 30/30"); A100 (12 × 20): 24; B200 (18 × 40.1): 32;
// H800 (8 × 20.6): 4 at 40, 8, 16.
inline int nccl_intra_ring_ctas(int nvlinks, int sm_version) {
  static constexpr double kOlder[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
  static constexpr double kSm90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
  static constexpr double kSm100[] = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
  if (nvlinks <= 0) return 0;
  const double per_link = sm_version >= 100  ? 40.1
                          : sm_version >= 90 ? 20.6
                          : sm_version == 86 ? 12.0
                          : sm_version >= 70 ? 20.0
                                             : 18.0;
  const double total = nvlinks * per_link;
  const std::span<const double> speeds = sm_version >= 100  ? std::span<const double>(kSm100)
                                         : sm_version >= 90 ? std::span<const double>(kSm90)
                                                            : std::span<const double>(kOlder);
  int n = 0;
  double bw = 0;
  for (double v : speeds) {
    if (v > total) continue;
    if (n > 0 && (v / bw <= 0.49 || n * bw >= total)) break;
    const int fit = std::min(32, static_cast<int>(total / v));
    if (fit * v > n * bw) n = fit, bw = v;
  }
  if (n == 0) return 0;
  if (bw >= 25 && !(sm_version > 80 && bw < 50 && n > 4)) {  // ncclTopoDupChannels
    n = std::min(2 * n, 32);
    bw /= 2;
  }
  return std::min(2 * n, 64);  // ncclTopoPostset
}

// CTAs of a NCCL NVLS (NVLink SHARP) collective: NVLS_NCHANNELS_SM90 16; on sm100
// NVLS_NCHANNELS_SM100 32 across servers, NVLS_NCHANNELS_SM100_NVL 24 inside one
// (transport/nvls.cc, NVIDIA/nccl 5067397c).
inline int nccl_nvls_ctas(int sm_version, bool across_servers) {
  return sm_version >= 100 ? (across_servers ? 32 : 24) : 16;
}

}  // namespace topoplan
