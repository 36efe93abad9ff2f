// Group summaries (worst path class, bottleneck link) and the good-vs-bad placement comparison.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_set>

#include "topoplan/error.hpp"
#include "topoplan/placement.hpp"

namespace topoplan {

namespace {

// "nvlink4 ×18" for a bundle, "ib-ndr400" for a single link.
std::string link_label(const Link& l) {
  return l.count > 1 ? l.type + " \u00d7" + std::to_string(l.count) : l.type.str();
}

// The narrowest hop of a path (first one on ties); nullopt for a path with no hops.
std::optional<Link> narrowest_link(const Topology& topo, const Path& p) {
  std::optional<Link> best;
  for (DirLink d : p.hops) {
    Link l = topo.link(link_of(d));
    if (!best || l.bw_GBps < best->bw_GBps) best = l;
  }
  return best;
}

// Pairs whose paths are alike hop for hop (same classes, bandwidths and link types), by the
// Router's own rules: inside one server of servers wired alike, paths are functions of the two
// slots; between two such servers on a uniform fabric, of the slots and the tiers the route
// climbs (Router::servers_alike, fabric_climb). seen() is true for a pair alike to one already
// read; false when no rule applies (such a pair is always read).
class AlikePairs {
 public:
  explicit AlikePairs(const Router& r) : router_(r), on_(r.servers_alike()) {}
  bool seen(int a, int b) {
    if (!on_) return false;
    const Topology& t = router_.topology();
    const bool same = t.device(a).node == t.device(b).node;
    const int climb = same ? -1 : router_.fabric_climb(a, b);
    if (!same && climb < 0) return false;
    // 28 bits per slot (a server's device index) and 8 for the climb (−1 for one server).
    const auto key = (static_cast<std::uint64_t>(router_.server_slot(a)) << 36) |
                     (static_cast<std::uint64_t>(router_.server_slot(b)) << 8) |
                     static_cast<std::uint64_t>(climb + 1);
    return !keys_.insert(key).second;
  }

 private:
  const Router& router_;
  bool on_;
  std::unordered_set<std::uint64_t> keys_;
};

}  // namespace

GroupSummary summarize_group(const Router& router, std::string_view kind,
                             const std::vector<std::vector<int>>& groups, bool all_pairs) {
  const Topology& topo = router.topology();
  GroupSummary s;
  s.kind = std::string(kind);
  s.groups = static_cast<int>(groups.size());
  s.size = groups.empty() ? 0 : static_cast<int>(groups.front().size());
  const bool ring = kind != "pp";  // pp chains are open; tp/dp rings close
  // transient_path: a summary walks every group's pairs once, so caching each pair would cost
  // O(GPUs) memory; the narrowest link is read when a path becomes the worst. A pair alike to
  // one already read changes nothing (its class is in the maximum, its bandwidth is not below
  // the minimum, so the first narrowest link stays), so it is not routed: the EP all-pairs of
  // 12,500 servers were 700,000 paths of 56 kinds (issue 32).
  AlikePairs alike(router);
  bool any = false;
  for (const auto& g : groups) {
    const std::size_t n = g.size();
    for (std::size_t i = 0; i < n; ++i) {
      s.crosses_nodes = s.crosses_nodes || topo.device(g[i]).node != topo.device(g[0]).node;
      // Every ordered pair (EP), or each rank's successor in the chain or ring: one j per i,
      // visited in the order the all-pairs scan would meet it (a DP ring of 12,500 ranks made
      // the n² scan the planner's largest cost).
      const std::size_t succ = i + 1 < n ? i + 1 : (ring && n > 2 ? 0 : n);
      for (std::size_t j = all_pairs ? 0 : succ; j < n; j = all_pairs ? j + 1 : n) {
        if (i == j || alike.seen(g[i], g[j])) continue;
        const Path& p = router.transient_path(g[i], g[j]);
        s.worst_class = std::max(s.worst_class, p.cls);
        if (any && !(p.bw_GBps < s.bottleneck_GBps)) continue;
        any = true;
        s.bottleneck_GBps = p.bw_GBps;
        const std::optional<Link> l = narrowest_link(topo, p);
        s.bottleneck_link = l ? link_label(*l) : "";
      }
    }
  }
  return s;
}

std::vector<GroupSummary> summarize_groups(const Router& router, const Placement& p) {
  return {summarize_group(router, "tp", p.tp_groups, false),
          summarize_group(router, "ep", p.ep_groups, true),
          summarize_group(router, "pp", p.pp_chains, false),
          summarize_group(router, "dp", p.dp_groups, false)};
}

namespace {

// The slowest group's cost when all TP groups all-reduce at once.
CollectiveCost slowest_tp(const CollectiveModel& model, const Placement& p, double bytes) {
  const auto costs = model.cost_concurrent(CollOp::AllReduce, p.tp_groups, bytes);
  return *std::max_element(costs.begin(), costs.end(),
                           [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
}

}  // namespace

PlacementComparison compare_placements(const CollectiveModel& model, const Placement& good,
                                       const Placement& bad, double tp_allreduce_bytes) {
  if (!(good.strategy == bad.strategy))
    throw InputError("compare_placements: the two placements are of different strategies");
  if (!(tp_allreduce_bytes >= 0))
    throw InputError("compare_placements: all-reduce size must be >= 0 bytes");
  PlacementComparison c;
  c.good_order = std::string(to_string(good.order));
  c.bad_order = std::string(to_string(bad.order));
  c.tp_allreduce_bytes = tp_allreduce_bytes;
  const Router& router = model.router();
  c.good_tp = summarize_group(router, "tp", good.tp_groups, false);
  c.bad_tp = summarize_group(router, "tp", bad.tp_groups, false);
  if (good.strategy.tp < 2) return c;  // no TP traffic: both zero, slowdown 1
  c.good_cost = slowest_tp(model, good, tp_allreduce_bytes);
  c.bad_cost = slowest_tp(model, bad, tp_allreduce_bytes);
  c.good_us = c.good_cost.time_us;
  c.bad_us = c.bad_cost.time_us;
  c.slowdown = c.good_us > 0 ? c.bad_us / c.good_us : 1;
  return c;
}

}  // namespace topoplan
