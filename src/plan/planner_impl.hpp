// Internal state of Planner: the model, the hardware models and the caches that keep a search
// over thousands of (strategy, batch) points fast.
#pragma once

#include <map>
#include <tuple>
#include <vector>

#include "plan/batch_shape.hpp"
#include "plan/replica_blocks.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/perf.hpp"
#include "topoplan/placement.hpp"
#include "topoplan/plan.hpp"

namespace topoplan {

// Kernel-time cache key: which kernels (layer type, head or MTP draft), the shard and workload.
using KernelKey = std::tuple<int, int, int, bool, int, double, double, double>;
// Collective cache key: op, strategy (tp, pp, dp, ep, adp), order, size.
using CommKey = std::tuple<int, int, int, int, int, bool, int, double>;

// One (strategy, batch) evaluation, kept for the Pareto front.
struct BatchPoint {
  double batch = 0;  // all replicas
  double ttft_us = 0, step_us = 0, tpot_ms = 0;
  double tokens_per_s = 0, tokens_per_s_per_gpu = 0, tokens_per_s_per_user = 0;
  bool meets_limits = false;
  TimeBreakdown decode, prefill;
};

struct Planner::Impl {
  Impl(const ModelSpec& m, const Router& r, PlanRequest q, SearchOptions o = {});

  ModelSpec model;
  const Router* router;
  PlanRequest req;
  int gpus = 0;
  GpuSpec gpu;
  ComputeModel cm;
  CollectiveModel comm;
  CollectiveOptions comm_options;  // every collective of the plan (req.nvls)
  Placer placer;
  plan_detail::ReplicaBlocks blocks;         // the first block of replicas prices every block
  std::vector<std::string> precision_notes;  // formats the GPU runs weight-only (perf.hpp)
  mutable std::map<KernelKey, TimeBreakdown> kernel_cache;
  mutable std::map<CommKey, double> comm_cache;
  SearchOptions search;
  // The strategy whose groups and prepared collectives are held: one at a time, so memory stays
  // O(GPUs) however many strategies a search visits (docs/cluster-scale.md).
  mutable std::tuple<int, int, int, int> held_key{0, 0, 0, -1};  // tp, pp, dp, order
  mutable int held_ep = 0;
  mutable PlacementGroups held_groups;
  mutable std::map<int, PreparedCollective> held_prepared;  // by op code
  mutable std::map<std::pair<int, std::vector<int>>, PreparedCollective> ep_prepared;
  // TP collectives of a tiled TP set (ReplicaBlocks::tp_tile_groups), by (op code, tp, order):
  // the first tile's groups, shared by every pp and dp.
  mutable std::map<std::tuple<int, int, int>, PreparedCollective> tile_prepared;
  // ReplicaBlocks::tp_tile_groups, 0 under the reference engine.
  int tp_tile(const Strategy& s, PlacementOrder order) const;
  // The groups of the first `block_dp(s, order)` replicas: every group when no block reduction
  // is proven (replica_blocks.hpp), the first block's otherwise (each block prices alike).
  const PlacementGroups& groups(const Strategy& s, PlacementOrder order) const;
  int block_dp(const Strategy& s, PlacementOrder order) const;
  // summarize_groups(router, p), reading the TP, EP and PP groups of the first block only when
  // blocks are proven alike (equal classes, bottlenecks and first narrowest link; counts of
  // the whole placement); DP groups join the blocks, so they are read in full.
  std::vector<GroupSummary> summarize(const Placement& p) const;
  // The strategy's groups of collective `code` (a CollOp, kOpAllToAll or kOpAllToAllNormal),
  // prepared once and priced per size on one group per class.
  const PreparedCollective& prepared(int code, const Strategy& s, PlacementOrder order) const;
  // The general engine on every group of the full placement (SearchOptions::reference_engine).
  double reference_us(int code, const Strategy& s, PlacementOrder order, double bytes) const;

  Shard shard(const Strategy& s) const;
  // Planner::memory, decode_step and prefill (the facade forwards to these; the batch arrives
  // as its shape, computed once by the caller).
  MemoryPerGpu memory(const Strategy& s) const;
  double max_batch(const Strategy& s) const;
  // Planner::run: enumerate, evaluate (threads), rank, explain.
  PlanOutput run() const;
  TimeBreakdown decode_step(const Strategy& s, const BatchShape& shape, double context,
                            PlacementOrder order) const;
  TimeBreakdown prefill(const Strategy& s, const BatchShape& shape, double prompt,
                        PlacementOrder order) const;
  // Kernel time of one layer of type t (what: 0 dense, 1 MoE, 2 head of the first stage,
  // 3 head of the last stage, 4 one MTP draft pass) split into the breakdown's kernel terms.
  TimeBreakdown kernels(int what, const Strategy& s, const Workload& w) const;
  // Time of one collective on every group of its kind at once (the slowest group), µs.
  double collective_us(CollOp op, const Strategy& s, PlacementOrder order, double bytes) const;
  // Communication of one layer of type t for `tokens` tokens of one replica micro-batch.
  TimeBreakdown layer_comm_time(LayerType t, const Strategy& s, PlacementOrder order, double tokens,
                                Phase phase) const;
  // collective_us by cache code (CollOp, kOpAllToAll, kOpAllToAllNormal).
  double collective_code_us(int code, const Strategy& s, PlacementOrder order, double bytes) const;
  // MoE dispatch or combine of DeepEP's normal (prefill) kernels; bytes = tokens × one copy.
  double ep_normal_alltoall_us(const Strategy& s, PlacementOrder order, double bytes) const;
  // One MoE layer of `w` under two-batch overlap (PlanRequest::two_batch_overlap): kernels of
  // two halves, the communication the other half's compute does not cover; hidden part in
  // comm_hidden_us. `ramp_us` gets the part no overlap can hide once per step (tbo_layer_us).
  TimeBreakdown moe_layer_tbo(const Strategy& s, PlacementOrder order, const Workload& w,
                              double& ramp_us) const;
  // One micro-batch through the slowest pipeline stage (kernels + per-layer communication).
  TimeBreakdown stage_time(const Strategy& s, PlacementOrder order, const Workload& w,
                           bool draft) const;
  double pp_send_us(const Strategy& s, PlacementOrder order, double tokens) const;

  // Serving figures of one batch (all replicas).
  BatchPoint batch_point(const Strategy& s, PlacementOrder order, double batch) const;
  // Every batch the request asks for (serve: a geometric sweep up to max_batch), evaluated.
  std::vector<BatchPoint> batch_points(const Strategy& s, PlacementOrder order, double max_batch,
                                       double batch) const;
  // Planner::evaluate at `batch` as given (0: the serve sweep, or 1 for decode and prefill),
  // also returning the batch sweep when `points` is not null.
  PlanResult evaluate(const Strategy& s, double batch, PlacementOrder order,
                      std::vector<BatchPoint>* points) const;
  // Planner::evaluate: `batch` 0 stands for the request's batch (itself 0: the search).
  PlanResult evaluate_at(const Strategy& s, double batch, PlacementOrder order) const;
  // Why `s`, which divides the model, cannot run ("" when it fits): TP path class, memory
  // (`mem` = Planner::memory(s), computed once by the caller).
  std::string infeasible_reason(const Strategy& s, PlacementOrder order,
                                const MemoryPerGpu& mem) const;

  // Every strategy evaluated (search.cpp), in the order given, on `threads` threads.
  struct Evaluated {
    PlanResult result;
    std::vector<BatchPoint> points;
  };
  int thread_count(std::size_t strategies) const;
  std::vector<Evaluated> evaluate_all(const std::vector<Strategy>& strategies, int threads) const;
};

constexpr int kOpAllToAll = 100;  // cache key of the MoE dispatch/combine (not a CollOp group op)
constexpr int kOpAllToAllNormal = 101;  // the same with DeepEP normal-mode deduplication

// Planner::max_batch from `mem` = Planner::memory(s), for callers that already have it.
double max_batch_for(const MemoryPerGpu& mem, const Strategy& s, double max_sequence);

// `base` with the KV cache of the batch `shape` (its most loaded rank) of `sequence` tokens.
MemoryPerGpu memory_at_batch(const MemoryPerGpu& base, const BatchShape& shape, double sequence);

// Splits kernel times into the breakdown's floor / compute / memory-by-byte-kind terms. With
// eager_launch_us > 0 (no CUDA graph) each kernel lasts max(eager launch, its GPU time): the host
// issues one launch per eager_launch_us and the GPU waits for it when the kernel is shorter; the
// wait is the launch_overhead term (docs/planner.md, "CUDA graphs"). With eager_launch_us = 0
// (a CUDA graph) each kernel adds the graph's inter-kernel gap to the floor term.
TimeBreakdown kernel_breakdown(const ComputeModel& cm, const std::vector<KernelCost>& kernels,
                               double eager_launch_us = 0);

}  // namespace topoplan
