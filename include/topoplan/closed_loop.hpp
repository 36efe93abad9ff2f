// A closed-loop benchmark at fixed concurrency (`bench_serving --max-concurrency c`, InferenceX):
// each finished request is replaced by a new one at once, on an engine that runs a waiting
// prefill before the next decode step (SGLang's default scheduler, docs/planner.md "Closed
// loop"). Once output lengths have spread the requests out (random lengths), arrivals are
// staggered: each new prompt is prefilled alone, and that forward pass stalls the decode of the
// c − 1 others.
//
// Per slot, one cycle is its own prefill plus D decode steps, and while a request decodes the
// other c − 1 slots each prefill once, so per replica
//   cycle  C = D · step(c) + c · T_p            (the engine's time per c requests)
//   output tokens/s = c · output / C
//   mean TPOT = (D · step(c) + (c − 1) · T_p) / (output − 1)   (bench: (finish − first) / (O − 1))
//   mean TTFT = T_p + step(c) / 2                 (the step in progress, then its prefill)
// with T_p the prefill of one prompt, D = (output − 1) / accepted tokens per step.
// Units: µs in, ms and tokens/s out.
#pragma once

namespace topoplan {

struct ClosedLoopResult {
  double concurrency = 0, output = 0;  // per replica
  double cycle_us = 0;
  double prefill_one_us = 0, step_us = 0;
  double output_tokens_per_s = 0;  // per replica
  double mean_tpot_ms = 0;         // 0 when output is 1
  double mean_ttft_ms = 0;
  // Whole plan, set by closed_loop_workload (plan.hpp); closed_loop_schedule leaves one replica.
  double replicas = 1, gpus = 1;
  double plan_concurrency = 0;          // concurrency × replicas: the requests in flight
  double plan_output_tokens_per_s = 0;  // output_tokens_per_s × replicas
  // (prompt + output) tokens per request over the same cycle: bench_serving's "total".
  double plan_total_tokens_per_s = 0;
  double output_tokens_per_s_per_gpu = 0, total_tokens_per_s_per_gpu = 0;
};

// Preconditions: concurrency ≥ 1, output ≥ 1, decode_steps ≥ 0, both times ≥ 0.
ClosedLoopResult closed_loop_schedule(double concurrency, double output, double decode_steps,
                                      double prefill_one_us, double step_us);

}  // namespace topoplan
