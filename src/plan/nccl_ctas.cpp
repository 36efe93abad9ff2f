// NCCL's runtime channel counts (see nccl_ctas.hpp). Source: NVIDIA/nccl 5067397c,
// src/graph/search.cc (speed arrays, the ring search, ncclTopoDupChannels), src/graph/topo.h
// (NVLink speeds), src/graph/connect.cc (ncclTopoPostset).
#include "plan/nccl_ctas.hpp"

#include <algorithm>
#include <span>

namespace topoplan {

namespace {

// Per-channel speeds (GB/s) the graph search tries, highest first: sm90SpeedArrayIntra/Inter,
// sm100SpeedArrayIntra/Inter and, before Hopper, speedArrayIntra/Inter (the tails below
// 1.2 GB/s, never reached here, left out).
std::span<const double> speeds(int sm_version, bool across_servers) {
  static constexpr double kIntra[] = {40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3};
  static constexpr double kIntra90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
  static constexpr double kIntra100[] = {90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18};
  static constexpr double kInter[] = {48, 30, 28, 24, 20, 18, 15,  12, 10,
                                      9,  7,  6,  5,  4,  3,  2.4, 1.2};
  static constexpr double kInter90[] = {48,   45, 42, 40, 30, 24,  22, 20,
                                        17.5, 15, 12, 6,  3,  2.4, 1.2};
  static constexpr double kInter100[] = {96, 86, 80,   48, 45.1, 42, 40, 30,  24,
                                         22, 20, 17.5, 15, 12,   6,  3,  2.4, 1.2};
  if (across_servers)
    return sm_version >= 100  ? std::span<const double>(kInter100)
           : sm_version >= 90 ? std::span<const double>(kInter90)
                              : std::span<const double>(kInter);
  return sm_version >= 100  ? std::span<const double>(kIntra100)
         : sm_version >= 90 ? std::span<const double>(kIntra90)
                            : std::span<const double>(kIntra);
}

// From the graph's `n` channels at `bw` GB/s each to the runtime channels.
// ncclTopoDupChannels doubles them (halving bw, at most 32 for rings) unless bw is under 25
// GB/s, or the GPU is newer than sm80 with bw under 50 and more than 4 channels;
// ncclTopoPostset doubles them again (at most 64), and once more on sm90+ across servers when
// the ring's bw exceeds 45 GB/s and fewer than 16 remain ("4 compute channels per search
// channel").
int runtime_channels(int n, double bw, int sm_version, bool across_servers) {
  if (bw >= 25 && !(sm_version > 80 && bw < 50 && n > 4)) {
    n = std::min(2 * n, 32);
    bw /= 2;
  }
  n = std::min(2 * n, 64);
  if (across_servers && sm_version >= 90 && bw > 45 && n < 16) n *= 2;
  return n;
}

}  // namespace

int nccl_ring_ctas(int graph_channels, double nic_GBps, int sm_version) {
  if (graph_channels <= 0) return 0;
  // The inter-node per-channel bandwidth: the first speed at or below the NIC's rate.
  double bw = 0;
  for (double v : speeds(sm_version, true))
    if (v <= nic_GBps) {
      bw = v;
      break;
    }
  return runtime_channels(graph_channels, bw, sm_version, true);
}

int nccl_intra_ring_ctas(int nvlinks, int sm_version) {
  if (nvlinks <= 0) return 0;
  // NCCL counts each NVLink at SM80_NVLINK_BW 20.0, SM90 20.6, SM100 40.1, SM86 12.0 and SM60
  // 18.0 GB/s (topo.h).
  const double per_link = sm_version >= 100  ? 40.1
                          : sm_version >= 90 ? 20.6
                          : sm_version == 86 ? 12.0
                          : sm_version >= 70 ? 20.0
                                             : 18.0;
  const double total = nvlinks * per_link;
  // The search starts at the first speed at or below the GPU's NVLink total, places as many
  // channels as fit (32 at most), keeps a lower speed only when channels × speed grows, and
  // stops lowering once the graph fills the total or the next speed is at most 0.49 of the best.
  int n = 0;
  double bw = 0;
  for (double v : speeds(sm_version, false)) {
    if (v > total) continue;
    if (n > 0 && (v / bw <= 0.49 || n * bw >= total)) break;
    const int fit = std::min(32, static_cast<int>(total / v));
    if (fit * v > n * bw) n = fit, bw = v;
  }
  return n == 0 ? 0 : runtime_channels(n, bw, sm_version, false);
}

int nccl_nvls_ctas(int sm_version, bool across_servers) {
  return sm_version >= 100 ? (across_servers ? 32 : 24) : 16;
}

}  // namespace topoplan
