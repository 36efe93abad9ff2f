// Placement: which GPU runs which rank of a parallel strategy, the communication groups that
// result (TP, EP, PP, DP) and the path class / bottleneck each group's traffic uses.
//
// A Strategy has tp·pp·dp ranks. Each rank has coordinates (tp_rank, pp_rank, dp_rank); a
// PlacementOrder says how the launch rank r (rank r runs on the r-th chosen GPU) decomposes into
// them, like Megatron-LM's `--order`. TpPpDp (tp innermost) is Megatron's default: TP groups are
// consecutive GPUs (inside a server), PP stages and DP replicas farther apart. Optimized keeps
// the TpPpDp coordinates but chooses the GPU of every rank to minimise communication_proxy().
// Rules and the JSON shape the planner prints: docs/placement.md.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/collective.hpp"
#include "topoplan/route.hpp"

namespace topoplan {

// tp: width of one model instance's layer (heads/MLP columns split tp ways; with attention_dp,
// attention replicated on each of the tp GPUs with sequences split among them, SGLang DP
// attention). ep divides tp: routed experts split ep ways inside each TP group (expert_tp =
// tp/ep). pp: pipeline stages. dp: independent replicas.
struct Strategy {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int ep = 1;
  bool attention_dp = false;
  int gpus() const { return tp * pp * dp; }
};
bool operator==(const Strategy& a, const Strategy& b);

enum class PlacementOrder {
  TpPpDp,    // canonical: tp innermost, then pp, then dp (Megatron default)
  DpPpTp,    // tp outermost: TP groups strided across servers (the bad order, for comparison)
  PpTpDp,    // pp innermost: pipeline neighbours adjacent, TP groups strided by pp
  Optimized  // TpPpDp coordinates, GPUs chosen by the locality search (docs/placement.md)
};
std::string_view to_string(
    PlacementOrder order);  // "tp-pp-dp", "dp-pp-tp", "pp-tp-dp", "optimized"
// Accepts the names above, case-insensitive, '_' for '-'. Throws UnknownNameError.
PlacementOrder parse_placement_order(std::string_view text);

// The (tp, pp, dp) coordinates of launch rank `rank` under `order` (Optimized decomposes like
// TpPpDp): what a placement's rank fields say, for readers of a compact placement (issue 32).
struct RankCoords {
  int tp = 0, pp = 0, dp = 0;
};
RankCoords rank_coords(const Strategy& s, PlacementOrder order, int rank);
std::vector<std::string> placement_order_names();

// Integers first, then the strings, so the record packs (96 bytes, not 112): a plan holds one
// per GPU for each of its top plans.
struct RankPlacement {
  int rank = 0;
  int device = -1;  // device index in the Topology
  int node = 0;
  int local_gpu = 0;  // Device::local_index
  int nic = -1;       // Router::nic_of_gpu (device index), -1 when the server has none
  int tp_rank = 0, pp_rank = 0, dp_rank = 0;
  std::string device_id;  // "gpu3", "n1/gpu3"
  std::string nic_id;     // "" when none
};

// A placement written as runs of whole servers instead of one record per rank (issue 32): what
// `plan --json` prints above kPlacementListRanks ranks, and what a plan keeps of its top plans'
// placements when PlanRequest::rank_lists is off. Ranks [rank, rank + count) fill servers
// node_first..node_last in order, each server's GPUs gpu_first..gpu_last in local order
// (count = servers × GPUs). Exact for any placement: an irregular one gives shorter runs, down
// to one rank each.
struct PlacementRun {
  int rank = 0;
  int node_first = 0, node_last = 0, gpu_first = 0, gpu_last = 0;
  std::string first_device, last_device;
  long long count() const {
    return static_cast<long long>(node_last - node_first + 1) * (gpu_last - gpu_first + 1);
  }
};
std::vector<PlacementRun> placement_runs(const std::vector<RankPlacement>& ranks);

// Above this many ranks a placement is written (and, on request, kept) as runs.
inline constexpr std::size_t kPlacementListRanks = 4096;

struct Placement {
  Strategy strategy;
  PlacementOrder order = PlacementOrder::TpPpDp;
  std::vector<RankPlacement> ranks;  // ranks[r].rank == r
  // Groups as device-index vectors, members in ring/stage order.
  std::vector<std::vector<int>> tp_groups;  // one per (pp_rank, dp_rank), ordered by tp_rank
  std::vector<std::vector<int>>
      ep_groups;  // ep-sized slices of each TP group (whole group if ep == tp)
  std::vector<std::vector<int>> pp_chains;  // one per (tp_rank, dp_rank), ordered by stage
  std::vector<std::vector<int>> dp_groups;  // one per (tp_rank, pp_rank), ordered by dp_rank
  std::vector<int> devices() const;         // device of each rank
};

// A placement's communication groups without its per-rank records: what pricing needs, O(GPUs)
// integers and no strings (the planner's evaluation path; docs/cluster-scale.md).
struct PlacementGroups {
  std::vector<std::vector<int>> tp_groups, ep_groups, pp_chains, dp_groups;  // as in Placement
};

// Places `strategy` on the router's topology. Throws InputError when a dimension is < 1, ep does
// not divide tp, or strategy.gpus() exceeds the topology's GPUs. Canonical orders use the first
// gpus() GPUs in Topology::gpus() order; Optimized may pick any gpus() of them.
Placement place(const Router& router, const Strategy& strategy, PlacementOrder order);

// How often each kind of group communicates in one forward step of the model placed: every
// layer all-reduces over TP twice, every MoE layer dispatches and combines over EP, and a step
// crosses each of the pp - 1 stage boundaries once. The default is DeepSeek-V3's step (61
// layers, the first 3 dense: models/deepseek-v3.json), for callers that place without a model.
struct StepCounts {
  int layers = 61;
  int moe_layers = 58;
};

// The cost proxy Optimized minimises (dimensionless, lower is better; see docs/placement.md):
// per-byte ring time of the worst group of each kind (TP all-reduce, EP all-to-all, PP send,
// DP all-reduce), weighted per layer by how often each kind communicates in a forward step of
// `step` (TP 2, EP 2 x moe_layers / layers, PP (pp - 1) / layers), plus per-hop latency and a
// rail-crossing penalty as tie-breakers.
double communication_proxy(const Router& router, const Placement& placement,
                           const StepCounts& step = {});

// Caches placements per (strategy, order); holds the Router (which must outlive it). Not
// thread-safe: use one Placer per thread.
class Placer {
 public:
  // `step`: the model whose placements Optimized ranks (communication_proxy).
  explicit Placer(const Router& router, const StepCounts& step = {});
  ~Placer();
  Placer(Placer&&) noexcept;
  Placer& operator=(Placer&&) noexcept;

  const Placement& place(const Strategy& strategy, PlacementOrder order) const;
  // The groups of place(strategy, order), not cached (canonical orders build no Placement;
  // Optimized copies them from the cached one). Same exceptions as place().
  PlacementGroups groups(const Strategy& strategy, PlacementOrder order) const;
  // place(strategy, order) moved out of the cache (a later place() builds it again): what a
  // caller keeps after the search, without a second copy of every rank.
  Placement take(const Strategy& strategy, PlacementOrder order) const;
  const Router& router() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// One kind of group, summarised over all its groups: the worst path class and the narrowest
// link seen on the paths between consecutive ring members (tp, dp, pp chains) or all pairs (ep).
struct GroupSummary {
  std::string kind;  // "tp", "ep", "pp", "dp"
  int groups = 0;
  int size = 0;                            // members per group
  PathClass worst_class = PathClass::LOC;  // LOC when size == 1 (no traffic)
  double bottleneck_GBps = 0;   // narrowest path bandwidth (per direction); 0 when size == 1
  std::string bottleneck_link;  // its narrowest link: "nvlink4 ×18", "ib-ndr400"; "" when size == 1
  bool crosses_nodes = false;   // some group has members on different nodes
};
GroupSummary summarize_group(const Router& router, std::string_view kind,
                             const std::vector<std::vector<int>>& groups, bool all_pairs);
// tp, ep, pp, dp in that order (always four entries, even for size-1 groups).
std::vector<GroupSummary> summarize_groups(const Router& router, const Placement& placement);

// How much slower the TP all-reduce is under `bad` than under `good`: every TP group runs the
// all-reduce of `tp_allreduce_bytes` at once (cost_concurrent, so shared links contend); the
// time of a placement is its slowest group.
struct PlacementComparison {
  std::string good_order, bad_order;
  double tp_allreduce_bytes = 0;
  double good_us = 0, bad_us = 0;
  double slowdown = 1;  // bad_us / good_us (1 when tp == 1)
  GroupSummary good_tp, bad_tp;
  CollectiveCost good_cost, bad_cost;  // the slowest group of each
};
PlacementComparison compare_placements(const CollectiveModel& model, const Placement& good,
                                       const Placement& bad, double tp_allreduce_bytes);

}  // namespace topoplan
