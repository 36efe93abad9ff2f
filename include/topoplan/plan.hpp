// Inference planner: enumerates parallel strategies (TP × PP × DP, EP, attention DP) for a model
// on a topology, checks memory per GPU, estimates prefill (TTFT) and decode (TPOT) from the
// compute model (perf.hpp) and the collective engine (collective.hpp) on the actual placement,
// and ranks the strategies. Formulas, assumptions and accuracy: docs/planner.md.
//
// Conventions: times in µs inside the library (ms in the request limits and results, as users
// quote them), bytes per GPU, tokens/s counts OUTPUT tokens (decode) unless stated.
// A strategy that does not fit is a result with a reason, never an exception.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "topoplan/burst.hpp"
#include "topoplan/closed_loop.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/model.hpp"
#include "topoplan/perf.hpp"
#include "topoplan/placement.hpp"
#include "topoplan/route.hpp"

namespace topoplan {

// serve: steady-state serving (prefill + decode) maximising tokens/s/GPU under the limits;
// decode: minimise TPOT at the batch; prefill: minimise TTFT of the batch.
enum class PlanMode { Serve, Prefill, Decode };
std::string_view to_string(PlanMode m);             // "serve", "prefill", "decode"
PlanMode parse_plan_mode(std::string_view text);    // UnknownNameError on anything else
PathClass parse_path_class(std::string_view text);  // "NVL", "PIX", ... (case-insensitive)

// steady: the serve cycle of "Throughput" (docs/planner.md); burst: `requests` arriving together,
// scheduled prefill-first in waves (burst.hpp); closed: `concurrency` requests kept in flight
// (closed_loop.hpp). Burst and closed are reported beside the plans for the best one.
enum class PlanWorkload { Steady, Burst, Closed };
std::string_view to_string(PlanWorkload w);               // "steady", "burst", "closed"
PlanWorkload parse_plan_workload(std::string_view text);  // UnknownNameError on anything else

// How an MoE layer under attention DP (ep = tp) moves its tokens to the experts and back.
// DeepEP: each token's copies go to the ranks owning its experts and come back (all-to-all;
// SGLang --moe-a2a-backend deepep). AllGather: every rank gathers every token (bf16 hidden),
// runs its local experts and the outputs are reduce-scattered back (TensorRT-LLM's
// AllGatherReduceScatter, which its PyTorch backend falls back to whenever the EP size is at
// most top-k: `select_alltoall_method_type` returns NotEnabled for moe_ep_size <= top_k, e.g.
// DeepSeek-R1's top-8 at EP8; tensorrt_llm/_torch/modules/fused_moe, 2025 versions).
enum class MoeComm { DeepEP, AllGather };
std::string_view to_string(MoeComm c);          // "deepep", "allgather"
MoeComm parse_moe_comm(std::string_view text);  // UnknownNameError on anything else

struct NcclTuning;

struct PlanRequest {
  PlanMode mode = PlanMode::Serve;
  // Concurrent sequences over all replicas. 0: serve searches the best batch; decode and
  // prefill use 1.
  double batch = 0;
  double prompt = 1024;  // input tokens per request
  double output = 1024;  // output tokens per request
  double context = 0;    // tokens in the KV cache during decode; 0: prompt + output / 2
  double tpot_max_ms = 0, ttft_max_ms = 0;  // 0: no limit
  int gpus = 0;                             // 0: every GPU of the topology
  std::optional<int> tp, pp, dp, ep;        // pins
  std::optional<bool> attention_dp;
  std::optional<PathClass> max_tp_class;  // TP groups may not use a worse path class
  // Speculative decoding (MTP): mtp_accept = A tokens accepted per verify step (1 ≤ A ≤ 1 + d),
  // each step verifies 1 + mtp_draft tokens per sequence. 0: off.
  double mtp_accept = 0;
  int mtp_draft = 1;
  PlacementOrder order = PlacementOrder::TpPpDp;
  // Fraction of HBM the engine may use (vLLM gpu_memory_utilization default 0.9); the rest is
  // the reserve (CUDA context, CUDA graphs, allocator fragmentation).
  double mem_util = 0.9;
  double prefill_chunk = 8192;  // tokens per prefill chunk (SGLang chunked_prefill_size 8192)
  // Decode steps replay CUDA graphs (SGLang/vLLM default). false: every decode kernel is
  // launched eagerly and lasts at least the measured eager launch cost (--cuda-graphs off, e.g.
  // --disable-cuda-graph / --enforce-eager). Prefill is always eager: the engines capture
  // graphs for decode batch sizes only.
  bool cuda_graphs = true;
  // NCCL's NVLink SHARP (NVLS, NVLSTree) for the plan's collectives. Off by default because the
  // serving engine modelled by default turns it off: SGLang's _set_envs_and_config writes
  // NCCL_NVLS_ENABLE=str(int(server_args.enable_nccl_nvls)) and enable_nccl_nvls defaults to
  // False (python/sglang/srt/entrypoints/engine.py, server_args.py). On: --nvls on, i.e. SGLang
  // --enable-nccl-nvls, or an engine that leaves NCCL's default (vLLM, TensorRT-LLM's NCCL path).
  bool nvls = false;
  // MoE dispatch/combine under attention DP with ep = tp (MoeComm above); DeepEP by default.
  MoeComm moe_comm = MoeComm::DeepEP;
  // Two-batch overlap of MoE layers (SGLang --enable-two-batch-overlap; DeepSeek's dual
  // micro-batch overlap, "DeepSeek-V3/R1 Inference System Overview"): a step runs as two halves
  // of its batch, each half's MoE communication hidden behind the other half's compute
  // (docs/planner.md, "Two-batch overlap"). Off by default (SGLang's default).
  bool two_batch_overlap = false;
  // Serve only: `burst` adds the burst schedule of `requests` requests (>= 1) on the best plan.
  // `closed` adds the closed loop of `concurrency` requests in flight (whole, 1 to kMaxCount;
  // all replicas) on the best plan; the plans are evaluated at that batch, so `batch` must equal
  // `concurrency` (the CLI sets it from --concurrency).
  PlanWorkload workload = PlanWorkload::Steady;
  double requests = 0;
  double concurrency = 0;
  // Kernel for block-scaled FP8 weights (perf.hpp Fp8BlockGemm): auto (default) the engine's
  // choice, fused-MoE experts at the Triton rate and the rest as per-tensor FP8; cublas all as
  // per-tensor FP8 (the default before 2026-12-03); triton all at the Triton rate.
  Fp8BlockGemm fp8_block_gemm = Fp8BlockGemm::Auto;
  // Communication constants from `topoplan calibrate` (--calibration); nullptr: the built-in
  // ones. Must outlive the planner.
  const NcclTuning* comm_tuning = nullptr;
  int top = 5;  // plans the report prints in full
  // Whether the top plans keep their per-rank placement (PlanResult::placement). Off, a top plan
  // of more than kPlacementListRanks ranks keeps its placement as runs (placement_runs) and the
  // best plan's ranks are in PlanOutput::placement only: what `plan --json` prints without
  // --placement-detail, without holding a 10 MB list per top plan on 100,000 GPUs (issue 32).
  bool rank_lists = true;

  double decode_context() const { return context > 0 ? context : prompt + output / 2; }
  // KV tokens one sequence may need: max(prompt + output, context); prefill mode: the prompt
  // (the output is never generated there, so it does not count against the context).
  double max_sequence() const;
  double tokens_per_step() const { return mtp_accept > 0 ? mtp_accept : 1; }
  // Throws FieldError naming the member (e.g. "batch") on a negative or inconsistent value.
  void validate(const ModelSpec& m) const;
};

// Bytes per GPU (the most loaded GPU: first pipeline stage for KV, heaviest for weights).
struct MemoryPerGpu {
  double capacity_bytes = 0;
  double reserve_bytes = 0;       // (1 − mem_util) × capacity
  double weights_bytes = 0;       // weight_bytes_per_gpu (MTP module when speculating)
  double activations_bytes = 0;   // prefill-chunk workspace + sampler logits
  double comm_buffers_bytes = 0;  // NCCL buffers of the communicators this GPU joins
  double kv_capacity_bytes = 0;   // what is left for the KV cache (may be negative)
  double kv_used_bytes = 0;       // KV cache of the chosen batch
  double kv_bytes_per_token = 0;  // on this GPU, per token of a sequence it holds
  double used_bytes() const {
    return reserve_bytes + weights_bytes + activations_bytes + comm_buffers_bytes + kv_used_bytes;
  }
};

// One step's critical path in µs; the terms sum to total_us. Kernel time is split into its
// floor, its compute term (when compute-bound) or its memory term divided by bytes kind.
struct TimeBreakdown {
  double weights_us = 0;      // memory-bound time reading weights
  double kv_us = 0;           // memory-bound time reading/writing the KV cache
  double activations_us = 0;  // memory-bound time on other bytes
  double compute_us = 0;      // compute-bound kernels' tensor-core time
  double floors_us = 0;       // per-kernel floors × launches
  // Eager launches: Σ max(0, eager launch cost − kernel time) over kernels shorter than a launch
  // (the GPU waits for the host); 0 for decode under CUDA graphs.
  double launch_overhead_us = 0;
  double tp_allreduce_us = 0;  // TP all-reduces (and the logits all-gather)
  double dp_gather_us = 0;     // attention-DP all-gather + reduce-scatter around TP MLP/MoE
  double ep_alltoall_us = 0;   // MoE dispatch + combine
  double pp_sendrecv_us = 0;   // activations between pipeline stages
  double bubble_us = 0;        // pipeline stages idle (decode: fewer micro-batches than stages)
  // Not a term (already inside the terms above): the part of a prefill's time its last chunk
  // spends in stages 2..pp, which run the same kernels as stage 1. Successive requests overlap
  // it (serve throughput subtracts it); a single prompt's TTFT pays it.
  double pipeline_fill_us = 0;
  // Not a term either: communication hidden behind the other micro-batch's compute under
  // two-batch overlap (PlanRequest::two_batch_overlap); the comm terms above are what is left.
  double comm_hidden_us = 0;
  // Serve TTFT only: waiting for the prefills queued ahead and the step in progress, implied by
  // the plan's own throughput (serve_queue_us, docs/planner.md "TTFT").
  double queue_us = 0;
  double total_us() const;
  TimeBreakdown& operator+=(const TimeBreakdown& o);
  TimeBreakdown scaled(double f) const;
};
// One layer under two-batch overlap. The batch runs as two halves: the compute stream runs the
// halves' kernels (`compute_us`, both halves), the communication stream their dispatch and
// combine (`comm_us`, both halves), each half's communication after its own compute and before
// its next layer's. In steady state a layer takes max(compute, comm); while they overlap, the
// communication kernels hold `comm_sm_share` of the SMs, so the compute they overlap runs that
// much slower: time = max(compute + share × min(compute, comm), comm). What communication
// adds is time − compute (exposed), the rest of it is hidden. Once per step the first half's
// shorter stage cannot overlap anything: ramp = min(compute, comm) / 2.
struct TboLayer {
  double time_us = 0, exposed_comm_us = 0, hidden_comm_us = 0, ramp_us = 0;
};
TboLayer tbo_layer(double compute_us, double comm_us, double comm_sm_share);

// Mean prefill queueing of a request arriving at a non-disaggregated serving replica. Over a
// cycle of `cycle_us` the replica admits and finishes `batch` requests, spending `prompts_us` of
// it prefilling their prompts; arrivals are Poisson at λ = batch / cycle_us, each needs
// S = prompts_us / batch of prefill, so the GPUs are in prefill ρ = λS = prompts_us / cycle_us
// of the time. Prefill has priority over decode (vLLM/SGLang schedule waiting prefills first),
// so the wait is the M/D/1 queue of prefills, ρS / (2(1 − ρ)) (Pollaczek–Khinchine), plus the
// residual of the decode step in progress, step_us / 2 (the vacation term of the Fuhrmann–
// Cooper decomposition, deterministic steps).
double serve_queue_us(double prompts_us, double cycle_us, double batch, double step_us);
// Prefill time per serve cycle under attention DP when prompts reach the `ranks` attention
// ranks one at a time (each rank admits a request as one of its own finishes) instead of all
// ranks together: each of the cycle's `steps` decode steps has a prompt on a given rank with
// probability q = min(1, prompts_per_rank / steps), independently per rank, and a step in
// which any rank prefills costs `one_us` for every rank (the MoE all-to-all waits for it):
// steps × (1 − (1 − q)^ranks) × one_us. 0 for empty inputs. docs/planner.md, "Throughput".
double staggered_prefill_us(double prompts_per_rank, double steps, double ranks, double one_us);

// (name, value) pairs in the fixed order above ("weights", "kv", ..., "launch_overhead", ...).
std::vector<std::pair<std::string, double>> terms(const TimeBreakdown& b);

// Collective bytes of one layer for one replica step of `tokens` tokens (the volumes the
// collective engine is asked to move).
struct LayerTraffic {
  int tp_allreduces = 0;                  // all-reduces per layer (0 under attention DP)
  double tp_allreduce_bytes = 0;          // message size of each (tokens × hidden × act bytes)
  double dp_gather_bytes = 0;             // all-gather + reduce-scatter buffer (nccl-tests size)
  double ep_dispatch_bytes_per_rank = 0;  // bytes one EP rank sends in the dispatch
  double ep_combine_bytes_per_rank = 0;   // and in the combine
  double pp_bytes = 0;                    // sent to the next stage
};
LayerTraffic layer_traffic(const ModelSpec& m, LayerType t, const Strategy& s, double tokens,
                           MoeComm comm = MoeComm::DeepEP);

// The GPUs a plan uses and how it serves; `fits` false carries `reason`.
struct PlanResult {
  Strategy strategy;
  bool fits = false;
  std::string reason;         // empty when fits
  bool meets_limits = false;  // fits and TTFT/TPOT within the request's limits
  MemoryPerGpu memory;
  double max_batch = 0;  // concurrent sequences (all replicas) at max_sequence()
  double batch = 0;      // the batch the figures below are for (all replicas)
  double ttft_ms = 0, tpot_ms = 0;
  double tokens_per_s = 0;  // output tokens/s of all replicas (prefill mode: input tokens/s)
  double tokens_per_s_per_gpu = 0;
  double tokens_per_s_per_user = 0;
  TimeBreakdown decode;                  // one decode step (TPOT × accepted tokens)
  TimeBreakdown prefill;                 // TTFT
  std::vector<GroupSummary> groups;      // filled for the first `top` fitting plans
  std::vector<RankPlacement> placement;  // rank → device; filled like `groups`
  // In place of `placement` when PlanRequest::rank_lists is off and the plan has more than
  // kPlacementListRanks ranks.
  std::vector<PlacementRun> placement_runs;
};

// One (strategy, batch) point of the throughput/interactivity trade-off.
struct ParetoPoint {
  Strategy strategy;
  double batch = 0;
  double tpot_ms = 0;
  double tokens_per_s_per_gpu = 0;
  double tokens_per_s_per_user = 0;
};

struct PlanOutput {
  std::string model, topology, gpu;
  bool moe = false;       // the model has routed experts: labels show ep even at ep1 (label())
  int gpus = 0;           // GPUs the plans use (--gpus, the pinned tp x pp x dp, or all)
  int topology_gpus = 0;  // GPUs of the topology; the rest stay idle
  PlanRequest request;    // as given
  double context = 0;     // decode context used
  std::vector<PlanResult> plans;       // ranked: fitting and within limits first, by the objective
  std::vector<ParetoPoint> pareto;     // non-dominated over every fitting strategy and batch
  std::string explanation;             // why the best plan beats the runner-up
  std::optional<Placement> placement;  // of the best plan
  std::optional<PlanResult> bad_placement;  // the best plan under dp-pp-tp order
  std::string bad_order;
  int strategies_evaluated = 0;
  // Formats the GPU cannot multiply natively, priced weight-only (fit_formats_to_gpu).
  std::vector<std::string> precision_notes;
  // GPU figures the catalog marks as not public (assumed_figures_note, hardware.hpp).
  std::vector<std::string> catalog_notes;
  std::string weight_format, kv_dtype;  // the model's GEMM weight format and KV dtype, as run
  // "ok"; "no_plan_fits" (every strategy fails divisibility, path class or memory) or
  // "no_plan_meets_limits" (some fit, none within --tpot-max/--ttft-max): the CLI exits 3.
  std::string status = "ok";
  std::string status_message;  // the binding reason and a hint; empty when ok
  // Serve without a limit: what the plan maximises and an SLA to set; else empty.
  std::string objective_note;
  // The search's wall time and the threads it ran on: strategies_evaluated ÷ (seconds × threads)
  // is the evaluation rate per core that planners are compared by (not deterministic).
  double search_seconds = 0;
  int threads = 1;
  double evaluations_per_s_per_core() const;
  // --workload burst: the burst schedule on the best plan (burst_workload); else empty.
  std::optional<BurstResult> burst;
  // --workload closed: the closed loop on the best plan (closed_loop_workload); else empty.
  std::optional<ClosedLoopResult> closed_loop;
};

// How a search runs (not what it answers: every setting gives the same PlanOutput apart from
// search_seconds and threads).
struct SearchOptions {
  // Threads that evaluate strategies (each with its own Router copy and caches); 0: the
  // hardware's (std::thread::hardware_concurrency), at most one per strategy.
  int threads = 1;
  // Called after each evaluated strategy with (done, total), serialised by the planner, from
  // whichever thread finished it. Empty: none.
  std::function<void(int, int)> progress;
  // Price every group of the full placement with the general engine per size instead of the
  // prepared, class-priced sets (the fast path's reference, for tests; docs/cluster-scale.md).
  bool reference_engine = false;
};

// Every strategy of `gpus` GPUs allowed by the pins (tp × pp × dp = gpus; ep | tp and
// attention DP for MoE models with tp > 1), in a stable order.
std::vector<Strategy> enumerate_strategies(const ModelSpec& m, int gpus, const PlanRequest& r);
// Why the model cannot be split this way ("" when it can): heads, kv_heads, experts,
// intermediate sizes, layers.
std::string divisibility_reason(const ModelSpec& m, const Strategy& s);

// Evaluates strategies on one topology. Caches placements and collective costs per (group set,
// size), so a search over thousands of (strategy, batch) points stays fast. Not thread-safe;
// run() itself evaluates strategies on SearchOptions::threads threads.
class Planner {
 public:
  Planner(const ModelSpec& model, const Router& router, PlanRequest request);
  Planner(const ModelSpec& model, const Router& router, PlanRequest request, SearchOptions search);
  ~Planner();
  Planner(Planner&&) noexcept;
  Planner& operator=(Planner&&) noexcept;

  // Memory per GPU with no batch (kv_used_bytes = 0) and the per-replica max batch.
  MemoryPerGpu memory(const Strategy& s) const;
  double max_batch(const Strategy& s) const;  // all replicas; 0 when one sequence does not fit
  // One decode step of each replica at `batch` sequences (all replicas), context tokens each.
  TimeBreakdown decode_step(const Strategy& s, double batch, double context,
                            PlacementOrder order) const;
  // TTFT of `batch` prompts (all replicas) of `prompt` tokens arriving together.
  TimeBreakdown prefill(const Strategy& s, double batch, double prompt, PlacementOrder order) const;
  // The full evaluation at `batch` (0: the request's choice / the search).
  PlanResult evaluate(const Strategy& s, double batch = 0) const;
  PlanResult evaluate(const Strategy& s, double batch, PlacementOrder order) const;
  // Enumerates, evaluates, ranks, builds the Pareto front and the explanation.
  PlanOutput run() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The burst schedule of request.requests on `plan` (its strategy and max batch), priced by the
// planner's prefill and decode; empty when the plan does not fit or no requests are given.
std::optional<BurstResult> burst_workload(const Planner& planner, const PlanResult& plan,
                                          const PlanRequest& request);

// The closed loop of closed_loop.hpp at the plan's batch (concurrency, all replicas, split
// evenly), priced by the planner's prefill of one prompt per replica and decode step at the
// batch; empty when the plan does not fit. Per replica figures (output_tokens_per_s × dp for
// the plan).
std::optional<ClosedLoopResult> closed_loop_workload(const Planner& planner, const PlanResult& plan,
                                                     const PlanRequest& request);

// Convenience: load nothing, just build a Planner and run it.
PlanOutput plan(const ModelSpec& model, const Router& router, const PlanRequest& request);
PlanOutput plan(const ModelSpec& model, const Router& router, const PlanRequest& request,
                const SearchOptions& search);

std::string to_string(const Strategy& s);  // "tp8 pp1 dp1 ep8 adp"
// to_string, with ep always shown for a MoE model ("tp8 pp1 dp1 ep1"), so that rows of one table
// all say how the experts are split (to_string omits ep1, right for dense models).
std::string label(const Strategy& s, bool moe);

}  // namespace topoplan
