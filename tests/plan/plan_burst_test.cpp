// The burst schedule (include/topoplan/burst.hpp): each term by hand on made-up phase prices,
// then identities and monotonicity on a real plan.
#include <doctest/doctest.h>

#include <cmath>

#include "plan/plan_test_util.hpp"
#include "topoplan/burst.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

namespace {

// Prefill 10 ms per prompt, decode step 1 ms + 0.1 ms per sequence (µs in, like the planner).
double fill_us(double n) {
  return 10'000 * n;
}
double step_us(double n) {
  return 1'000 + 100 * n;
}

}  // namespace

TEST_CASE("burst_schedule: 5 requests, 2 at a time, every term by hand") {
  // prompt 100, output 11: 10 decode steps after the first token. Waves of 2, 2, 1.
  // Wave 1: start 0,      F = 20 ms, step 1.2 ms, D = 12 ms, ends 32 ms.
  // Wave 2: start 32 ms,  F = 20 ms, D = 12 ms, ends 64 ms.
  // Wave 3: start 64 ms,  F = 10 ms, step 1.1 ms, D = 11 ms, ends 85 ms.
  const BurstResult r = burst_schedule(5, 100, 11, 2, 10, fill_us, step_us);
  REQUIRE(r.waves.size() == 3);
  CHECK(r.concurrency == 2);
  CHECK(r.waves[1].start_us == doctest::Approx(32'000));
  CHECK(r.waves[2].requests == 1);
  CHECK(r.waves[2].decode_step_us == doctest::Approx(1'100));
  CHECK(r.prefill_s == doctest::Approx(0.050));  // 20 + 20 + 10 ms
  CHECK(r.decode_s == doctest::Approx(0.035));   // 12 + 12 + 11 ms
  CHECK(r.makespan_s == doctest::Approx(0.085));
  // First tokens: wave 1 at 10, 20; wave 2 at 42, 52; wave 3 at 74 ms. Mean 198 / 5.
  CHECK(r.mean_ttft_ms == doctest::Approx(39.6));
  CHECK(r.max_ttft_ms == doctest::Approx(74));
  // (finish − first token) / 10: wave 1 (32−10, 32−20), wave 2 (64−42, 64−52), wave 3 (85−74):
  // 22, 12, 22, 12, 11 ms → mean 15.8 ms / 10 = 1.58 ms.
  CHECK(r.mean_tpot_ms == doctest::Approx(1.58));
  CHECK(r.output_tokens_per_s == doctest::Approx(5 * 11 / 0.085));
  CHECK(r.total_tokens_per_s == doctest::Approx(5 * 111 / 0.085));
}

TEST_CASE("burst_schedule: one wave when everything fits, output 1 has no TPOT") {
  const BurstResult one = burst_schedule(3, 100, 11, 8, 10, fill_us, step_us);
  REQUIRE(one.waves.size() == 1);
  // F = 30 ms, D = 10 × 1.3 = 13 ms; first tokens 10, 20, 30 ms.
  CHECK(one.makespan_s == doctest::Approx(0.043));
  CHECK(one.mean_ttft_ms == doctest::Approx(20));
  // (43 − 10, 43 − 20, 43 − 30) / 10 → mean 23 / 10 ms.
  CHECK(one.mean_tpot_ms == doctest::Approx(2.3));
  const BurstResult no_decode = burst_schedule(3, 100, 1, 8, 0, fill_us, step_us);
  CHECK(no_decode.mean_tpot_ms == 0);
  CHECK(no_decode.decode_s == 0);
  CHECK(no_decode.makespan_s == doctest::Approx(0.030));
}

TEST_CASE("burst_schedule: the full waves are priced once, whatever their number") {
  int prefills = 0, steps = 0;
  const auto fill = [&](double n) { return ++prefills, fill_us(n); };
  const auto step = [&](double n) { return ++steps, step_us(n); };
  // 10^6 requests, 3 at a time: 333,333 full waves and one of 1, two prices each.
  const BurstResult r = burst_schedule(1e6, 100, 11, 3, 10, fill, step);
  CHECK(r.waves.size() == 333'334);
  CHECK(prefills == 2);
  CHECK(steps == 2);
  // Every full wave takes F = 30 ms + D = 10 × 1.3 ms = 43 ms, the last 10 + 11 ms.
  CHECK(r.makespan_s == doctest::Approx(333'333 * 0.043 + 0.021));
  CHECK(r.waves.back().requests == 1);
}

TEST_CASE("burst_schedule: a fractional KV capacity admits whole sequences only") {
  const BurstResult r = burst_schedule(4, 100, 11, 2.7, 10, fill_us, step_us);
  CHECK(r.concurrency == 2);
  CHECK(r.waves.size() == 2);
}

TEST_CASE("burst on DeepSeek-R1 TP8 on 8xH200: identities against the planner's own phases") {
  Machine h200("hgx-h200-8");
  const ModelSpec m = load_model("deepseek-r1");
  PlanRequest req;
  req.tp = 8, req.ep = 1, req.attention_dp = false;
  req.prompt = 4000, req.output = 200;
  req.workload = PlanWorkload::Burst;
  req.requests = 500;
  req.validate(m);
  const PlanOutput out = plan(m, *h200.router, req);
  REQUIRE(!out.plans.empty());
  const PlanResult& best = out.plans.front();
  REQUIRE(best.fits);
  Planner p(m, *h200.router, req);
  const auto b = burst_workload(p, best, req);
  REQUIRE(b.has_value());
  // Waves of max_batch: ceil(500 / W), the last one the remainder.
  const double w = std::floor(best.max_batch);
  CHECK(b->concurrency == w);
  CHECK(b->waves.size() == static_cast<std::size_t>(std::ceil(500 / w)));
  CHECK(b->waves.back().requests ==
        doctest::Approx(500 - w * static_cast<double>(b->waves.size() - 1)));
  // Each full wave's prefill is the planner's prefill of w prompts; its decode 199 steps.
  const double f = p.prefill(best.strategy, w, 4000, req.order).total_us();
  const double s = p.decode_step(best.strategy, w, req.decode_context(), req.order).total_us();
  CHECK(b->waves[0].prefill_us == doctest::Approx(f));
  CHECK(b->waves[0].decode_us == doctest::Approx(199 * s));
  CHECK(b->makespan_s == doctest::Approx(b->prefill_s + b->decode_s));
  CHECK(b->total_tokens_per_s == doctest::Approx(500 * 4200 / b->makespan_s));
  // A stalled request's TPOT is above the bare step: prefill of later prompts is in it.
  CHECK(b->mean_tpot_ms > s * 1e-3);
  // The steady serve cycle prefills and decodes the same work once per batch, so the burst's
  // throughput is at most the steady one plus the partial last wave's gain (within 10%).
  const double steady_total = best.tokens_per_s * 4200 / 200;
  CHECK(b->total_tokens_per_s < 1.1 * steady_total);
  // Monotone: more requests never take less time; they never raise the first request's TTFT.
  PlanRequest more = req;
  more.requests = 1000;
  const auto b2 = burst_workload(p, best, more);
  REQUIRE(b2.has_value());
  CHECK(b2->makespan_s > b->makespan_s);
  CHECK(b2->mean_ttft_ms > b->mean_ttft_ms);
}

TEST_CASE("burst requests are validated by field") {
  const ModelSpec m = load_model("llama-3-8b");
  PlanRequest r;
  r.requests = 10;  // without --workload burst
  CHECK_THROWS_AS(r.validate(m), FieldError);
  r.workload = PlanWorkload::Burst;
  r.validate(m);
  r.requests = 0.5;
  CHECK_THROWS_AS(r.validate(m), FieldError);
  r.requests = 0;
  CHECK_THROWS_AS(r.validate(m), FieldError);
  // Bounded at limits::kMaxBurstRequests (10^5): 10^15 requests never ended.
  r.requests = 1e5;
  r.validate(m);
  r.requests = 1e5 + 1;
  CHECK_THROWS_WITH_AS(r.validate(m),
                       "requests: must be a whole number of requests, 1 to 100000 (docs/limits.md)",
                       FieldError);
  r.requests = 10;
  r.mode = PlanMode::Decode;
  CHECK_THROWS_AS(r.validate(m), FieldError);
  CHECK(parse_plan_workload("burst") == PlanWorkload::Burst);
  CHECK_THROWS_AS(parse_plan_workload("bursty"), UnknownNameError);
}

TEST_CASE("closed loop at fixed concurrency: every term by hand") {
  // c = 4 slots, output 11 tokens (10 decode steps), one prompt's prefill 20 ms, step 5 ms.
  // Cycle = 10 × 5 + 4 × 20 = 130 ms for 4 requests: 4 × 11 / 0.130 s = 338.46 tok/s.
  // TPOT: the request's 10 steps plus the 3 other slots' prefills, over 10 intervals:
  // (50 + 60) / 10 = 11 ms. TTFT: its prefill after half the running step: 20 + 2.5 = 22.5 ms.
  const ClosedLoopResult r = closed_loop_schedule(4, 11, 10, 20'000, 5'000);
  CHECK(r.cycle_us == doctest::Approx(130'000));
  CHECK(r.output_tokens_per_s == doctest::Approx(4 * 11 / 0.130));
  CHECK(r.mean_tpot_ms == doctest::Approx(11.0));
  CHECK(r.mean_ttft_ms == doctest::Approx(22.5));
  // One slot: nothing else stalls its decode, TPOT is the bare step.
  CHECK(closed_loop_schedule(1, 11, 10, 20'000, 5'000).mean_tpot_ms == doctest::Approx(5.0));
  // Free prefill: throughput c / step per token, TPOT the step.
  const ClosedLoopResult f = closed_loop_schedule(4, 11, 10, 0, 5'000);
  CHECK(f.output_tokens_per_s == doctest::Approx(4 * 11 / 0.050));
  CHECK(f.mean_tpot_ms == doctest::Approx(5.0));
  // Identity: c × output tokens per cycle, and TPOT grows with c at a fixed step.
  CHECK(r.output_tokens_per_s * r.cycle_us * 1e-6 == doctest::Approx(4 * 11));
  CHECK(closed_loop_schedule(8, 11, 10, 20'000, 5'000).mean_tpot_ms > r.mean_tpot_ms);
  CHECK(closed_loop_schedule(4, 1, 0, 20'000, 5'000).mean_tpot_ms == 0);
}

TEST_CASE("closed loop on a plan: the planner's one-prompt prefill and decode step") {
  Machine m("hgx-h100-8");
  PlanRequest r;
  r.mode = PlanMode::Serve;
  r.prompt = 512;
  r.output = 128;
  const ModelSpec spec = load_model("llama-3-8b");
  Planner planner(spec, *m.router, r);
  const PlanResult p = planner.evaluate(strat(1, 1, 8), 64);
  const auto c = closed_loop_workload(planner, p, r);
  REQUIRE(c.has_value());
  CHECK(c->concurrency == doctest::Approx(8));  // 64 over 8 replicas
  CHECK(c->prefill_one_us ==
        doctest::Approx(planner.prefill(p.strategy, 8, 512, r.order).total_us()));
  CHECK(
      c->step_us ==
      doctest::Approx(planner.decode_step(p.strategy, 64, r.decode_context(), r.order).total_us()));
  // Staggered single prefills stall the others, so TPOT exceeds the bare step.
  CHECK(c->mean_tpot_ms > p.tpot_ms);
}

TEST_CASE("closed loop on a plan: whole-plan figures are the replica's times the replicas") {
  // llama-3-8b dp8 at 64 in flight: 8 per replica. Whole plan = 8 replicas; total tokens carry
  // the prompt too: × (512 + 128) / 128 = × 5; per GPU ÷ 8 GPUs.
  Machine m("hgx-h100-8");
  PlanRequest r;
  r.prompt = 512;
  r.output = 128;
  Planner planner(load_model("llama-3-8b"), *m.router, r);
  const PlanResult p = planner.evaluate(strat(1, 1, 8), 64);
  const auto c = closed_loop_workload(planner, p, r);
  REQUIRE(c.has_value());
  CHECK(c->replicas == 8);
  CHECK(c->plan_concurrency == 64);
  CHECK(c->plan_output_tokens_per_s == doctest::Approx(8 * c->output_tokens_per_s));
  CHECK(c->plan_total_tokens_per_s == doctest::Approx(5 * c->plan_output_tokens_per_s));
  CHECK(c->output_tokens_per_s_per_gpu == doctest::Approx(c->plan_output_tokens_per_s / 8));
  CHECK(c->total_tokens_per_s_per_gpu == doctest::Approx(c->plan_total_tokens_per_s / 8));
  // Each replica runs 8 slots: per replica c × output per cycle.
  CHECK(c->output_tokens_per_s * c->cycle_us * 1e-6 == doctest::Approx(8 * 128));
}

TEST_CASE("closed-loop concurrency is validated by field, before the batch it sets") {
  const ModelSpec m = load_model("llama-3-8b");
  auto field_of = [&m](const PlanRequest& r) {
    try {
      r.validate(m);
    } catch (const FieldError& e) {
      return std::string(e.field());
    }
    return std::string("none");
  };
  PlanRequest r;
  r.concurrency = 8;  // without --workload closed
  CHECK(field_of(r) == "concurrency");
  r.workload = PlanWorkload::Burst;
  r.requests = 5;
  CHECK(field_of(r) == "concurrency");
  r.requests = 0;
  r.workload = PlanWorkload::Closed;
  CHECK(field_of(r) == "batch");  // batch 0 is not the 8 in flight
  r.batch = 8;
  CHECK(field_of(r) == "none");
  for (double bad : {0.0, -1.0, 2.5, std::nan(""), HUGE_VAL, 1e19}) {
    CAPTURE(bad);
    r.concurrency = r.batch = bad;  // as the CLI copies it: blamed on the concurrency
    CHECK(field_of(r) == "concurrency");
  }
  r.concurrency = r.batch = 8;
  r.requests = 3;
  CHECK(field_of(r) == "requests");
  r.requests = 0;
  r.mode = PlanMode::Decode;
  CHECK(field_of(r) == "workload");
  CHECK(parse_plan_workload("closed") == PlanWorkload::Closed);
  CHECK(to_string(PlanWorkload::Closed) == "closed");
}
