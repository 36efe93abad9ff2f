// Disaggregated serving (prefill/decode on separate GPU pools, "xPyD"): the cluster's servers
// are split into a prefill pool and a decode pool, each searched for its own strategy, and the
// KV cache of every request crosses the fabric from its prefill ranks to its decode ranks.
// Model, assumptions and accuracy: docs/planner.md, "Disaggregated serving".
//
// Conventions as plan.hpp: ms in results, requests/s and tokens/s of the whole system.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "topoplan/plan.hpp"

namespace topoplan {

// The busiest a pool may run. A pool at utilisation ρ queues without bound as ρ → 1, so without
// an SLA the search stops at this load (the usual capacity-planning headroom; the queueing terms
// at 0.9 are 4.5 services for M/D/1, which the reported TTFT includes).
inline constexpr double kDisaggMaxUtilization = 0.9;

struct DisaggRequest {
  // Servers of each pool (both set, or neither: the search tries every split).
  int prefill_nodes = 0, decode_nodes = 0;
  // A request-rate target (requests/s, 0: none): the output sizes copies of the best xPyD
  // system to reach it (DisaggOutput::sizing).
  double request_rate = 0;
  // KV sent layer by layer while the prompt's prefill runs (Mooncake's layer-wise prefill), in
  // place of after it (SGLang's and vLLM's NIXL connector: the transfer starts when the
  // prefill ends). docs/planner.md, "Disaggregated serving".
  bool kv_layerwise = false;
};

// Copies of the best system (its servers and GPUs each) that serve the request-rate target at
// the same limits: replicas of an xPyD unit are independent, so copies = ceil(rate / unit rate).
struct DisaggSizing {
  double request_rate = 0;  // the target, requests/s
  int copies = 0;
  int nodes = 0, gpus = 0;  // all copies (nodes 0 when pools are GPUs of one server)
  double utilization = 0;   // target / (copies x unit rate)
};

// One pool at the system's operating point.
struct DisaggPool {
  int nodes = 0, gpus = 0;  // the pool's size (a single server is split by GPUs: nodes = 0)
  std::string gpu;          // the pool's GPU model (a mixed cluster: each group's own)
  Strategy strategy;
  double batch = 0;    // prefill: prompts per batch, all replicas; decode: sequences in flight
  double step_ms = 0;  // prefill: one batch (its TTFT alone); decode: one step
  double capacity_requests_per_s = 0;  // at the limits (prefill: its queue within the TTFT)
  double utilization = 0;              // at the system's request rate
  double tokens_per_s = 0;             // prefill: input tokens/s; decode: output tokens/s
  double tokens_per_s_per_gpu = 0;
};

// One request's KV cache from its prefill replica to its decode replica (docs/planner.md).
struct KvTransfer {
  double bytes_per_token = 0;          // whole model, in the KV dtype (kv_bytes_per_token(model))
  double bytes_per_request = 0;        // × kv_tokens_held(prompt)
  int streams = 0;                     // GPU → GPU streams that carry it in parallel
  PathClass path = PathClass::DIS;     // of the first stream (NET between servers)
  double time_ms = 0;                  // all streams at once, priced together on the graph
  double exposed_ms = 0;               // the part of time_ms that adds to TTFT (kv_exposed_us)
  double GBps = 0;                     // bytes_per_request / time
  double capacity_requests_per_s = 0;  // every prefill replica sending back to back
};

// Splits a request's KV into GPU → GPU streams: the distinct KV shards of the prefill and
// decode layouts (GQA/MHA: min(kv_heads, tp) head shards per side, one under attention DP or
// MLA, whose latent is replicated over TP ranks), paired round-robin, one stream per pipeline
// stage pair. Returns (prefill rank, decode rank) indices inside replica 0 of each pool, in
// tp-pp-dp order.
std::vector<std::pair<int, int>> kv_stream_ranks(const ModelSpec& m, const Strategy& prefill,
                                                 const Strategy& decode);

// The part of a KV transfer of `kv_us` that a prompt's TTFT sees after its prefill of
// `prefill_us`. After the prefill: all of it. Layer by layer over `layers` equal layers, layer
// i's KV leaves when layer i is computed and the link sends one layer at a time, so the last
// layer's share arrives kv/L after the prefill when the link keeps up (kv <= prefill), else the
// link is the pipeline's slow stage: kv − prefill + prefill/L.
double kv_exposed_us(double kv_us, double prefill_us, int layers, bool layerwise);

// Mean wait before a prompt's prefill starts, at utilisation rho, for a pool that prefills
// batches of `batch` prompts taking `step_us` each: the M/D/1 wait of a server `batch` times
// faster per prompt, plus the residual of a batch in progress for the part of the batch the
// prompt cannot join (exactly M/D/1, rho·S/(2(1−rho)), at batch 1). docs/planner.md.
double disagg_queue_us(double rho, double step_us, double batch);

struct DisaggResult {
  DisaggPool prefill, decode;
  KvTransfer kv;
  double requests_per_s = 0;                      // min of the three capacities
  std::string bottleneck;                         // "prefill", "decode" or "kv_transfer"
  double queue_ms = 0, ttft_ms = 0, tpot_ms = 0;  // TTFT = queue + prefill + KV transfer
  double goodput_tokens_per_s = 0;                // output tokens/s within the limits
  double goodput_tokens_per_s_per_gpu = 0;
  std::string ratio;  // "4P:18D" (servers), or GPUs on one server "2P:6D GPUs"
};

struct DisaggOutput {
  std::string model, topology;
  std::string gpu;                      // "H100-SXM", or "H200-SXM + H20" on a mixed cluster
  std::string prefill_gpu, decode_gpu;  // each pool's GPU model
  int gpus = 0, nodes = 0;
  PlanRequest request;
  DisaggRequest disagg;  // what plan_disagg was asked (pools, rate, KV transfer mode)
  std::string weight_format, kv_dtype;  // as run (PlanOutput's)
  std::optional<DisaggResult> best;
  std::vector<DisaggResult> splits;  // the best of every split tried, best first
  // The best aggregated plan on the same GPUs at the same limits, and the comparison.
  std::optional<PlanResult> aggregated;
  std::optional<DisaggSizing> sizing;  // with DisaggRequest::request_rate
  std::string verdict;
  std::string status = "ok";  // or "no_plan_fits" / "no_plan_meets_limits" (exit 3)
  std::string status_message;
  int strategies_evaluated = 0;
};

// Throws FieldError for pools that do not fit the cluster or pins (--tp ...), which name one
// pool's strategy and are refused here.
DisaggOutput plan_disagg(const ModelSpec& model, const Router& router, const PlanRequest& request,
                         const DisaggRequest& disagg);

}  // namespace topoplan
