// The search: every strategy evaluated, ranked by the mode's objective, the Pareto front over
// all (strategy, batch) points, the best plan's placement, a bad placement for contrast and the
// sentence on why the best plan beats the runner-up.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "plan/planner_impl.hpp"
#include "topoplan/error.hpp"
#include "topoplan/units.hpp"

namespace topoplan {

namespace {

// True when a ranks before b.
bool better(const PlanResult& a, const PlanResult& b, PlanMode mode) {
  if (a.fits != b.fits) return a.fits;
  if (!a.fits) return false;
  if (a.meets_limits != b.meets_limits) return a.meets_limits;
  switch (mode) {
    case PlanMode::Serve:
      if (a.tokens_per_s_per_gpu != b.tokens_per_s_per_gpu)
        return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
      break;
    case PlanMode::Decode:
      if (a.tpot_ms != b.tpot_ms) return a.tpot_ms < b.tpot_ms;
      break;
    case PlanMode::Prefill:
      if (a.ttft_ms != b.ttft_ms) return a.ttft_ms < b.ttft_ms;
      break;
  }
  return a.tpot_ms < b.tpot_ms;
}

std::vector<ParetoPoint> pareto_front(std::vector<ParetoPoint> pts) {
  // Highest per-user speed first; keep a point only if it beats every faster one on per-GPU.
  std::sort(pts.begin(), pts.end(), [](const ParetoPoint& a, const ParetoPoint& b) {
    if (a.tokens_per_s_per_user != b.tokens_per_s_per_user)
      return a.tokens_per_s_per_user > b.tokens_per_s_per_user;
    return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
  });
  std::vector<ParetoPoint> front;
  double best_gpu = -1;
  for (const ParetoPoint& p : pts) {
    if (p.tokens_per_s_per_gpu > best_gpu) {
      front.push_back(p);
      best_gpu = p.tokens_per_s_per_gpu;
    }
  }
  return front;
}

std::string num(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

// What the objective compares, as a breakdown: serve compares GPU·µs per output token of the
// decode step; decode the step; prefill the TTFT.
TimeBreakdown compared(const PlanResult& p, PlanMode mode, double tokens_per_step) {
  if (mode == PlanMode::Prefill) return p.prefill;
  if (mode == PlanMode::Decode) return p.decode;
  return p.decode.scaled(p.strategy.gpus() / std::max(1.0, p.batch * tokens_per_step));
}

std::string explain(const PlanResult& best, const PlanResult& next, PlanMode mode,
                    double tokens_per_step, bool moe) {
  TimeBreakdown a = compared(best, mode, tokens_per_step),
                b = compared(next, mode, tokens_per_step);
  auto ta = terms(a), tb = terms(b);
  std::size_t k = 0;
  for (std::size_t i = 1; i < ta.size(); ++i)
    if (tb[i].second - ta[i].second > tb[k].second - ta[k].second) k = i;
  std::string unit = mode == PlanMode::Serve ? " GPU·µs per output token" : " µs";
  const double ratio = mode == PlanMode::Serve
                           ? best.tokens_per_s_per_gpu / next.tokens_per_s_per_gpu
                       : mode == PlanMode::Decode ? next.tpot_ms / best.tpot_ms
                                                  : next.ttft_ms / best.ttft_ms;
  const char* metric = mode == PlanMode::Serve    ? " in output tokens/s per GPU"
                       : mode == PlanMode::Decode ? " in TPOT"
                                                  : " in TTFT";
  std::string s = label(best.strategy, moe);
  // Within half a percent the order is the enumeration's, not a win: say it is a tie.
  if (ratio < 1.005)
    s += " ties with the runner-up " + label(next.strategy, moe) + metric + " (within 0.5%)";
  else
    s += " beats the runner-up " + label(next.strategy, moe) + " by " + num("%.2f", ratio) + "x" +
         metric;
  s += ". The biggest difference is " + ta[k].first + ": " + num("%.1f", ta[k].second) + " vs " +
       num("%.1f", tb[k].second) + unit + ".";
  // Explanation text only, no model figure: mention the batch when it is clearly (over 1.5x)
  // larger.
  // Credit the KV cache only when it is the cache that differs (max_batch), not the limits.
  if (mode == PlanMode::Serve && best.max_batch > 1.5 * next.max_batch)
    s += " Its KV cache holds more sequences (" + num("%.0f", best.max_batch) + " vs " +
         num("%.0f", next.max_batch) + "), spreading each weight read over more tokens.";
  else if (mode == PlanMode::Serve && best.batch > 1.5 * next.batch)
    s += " It runs a larger batch within the limits (" + num("%.0f", best.batch) + " vs " +
         num("%.0f", next.batch) + "), spreading each weight read over more tokens.";
  return s;
}

// The unfit plan closest to fitting: the most KV room left (its memory was priced), else the
// first; the hint follows what binds.
// Whether the model's weights are already 8-bit or narrower (then --precision fp8 is no hint).
bool low_precision(const ModelSpec& m) {
  return element_bytes(m.dtypes.weights.dtype) <= 1;
}

void explain_no_fit(PlanOutput& out, const ModelSpec& model) {
  const PlanResult* closest = &out.plans.front();
  for (const PlanResult& p : out.plans)
    if (p.memory.capacity_bytes > 0 &&
        (closest->memory.capacity_bytes <= 0 ||
         p.memory.kv_capacity_bytes > closest->memory.kv_capacity_bytes))
      closest = &p;
  const std::string& why = closest->reason;
  std::string hint = "try a smaller --batch or --prompt/--output, more GPUs (--nodes N)";
  hint += low_precision(model)
              ? " or an FP8 KV cache (--kv-dtype fp8)"
              : ", FP8 weights (--precision fp8) or an FP8 KV cache (--kv-dtype fp8)";
  const MemoryPerGpu& mem = closest->memory;
  // When the weights alone do not fit, no batch, prompt or KV format helps: only more GPUs or
  // narrower weights do.
  if (mem.capacity_bytes > 0 && mem.weights_bytes > mem.capacity_bytes - mem.reserve_bytes)
    hint = "the weights alone need " + format_GiB(mem.weights_bytes) + " per GPU of " +
           format_GiB(mem.capacity_bytes - mem.reserve_bytes) +
           " usable: add GPUs (--nodes N, or a larger --gpus)" +
           (low_precision(model) ? "" : " or use narrower weights (--precision fp8)");
  if (why.find("path class") != std::string::npos)
    hint = "allow a worse --max-tp-class, or pin a smaller --tp";
  else if (why.find("divisible") != std::string::npos)
    hint = "pin other --tp/--pp/--ep values (they must divide the model's heads and layers)";
  out.status = "no_plan_fits";
  out.status_message = "No plan fits: " + std::to_string(out.plans.size()) +
                       (out.plans.size() == 1 ? " strategy" : " strategies") +
                       " tried; the closest, " + to_string(closest->strategy) + ", fails because " +
                       why + ". Hint: " + hint + ".";
}

void explain_limits(PlanOutput& out, const PlanRequest& r, const ModelSpec& model) {
  const PlanResult& b = out.plans.front();
  std::string s = "No plan meets the limits: the best, " + label(b.strategy, model.is_moe()) +
                  " at batch " + num("%.0f", b.batch) + ", runs";
  if (r.tpot_max_ms > 0)
    s += " TPOT " + num("%.2f", b.tpot_ms) + " ms (limit " + num("%g", r.tpot_max_ms) + ")";
  if (r.ttft_max_ms > 0)
    s += std::string(r.tpot_max_ms > 0 ? " and" : "") + " TTFT " + num("%.1f", b.ttft_ms) +
         " ms (limit " + num("%g", r.ttft_max_ms) + ")";
  out.status = "no_plan_meets_limits";
  out.status_message =
      s + ". Hint: relax the limit, add GPUs (--nodes N), " +
      (low_precision(model) ? "or use speculative decoding (--mtp-accept)."
                            : "use FP8 weights (--precision fp8) or speculative decoding "
                              "(--mtp-accept).");
}

}  // namespace

Planner::Planner(const ModelSpec& model, const Router& router, PlanRequest request)
    : Planner(model, router, std::move(request), SearchOptions{}) {}
Planner::Planner(const ModelSpec& model, const Router& router, PlanRequest request,
                 SearchOptions search)
    : impl_((request.validate(model),  // by field, before anything is built from it
             std::make_unique<Impl>(model, router, std::move(request), std::move(search)))) {}
Planner::~Planner() = default;
Planner::Planner(Planner&&) noexcept = default;
Planner& Planner::operator=(Planner&&) noexcept = default;

PlanOutput Planner::run() const {
  return impl_->run();
}

PlanOutput Planner::Impl::run() const {
  const Impl& x = *this;
  PlanOutput out;
  out.model = x.model.name;
  out.moe = x.model.is_moe();
  out.topology = x.router->topology().name;
  out.gpu = x.gpu.name;
  out.gpus = x.gpus;
  out.topology_gpus = static_cast<int>(x.router->topology().gpus().size());
  out.request = x.req;
  out.context = x.req.decode_context();
  out.precision_notes = x.precision_notes;
  if (std::string note = assumed_figures_note(x.gpu); !note.empty())
    out.catalog_notes.push_back(std::move(note));
  out.weight_format = describe_gemm_formats(x.model);
  out.kv_dtype = std::string(to_string(x.model.dtypes.kv_cache));
  std::vector<ParetoPoint> all;
  std::vector<Strategy> strategies = enumerate_strategies(x.model, x.gpus, x.req);
  if (strategies.empty())
    throw FieldError("tp/pp/dp/ep",
                     "no strategy of " + std::to_string(x.gpus) +
                         " GPUs matches the pins (tp x pp x dp must equal the GPU count, ep "
                         "must divide tp)");
  out.threads = x.thread_count(strategies.size());
  const bool limited = x.req.tpot_max_ms > 0 || x.req.ttft_max_ms > 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (Impl::Evaluated& e : x.evaluate_all(strategies, out.threads)) {
    for (const BatchPoint& p : e.points)
      if (!limited || p.meets_limits)
        all.push_back({e.result.strategy, p.batch, p.tpot_ms, p.tokens_per_s_per_gpu,
                       p.tokens_per_s_per_user});
    out.plans.push_back(std::move(e.result));
  }
  out.search_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.strategies_evaluated = static_cast<int>(out.plans.size());
  std::stable_sort(
      out.plans.begin(), out.plans.end(),
      [&](const PlanResult& a, const PlanResult& b) { return better(a, b, x.req.mode); });
  out.pareto = pareto_front(std::move(all));
  if (out.plans.empty()) return out;
  if (!out.plans.front().fits) {
    explain_no_fit(out, x.model);
    return out;
  }
  PlanResult& best = out.plans.front();
  if (!best.meets_limits) explain_limits(out, x.req, x.model);
  if (x.req.mode == PlanMode::Serve && x.req.batch <= 0 && x.req.tpot_max_ms <= 0 &&
      x.req.ttft_max_ms <= 0)
    out.objective_note =
        "No latency limit: this plan maximises output tokens/s per GPU and runs at " +
        num("%.1f", best.tokens_per_s_per_user) +
        " tokens/s per user. Set an SLA, e.g. --tpot-max 50 (20 tokens/s/user) "
        "and --ttft-max 2000, to trade throughput for interactivity.";
  // Placements are moved out of the placer, not copied: on 100,000 GPUs each is 10 MB of ranks.
  // Without rank lists a large one is kept as runs and freed before the next is built.
  const auto as_runs = [&](const Strategy& s) {
    return !x.req.rank_lists && static_cast<std::size_t>(s.gpus()) > kPlacementListRanks;
  };
  for (std::size_t i = 0; i < out.plans.size() && i < static_cast<std::size_t>(x.req.top); ++i) {
    PlanResult& p = out.plans[i];
    if (!p.fits) continue;
    p.groups = x.summarize(x.placer.place(p.strategy, x.req.order));
    if (i == 0) continue;  // the best plan's is out.placement's, below
    Placement taken = x.placer.take(p.strategy, x.req.order);
    if (as_runs(p.strategy))
      p.placement_runs = placement_runs(taken.ranks);
    else
      p.placement = std::move(taken.ranks);
  }
  out.placement = x.placer.take(best.strategy, x.req.order);
  if (x.req.top > 0 && as_runs(best.strategy))
    best.placement_runs = placement_runs(out.placement->ranks);
  else if (x.req.top > 0)
    best.placement = out.placement->ranks;
  if (out.plans.size() > 1 && out.plans[1].fits)
    out.explanation =
        explain(best, out.plans[1], x.req.mode, x.req.tokens_per_step(), x.model.is_moe());
  PlacementOrder bad =
      x.req.order == PlacementOrder::DpPpTp ? PlacementOrder::TpPpDp : PlacementOrder::DpPpTp;
  out.bad_order = std::string(to_string(bad));
  out.bad_placement = x.evaluate(best.strategy, best.batch, bad, nullptr);
  return out;
}

PlanOutput plan(const ModelSpec& model, const Router& router, const PlanRequest& request) {
  return Planner(model, router, request).run();
}

PlanOutput plan(const ModelSpec& model, const Router& router, const PlanRequest& request,
                const SearchOptions& search) {
  return Planner(model, router, request, search).run();
}

double PlanOutput::evaluations_per_s_per_core() const {
  return search_seconds > 0 ? strategies_evaluated / (search_seconds * std::max(1, threads)) : 0;
}

}  // namespace topoplan
