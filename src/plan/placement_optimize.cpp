// The Optimized placement: locality order inside servers, candidate assignments, and the
// communication cost proxy that ranks them.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "plan/placement_internal.hpp"

namespace topoplan {

namespace {

// Reference message for the proxy: 1 MiB is a decode step's TP all-reduce of 64 tokens × 7168
// hidden × BF16 (DeepSeek-V3 hidden size), the regime the planner ranks most often.
constexpr double kRefBytes = 1 << 20;
// How often each kind communicates in one forward step, per layer (StepCounts): TP all-reduces
// twice per layer (attention out-projection, MLP down-projection; Megatron-LM), EP dispatch +
// combine once each per MoE layer, PP one send per stage boundary per step; DP only for
// training gradient sync (amortised over a step).
constexpr double kTpPerLayer = 2.0, kEpPerMoeLayer = 2.0, kWeightDp = 0.01;
// Tie-breaker (µs per ring hop) for traffic that leaves its rail: in a rail-optimized fabric it
// climbs to a spine (or NCCL PXN relays it over NVLink first), so same-rail neighbours win ties.
constexpr double kCrossRailPenaltyUs = 0.5;

struct HopStats {
  double bw_GBps = std::numeric_limits<double>::infinity();
  double alpha_us = 0;  // worst hop latency (+ rail penalty)
};

HopStats hop_stats(const Router& router, const std::vector<std::pair<int, int>>& pairs) {
  const Topology& topo = router.topology();
  HopStats h;
  for (auto [a, b] : pairs) {
    const Path& p = router.path(a, b);
    double alpha = p.latency_us;
    if (topo.device(a).node != topo.device(b).node) {
      const int na = router.nic_of_gpu(a), nb = router.nic_of_gpu(b);
      if (na >= 0 && nb >= 0 && topo.device(na).local_index != topo.device(nb).local_index)
        alpha += kCrossRailPenaltyUs;
    }
    h.bw_GBps = std::min(h.bw_GBps, p.cls == PathClass::DIS ? 0.0 : p.bw_GBps);
    h.alpha_us = std::max(h.alpha_us, alpha);
  }
  return h;
}

std::vector<std::pair<int, int>> ring_pairs(const std::vector<int>& g, bool wrap) {
  std::vector<std::pair<int, int>> out;
  const std::size_t n = g.size();
  for (std::size_t i = 0; i + 1 < n; ++i) out.emplace_back(g[i], g[i + 1]);
  if (wrap && n > 2) out.emplace_back(g[n - 1], g[0]);
  return out;
}

std::vector<std::pair<int, int>> all_pairs(const std::vector<int>& g) {
  std::vector<std::pair<int, int>> out;
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::size_t j = 0; j < g.size(); ++j)
      if (i != j) out.emplace_back(g[i], g[j]);
  return out;
}

// Closed-form time of the slowest group of one kind for the reference message.
double kind_time_us(const Router& router, const std::vector<std::vector<int>>& groups, CollOp op,
                    bool pairs_all) {
  double worst = 0;
  for (const auto& g : groups) {
    if (g.size() < 2) continue;
    const HopStats h =
        hop_stats(router, pairs_all ? all_pairs(g) : ring_pairs(g, op != CollOp::SendRecv));
    if (h.bw_GBps <= 0) return 1e12;  // unreachable member: never choose this
    const int n = static_cast<int>(g.size());
    double t = 0;
    if (op == CollOp::SendRecv)  // a pipelined microbatch waits for the slowest boundary
      t = kRefBytes / (h.bw_GBps * 1e3) + h.alpha_us;
    else  // all-to-all: n−1 exchanges like an all-gather on the narrowest pair
      t = ring_closed_form_us(op == CollOp::AllToAll ? CollOp::AllGather : op, n, kRefBytes,
                              h.bw_GBps, h.alpha_us);
    worst = std::max(worst, t);
  }
  return worst;
}

}  // namespace

double communication_proxy(const Router& router, const Placement& p, const StepCounts& step) {
  const double layers = std::max(1, step.layers);
  const double ep_weight = kEpPerMoeLayer * step.moe_layers / layers;
  const double pp_weight = (p.strategy.pp - 1) / layers;  // boundaries crossed per layer
  return kTpPerLayer * kind_time_us(router, p.tp_groups, CollOp::AllReduce, false) +
         ep_weight * kind_time_us(router, p.ep_groups, CollOp::AllToAll, true) +
         pp_weight * kind_time_us(router, p.pp_chains, CollOp::SendRecv, false) +
         kWeightDp * kind_time_us(router, p.dp_groups, CollOp::AllReduce, false);
}

namespace placement_detail {

namespace {

// Nearest-neighbour chain from the lowest local index: the next GPU is the closest to the last
// one by (path class, −bandwidth, hops); ties keep local-index order.
// True when every GPU reaches the first over the same NVLink class and bandwidth (an NVSwitch
// server or NVL72 rack): any order is as good, and this check costs n paths instead of n².
bool uniform_nvlink(const Router& router, const std::vector<int>& gpus) {
  for (std::size_t i = 1; i < gpus.size(); ++i) {
    const Path& p = router.path(gpus[0], gpus[i]);
    const Path& q = router.path(gpus[0], gpus[1]);
    if (p.cls > PathClass::NVB || p.cls != q.cls || p.bw_GBps != q.bw_GBps) return false;
  }
  return true;
}

std::vector<int> chain_order(const Router& router, std::vector<int> gpus) {
  std::vector<int> out;
  if (gpus.empty() || uniform_nvlink(router, gpus)) return gpus;
  out.push_back(gpus.front());
  gpus.erase(gpus.begin());
  while (!gpus.empty()) {
    auto key = [&](int g) {
      const Path& p = router.path(out.back(), g);
      return std::make_tuple(static_cast<int>(p.cls), -p.bw_GBps, p.hops.size());
    };
    auto best =
        std::min_element(gpus.begin(), gpus.end(), [&](int a, int b) { return key(a) < key(b); });
    out.push_back(*best);
    gpus.erase(best);
  }
  return out;
}

}  // namespace

Locality compute_locality(const Router& router) {
  const Topology& topo = router.topology();
  Locality loc;
  loc.nodes.resize(static_cast<std::size_t>(std::max(topo.node_count(), 1)));
  for (int g : topo.gpus())
    loc.nodes[static_cast<std::size_t>(std::max(topo.device(g).node, 0))].push_back(g);
  // Generated clusters repeat one server: order node 0, reuse its local-index sequence.
  std::vector<int> template_locals;
  for (std::size_t n = 0; n < loc.nodes.size(); ++n) {
    auto& gpus = loc.nodes[n];
    if (n > 0 && topo.fabric.nodes > 1 && gpus.size() == template_locals.size()) {
      std::map<int, int> by_local;
      for (int g : gpus) by_local[topo.device(g).local_index] = g;
      std::vector<int> mapped;
      for (int l : template_locals)
        if (auto it = by_local.find(l); it != by_local.end()) mapped.push_back(it->second);
      if (mapped.size() == gpus.size()) {
        gpus = std::move(mapped);
        continue;
      }
    }
    gpus = chain_order(router, gpus);
    if (n == 0)
      for (int g : gpus) template_locals.push_back(topo.device(g).local_index);
  }
  return loc;
}

namespace {

using Blocks = std::vector<std::vector<int>>;

Blocks node_blocks(const std::vector<int>& gpus, int tp) {
  Blocks out;
  for (std::size_t i = 0; i + static_cast<std::size_t>(tp) <= gpus.size();
       i += static_cast<std::size_t>(tp))
    out.emplace_back(gpus.begin() + static_cast<long>(i), gpus.begin() + static_cast<long>(i) + tp);
  return out;
}

// Device per rank (TpPpDp coordinates) from TP blocks listed in (dp, pp) order.
std::vector<int> from_blocks(const Blocks& blocks, const Strategy& s) {
  std::vector<int> dev;
  for (int r = 0; r < s.gpus(); ++r)
    dev.push_back(blocks[static_cast<std::size_t>(r / s.tp)][static_cast<std::size_t>(r % s.tp)]);
  return dev;
}

// Whole pipelines inside one server each: no stage boundary crosses the network.
std::optional<std::vector<int>> packed(const Locality& loc, const Strategy& s) {
  Blocks chosen;
  for (const auto& node : loc.nodes) {
    Blocks b = node_blocks(node, s.tp);
    const std::size_t chains = b.size() / static_cast<std::size_t>(s.pp);
    for (std::size_t i = 0; i < chains * static_cast<std::size_t>(s.pp); ++i)
      chosen.push_back(b[i]);
    if (chosen.size() >= static_cast<std::size_t>(s.pp * s.dp)) return from_blocks(chosen, s);
  }
  return std::nullopt;
}

// Whole TP blocks, servers visited forward/backward alternately so that a stage boundary that
// crosses servers joins blocks in the same slot (same local GPUs, same rails).
std::optional<std::vector<int>> snake(const Locality& loc, const Strategy& s) {
  Blocks chosen;
  bool forward = true;
  for (const auto& node : loc.nodes) {
    Blocks b = node_blocks(node, s.tp);
    if (b.empty()) continue;
    if (!forward) std::reverse(b.begin(), b.end());
    forward = !forward;
    chosen.insert(chosen.end(), b.begin(), b.end());
    if (chosen.size() >= static_cast<std::size_t>(s.pp * s.dp)) return from_blocks(chosen, s);
  }
  return std::nullopt;
}

// TP wider than a server: consecutive GPUs in locality order, servers in order.
std::vector<int> spanning(const Locality& loc, const Strategy& s) {
  std::vector<int> all;
  for (const auto& node : loc.nodes) all.insert(all.end(), node.begin(), node.end());
  all.resize(static_cast<std::size_t>(s.gpus()));
  return all;
}

}  // namespace

Placement place_optimized(const Router& router, const Locality& loc, const Strategy& s,
                          const StepCounts& step) {
  const auto& gpus = router.topology().gpus();
  std::vector<std::vector<int>> candidates;
  candidates.emplace_back(gpus.begin(), gpus.begin() + s.gpus());  // canonical wins ties
  if (auto c = packed(loc, s)) candidates.push_back(std::move(*c));
  if (auto c = snake(loc, s))
    candidates.push_back(std::move(*c));
  else
    candidates.push_back(spanning(loc, s));
  Placement best;
  double best_cost = std::numeric_limits<double>::infinity();
  for (const auto& devices : candidates) {
    Placement p = assemble(router, s, PlacementOrder::Optimized, devices);
    const double c = communication_proxy(router, p, step);
    if (c < best_cost * (1 - 1e-9)) {
      best_cost = c;
      best = std::move(p);
    }
  }
  return best;
}

}  // namespace placement_detail

}  // namespace topoplan
