// NCCL's enable rules, latency model and protocol bandwidth refinements (tuning.cc), applied to
// the bandwidth our link-load engine finds. References: shared/reference/nccl-model.md §3.
#pragma once

#include <string>

#include "comm/pattern.hpp"

namespace topoplan::comm {

// Empty when `algo` can run `op` on the group; otherwise why not (for --algo errors).
std::string algorithm_unavailable(Algorithm algo, CollOp op, const GroupInfo& g,
                                  const CollectiveOptions& options, const NcclTuning& tuning);
bool protocol_enabled(Algorithm algo, Protocol proto, const GroupInfo& g);

// Latency in µs (NCCL baseLat + hwLat per step, §3.4) plus the physical latency of the network
// path on each inter-server step (NCCL adds the net device's latency the same way).
double latency_us(Algorithm algo, Protocol proto, CollOp op, const GroupInfo& g, double size_bytes,
                  double inter_latency_us, const NcclTuning& tuning);

// Algorithm bandwidth under `proto` given the Simple-protocol bandwidth from the link loads
// (LL ½ capped by llMaxBw, LL128 0.92, tree refinements).
double protocol_algbw_GBps(Algorithm algo, Protocol proto, CollOp op, const GroupInfo& g,
                           double simple_algbw_GBps, const NcclTuning& tuning);

// p2p (send/recv, all-to-all) protocol: LL up to NCCL_P2P_LL_THRESHOLD bytes per peer.
Protocol p2p_protocol(double bytes_per_peer, const NcclTuning& tuning);

}  // namespace topoplan::comm
