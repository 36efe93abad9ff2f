// A burst workload on the best plan: waves of prefill-then-decode (include/topoplan/burst.hpp,
// docs/planner.md "Burst").
#include "topoplan/burst.hpp"

#include <algorithm>
#include <cmath>

#include "topoplan/plan.hpp"

namespace topoplan {

BurstResult burst_schedule(double requests, double prompt, double output, double concurrency,
                           double decode_steps, const std::function<double(double)>& prefill_us,
                           const std::function<double(double)>& step_us) {
  BurstResult r;
  r.requests = requests, r.prompt = prompt, r.output = output;
  r.concurrency = std::max(1.0, std::floor(concurrency));
  double t_us = 0, ttft_sum_us = 0, tpot_sum_us = 0, prefill_sum_us = 0, decode_sum_us = 0;
  // Every wave but the last admits `concurrency` requests: it is priced once, not once per
  // wave (each price is a planner evaluation; a burst has up to 10^5 waves).
  BurstWave full;
  full.requests = r.concurrency;
  full.prefill_us = -1;
  for (double left = requests; left > 0; left -= r.concurrency) {
    BurstWave w;
    w.requests = std::min(left, r.concurrency);
    w.start_us = t_us;
    if (w.requests == full.requests && full.prefill_us < 0) {
      full.prefill_us = prefill_us(full.requests);
      full.decode_step_us = step_us(full.requests);
    }
    const bool is_full = w.requests == full.requests;
    w.prefill_us = is_full ? full.prefill_us : prefill_us(w.requests);
    w.decode_step_us = is_full ? full.decode_step_us : step_us(w.requests);
    w.decode_us = decode_steps * w.decode_step_us;
    const double n = w.requests;
    // Σ_q (start + F·q/n) over q = 1..n = n·start + F·(n + 1)/2.
    ttft_sum_us += n * w.start_us + w.prefill_us * (n + 1) / 2;
    // Each request finishes at start + F + D: Σ_q (F + D − F·q/n) = n(F + D) − F(n + 1)/2.
    tpot_sum_us += n * (w.prefill_us + w.decode_us) - w.prefill_us * (n + 1) / 2;
    r.max_ttft_ms = (w.start_us + w.prefill_us) * 1e-3;
    prefill_sum_us += w.prefill_us;
    decode_sum_us += w.decode_us;
    t_us += w.prefill_us + w.decode_us;
    r.waves.push_back(w);
  }
  r.prefill_s = prefill_sum_us * 1e-6;
  r.decode_s = decode_sum_us * 1e-6;
  r.makespan_s = t_us * 1e-6;
  if (r.makespan_s > 0) {
    r.output_tokens_per_s = requests * output / r.makespan_s;
    r.total_tokens_per_s = requests * (prompt + output) / r.makespan_s;
  }
  r.mean_ttft_ms = ttft_sum_us / requests * 1e-3;
  r.mean_tpot_ms = output > 1 ? tpot_sum_us / requests / (output - 1) * 1e-3 : 0;
  return r;
}

std::optional<BurstResult> burst_workload(const Planner& planner, const PlanResult& plan,
                                          const PlanRequest& req) {
  if (!plan.fits || !(plan.max_batch >= 1) || !(req.requests >= 1)) return std::nullopt;
  const Strategy& s = plan.strategy;
  const PlacementOrder order = req.order;
  const double context = req.decode_context();
  return burst_schedule(
      req.requests, req.prompt, req.output, plan.max_batch,
      (req.output - 1) / req.tokens_per_step(),
      [&](double n) { return planner.prefill(s, n, req.prompt, order).total_us(); },
      [&](double n) { return planner.decode_step(s, n, context, order).total_us(); });
}

}  // namespace topoplan
