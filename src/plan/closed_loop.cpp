// Closed-loop serving at fixed concurrency (include/topoplan/closed_loop.hpp, docs/planner.md
// "Closed loop"), and its pricing on a plan.
#include "topoplan/closed_loop.hpp"

#include "topoplan/plan.hpp"

namespace topoplan {

ClosedLoopResult closed_loop_schedule(double concurrency, double output, double decode_steps,
                                      double prefill_one_us, double step_us) {
  ClosedLoopResult r;
  r.concurrency = concurrency, r.output = output;
  r.prefill_one_us = prefill_one_us, r.step_us = step_us;
  const double decode_us = decode_steps * step_us;
  r.cycle_us = decode_us + concurrency * prefill_one_us;
  if (r.cycle_us > 0) r.output_tokens_per_s = concurrency * output / (r.cycle_us * 1e-6);
  // The others' prefills inside one request's decode: c − 1 (one per other slot and cycle).
  if (output > 1)
    r.mean_tpot_ms = (decode_us + (concurrency - 1) * prefill_one_us) / (output - 1) * 1e-3;
  r.mean_ttft_ms = (prefill_one_us + step_us / 2) * 1e-3;
  return r;
}

std::optional<ClosedLoopResult> closed_loop_workload(const Planner& planner, const PlanResult& plan,
                                                     const PlanRequest& req) {
  if (!plan.fits || !(plan.batch >= 1)) return std::nullopt;
  const Strategy& s = plan.strategy;
  const double replicas = s.dp;
  // One new prompt on each replica (Planner::prefill takes the prompts of all replicas).
  const double t_p = planner.prefill(s, replicas, req.prompt, req.order).total_us();
  const double step =
      planner.decode_step(s, plan.batch, req.decode_context(), req.order).total_us();
  ClosedLoopResult r = closed_loop_schedule(plan.batch / replicas, req.output,
                                            (req.output - 1) / req.tokens_per_step(), t_p, step);
  r.replicas = replicas;
  r.gpus = s.gpus();
  r.plan_concurrency = plan.batch;
  r.plan_output_tokens_per_s = r.output_tokens_per_s * replicas;
  // Each request also brings its prompt within the cycle that produces its output.
  r.plan_total_tokens_per_s = r.plan_output_tokens_per_s * (req.prompt + req.output) / req.output;
  r.output_tokens_per_s_per_gpu = r.plan_output_tokens_per_s / r.gpus;
  r.total_tokens_per_s_per_gpu = r.plan_total_tokens_per_s / r.gpus;
  return r;
}

}  // namespace topoplan
