// A burst of requests arriving together at a serving engine that runs prefill before decode
// (SGLang's default scheduler: a new prefill batch whenever one can be formed, decode only when
// the queue is empty or the KV cache is full; no mixed chunks). docs/planner.md, "Burst".
//
// Mechanism: the engine admits requests while their KV cache fits (at most `concurrency`
// sequences of prompt + output tokens), prefills all admitted prompts one chunk after another
// with decode stalled, then decodes them together until they finish, then admits the next
// `concurrency` from the queue: a burst of N requests runs in ceil(N / concurrency) waves.
// Units: µs inside the library, s and ms in the result (as benchmarks report them).
#pragma once

#include <functional>
#include <vector>

namespace topoplan {

struct BurstWave {
  double requests = 0;        // sequences admitted together
  double start_us = 0;        // when its first prefill chunk starts
  double prefill_us = 0;      // all of its prompts, chunk after chunk (decode stalled)
  double decode_us = 0;       // decode steps after the last prompt's first token
  double decode_step_us = 0;  // one step at `requests` sequences
};

struct BurstResult {
  double requests = 0, prompt = 0, output = 0;
  double concurrency = 0;  // sequences the KV cache admits at once (the wave size)
  std::vector<BurstWave> waves;
  double prefill_s = 0, decode_s = 0;  // makespan = prefill_s + decode_s
  double makespan_s = 0;
  double output_tokens_per_s = 0;  // requests × output / makespan
  double total_tokens_per_s = 0;   // requests × (prompt + output) / makespan
  double mean_ttft_ms = 0, max_ttft_ms = 0;
  // (finish − first token) / (output − 1) averaged over requests, as vLLM/SGLang bench report
  // it; 0 when output is 1.
  double mean_tpot_ms = 0;
};

// The schedule above, for any pricing of its two phases: `prefill_us(n)` = time to prefill n
// prompts arriving together, `step_us(n)` = one decode step at n sequences. `decode_steps`:
// steps after the first token (output − 1, ÷ accepted tokens per step with speculation).
// Within a wave prompts are prefilled in order, so the q-th (1-based) of n has its first token
// after q/n of the wave's prefill. Preconditions: requests ≥ 1, concurrency ≥ 1, output ≥ 1.
BurstResult burst_schedule(double requests, double prompt, double output, double concurrency,
                           double decode_steps, const std::function<double(double)>& prefill_us,
                           const std::function<double(double)>& step_us);

}  // namespace topoplan
