// Request parsing/validation, the time breakdown's arithmetic, strategy names and the per-layer
// collective volumes (docs/planner.md, "Communication per layer").
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/plan.hpp"

namespace topoplan {

std::string_view to_string(PlanMode m) {
  switch (m) {
    case PlanMode::Serve:
      return "serve";
    case PlanMode::Prefill:
      return "prefill";
    case PlanMode::Decode:
      return "decode";
  }
  return "serve";
}

PlanMode parse_plan_mode(std::string_view text) {
  for (PlanMode m : {PlanMode::Serve, PlanMode::Prefill, PlanMode::Decode})
    if (text == to_string(m)) return m;
  throw UnknownNameError("mode", std::string(text), {"serve", "prefill", "decode"});
}

std::string_view to_string(PlanWorkload w) {
  switch (w) {
    case PlanWorkload::Steady:
      return "steady";
    case PlanWorkload::Burst:
      return "burst";
    case PlanWorkload::Closed:
      return "closed";
  }
  return "steady";
}

PlanWorkload parse_plan_workload(std::string_view text) {
  for (PlanWorkload w : {PlanWorkload::Steady, PlanWorkload::Burst, PlanWorkload::Closed})
    if (text == to_string(w)) return w;
  throw UnknownNameError("workload", std::string(text), {"steady", "burst", "closed"});
}

std::string_view to_string(MoeComm c) {
  return c == MoeComm::AllGather ? "allgather" : "deepep";
}

MoeComm parse_moe_comm(std::string_view text) {
  for (MoeComm c : {MoeComm::DeepEP, MoeComm::AllGather})
    if (text == to_string(c)) return c;
  throw UnknownNameError("MoE communication", std::string(text), {"deepep", "allgather"});
}

PathClass parse_path_class(std::string_view text) {
  std::string up(text);
  for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::vector<std::string> known;
  for (int i = 0; i <= static_cast<int>(PathClass::DIS); ++i) {
    auto c = static_cast<PathClass>(i);
    if (up == to_string(c)) return c;
    known.emplace_back(to_string(c));
  }
  throw UnknownNameError("path class", std::string(text), known);
}

double PlanRequest::max_sequence() const {
  if (mode == PlanMode::Prefill) return prompt;
  return std::max(prompt + output, context);
}

double serve_queue_us(double prompts_us, double cycle_us, double batch, double step_us) {
  if (!(cycle_us > 0) || !(batch > 0) || prompts_us <= 0) return step_us / 2;
  const double rho = std::min(prompts_us / cycle_us, 0.999);  // < 1: the cycle also decodes
  const double service = prompts_us / batch;
  return rho * service / (2 * (1 - rho)) + step_us / 2;
}

namespace {

void need(bool ok, const char* field, const std::string& why) {
  if (!ok) throw FieldError(field, why);
}

// Speculative decoding: a draft of 1 to `output` tokens (a step never verifies more tokens than
// a request generates, which also keeps 1 + draft far from INT_MAX), 1 <= accept <= 1 + draft.
void validate_mtp(const PlanRequest& r) {
  need(std::isfinite(r.mtp_accept), "mtp_accept", "must be a finite number (0: off)");
  if (r.mtp_accept > 0) {
    need(r.mtp_draft >= 1, "mtp_draft", "must be at least 1");
    need(r.mtp_draft <= r.output, "mtp_draft", "must be at most {output} tokens");
    const double verified = 1.0 + r.mtp_draft;
    need(r.mtp_accept >= 1 && r.mtp_accept <= verified, "mtp_accept",
         "acceptance length must be in [1, 1 + draft tokens = " +
             std::to_string(static_cast<long long>(verified)) + "]");
  }
  need(r.mtp_accept == 0 || r.mtp_accept >= 1, "mtp_accept", "must be 0 (off) or at least 1");
}

// The sequence against the model's context, blaming the field that sets it: the prompt
// (prefill), an explicit decode context longer than prompt + output, or prompt + output.
void validate_sequence(const PlanRequest& r, const ModelSpec& m) {
  if (m.max_context == 0 || r.max_sequence() <= std::max(m.max_context, 1)) return;
  const bool prefill = r.mode == PlanMode::Prefill;
  const bool by_context = !prefill && r.context > r.prompt + r.output;
  const char* field = prefill ? "prompt" : by_context ? "context" : "prompt/output";
  const char* what = prefill ? "prompt (" : by_context ? "context (" : "prompt + output (";
  throw FieldError(field,
                   std::string(what) + std::to_string(static_cast<long long>(r.max_sequence())) +
                       " tokens) exceeds the model's context of " + std::to_string(m.max_context));
}

bool whole_count(double v) {
  return std::isfinite(v) && v >= 1 && v <= kMaxCount && v == std::floor(v);
}

// Burst and closed loop are serve workloads of whole requests; `requests` means nothing without
// a burst, `concurrency` nothing without a closed loop. Checked before the batch, which the CLI
// copies from --concurrency: a bad concurrency is blamed on its own flag.
void validate_workload(const PlanRequest& r) {
  if (r.workload != PlanWorkload::Burst)
    need(r.requests == 0, "requests", "needs {workload} burst");
  if (r.workload != PlanWorkload::Closed)
    need(r.concurrency == 0, "concurrency", "needs {workload} closed");
  if (r.workload == PlanWorkload::Steady) return;
  const std::string name(to_string(r.workload));
  need(r.mode == PlanMode::Serve, "workload", name + " is a serve workload (mode serve)");
  if (r.workload == PlanWorkload::Burst) {
    // Bounded (limits::kMaxBurstRequests): 10^15 requests never ended, one wave at a time.
    need(whole_count(r.requests) && r.requests <= limits::kMaxBurstRequests, "requests",
         "must be a whole number of requests, 1 to 100000 (docs/limits.md)");
    return;
  }
  need(whole_count(r.concurrency), "concurrency",
       "must be a whole number of requests in flight, 1 to 2^53");
  need(r.batch == r.concurrency, "batch",
       "must equal {concurrency} under {workload} closed (the requests in flight are the batch)");
}

}  // namespace

void PlanRequest::validate(const ModelSpec& m) const {
  validate_workload(*this);
  require_batch(batch, /*zero_searches=*/true);
  require_tokens(prompt, "prompt");
  require_tokens(output, "output");
  require_context(context);
  require_limit_ms(tpot_max_ms, "tpot_max_ms");
  require_limit_ms(ttft_max_ms, "ttft_max_ms");
  need(gpus >= 0, "gpus", "must not be negative");
  need(mem_util > 0 && mem_util <= 1, "mem_util", "must be in (0, 1]");
  require_tokens(prefill_chunk, "prefill_chunk");
  need(top >= 1, "top", "must be at least 1");
  for (const auto& [pin, field] :
       {std::pair{tp, "tp"}, std::pair{pp, "pp"}, std::pair{dp, "dp"}, std::pair{ep, "ep"}})
    need(!pin || *pin >= 1, field, "must be at least 1");
  need(!ep || *ep == 1 || m.is_moe(), "ep", m.name + " is not a mixture-of-experts model");
  need(!attention_dp || !*attention_dp || m.is_moe(), "attention_dp",
       "attention data parallelism is modelled for MoE models only; " + m.name + " is dense");
  validate_mtp(*this);
  validate_sequence(*this, m);
}

TboLayer tbo_layer(double compute_us, double comm_us, double comm_sm_share) {
  TboLayer t;
  const double overlap = std::min(compute_us, comm_us);
  t.time_us = std::max(compute_us + comm_sm_share * overlap, comm_us);
  t.exposed_comm_us = t.time_us - compute_us;
  t.hidden_comm_us = comm_us - t.exposed_comm_us;
  t.ramp_us = overlap / 2;
  return t;
}

double TimeBreakdown::total_us() const {
  return weights_us + kv_us + activations_us + compute_us + floors_us + launch_overhead_us +
         tp_allreduce_us + dp_gather_us + ep_alltoall_us + pp_sendrecv_us + bubble_us + queue_us;
}

TimeBreakdown& TimeBreakdown::operator+=(const TimeBreakdown& o) {
  weights_us += o.weights_us;
  kv_us += o.kv_us;
  activations_us += o.activations_us;
  compute_us += o.compute_us;
  floors_us += o.floors_us;
  launch_overhead_us += o.launch_overhead_us;
  tp_allreduce_us += o.tp_allreduce_us;
  dp_gather_us += o.dp_gather_us;
  ep_alltoall_us += o.ep_alltoall_us;
  pp_sendrecv_us += o.pp_sendrecv_us;
  bubble_us += o.bubble_us;
  pipeline_fill_us += o.pipeline_fill_us;
  comm_hidden_us += o.comm_hidden_us;
  queue_us += o.queue_us;
  return *this;
}

TimeBreakdown TimeBreakdown::scaled(double f) const {
  TimeBreakdown r;
  r.weights_us = weights_us * f;
  r.kv_us = kv_us * f;
  r.activations_us = activations_us * f;
  r.compute_us = compute_us * f;
  r.floors_us = floors_us * f;
  r.launch_overhead_us = launch_overhead_us * f;
  r.tp_allreduce_us = tp_allreduce_us * f;
  r.dp_gather_us = dp_gather_us * f;
  r.ep_alltoall_us = ep_alltoall_us * f;
  r.pp_sendrecv_us = pp_sendrecv_us * f;
  r.bubble_us = bubble_us * f;
  r.pipeline_fill_us = pipeline_fill_us * f;
  r.comm_hidden_us = comm_hidden_us * f;
  r.queue_us = queue_us * f;
  return r;
}

std::vector<std::pair<std::string, double>> terms(const TimeBreakdown& b) {
  return {{"weights", b.weights_us},
          {"kv", b.kv_us},
          {"activations", b.activations_us},
          {"compute", b.compute_us},
          {"floors", b.floors_us},
          {"launch_overhead", b.launch_overhead_us},
          {"tp_allreduce", b.tp_allreduce_us},
          {"dp_gather", b.dp_gather_us},
          {"ep_alltoall", b.ep_alltoall_us},
          {"pp_sendrecv", b.pp_sendrecv_us},
          {"bubble", b.bubble_us},
          {"queue", b.queue_us}};
}

std::string to_string(const Strategy& s) {
  std::string r =
      "tp" + std::to_string(s.tp) + " pp" + std::to_string(s.pp) + " dp" + std::to_string(s.dp);
  if (s.ep > 1) r += " ep" + std::to_string(s.ep);
  if (s.attention_dp) r += " adp";
  return r;
}

std::string label(const Strategy& s, bool moe) {
  std::string r = to_string(s);
  if (!moe || s.ep > 1) return r;
  const std::size_t adp = r.find(" adp");
  r.insert(adp == std::string::npos ? r.size() : adp, " ep" + std::to_string(s.ep));
  return r;
}

LayerTraffic layer_traffic(const ModelSpec& m, LayerType t, const Strategy& s, double tokens,
                           MoeComm comm) {
  LayerComm c = layer_comm(m, t);
  LayerTraffic r;
  r.pp_bytes = s.pp > 1 ? tokens * c.pp_bytes_per_token : 0;
  if (s.tp == 1) return r;
  if (!s.attention_dp) {
    // Megatron TP: attention output and MLP/MoE output are partial sums (all-reduce each).
    // EP inside the TP group needs nothing more: every rank holds every token after the
    // attention all-reduce and its experts' partial outputs join the MLP all-reduce.
    r.tp_allreduces = c.tp_allreduces;
    r.tp_allreduce_bytes = tokens * c.tp_allreduce_bytes_per_token;
    return r;
  }
  // Attention DP: attention is local. MoE with ep == tp dispatches each token's top-k copies
  // to the expert owners (all-to-all) and combines them back; otherwise (dense layers, or experts
  // still column-split) the MLP runs tensor-parallel on the gathered tokens: all-gather before,
  // reduce-scatter after (SGLang DP attention), which is also how MoeComm::AllGather moves an
  // EP layer's tokens (every rank gathers every token and owns a slice of the experts).
  if (t == LayerType::Moe && s.ep == s.tp && comm == MoeComm::DeepEP) {
    double per_rank = tokens / s.tp, remote = 1.0 - 1.0 / s.ep;
    r.ep_dispatch_bytes_per_rank = per_rank * c.moe_dispatch_bytes_per_token * remote;
    r.ep_combine_bytes_per_rank = per_rank * c.moe_combine_bytes_per_token * remote;
    return r;
  }
  r.dp_gather_bytes = tokens * c.tp_allreduce_bytes_per_token;
  return r;
}

}  // namespace topoplan
