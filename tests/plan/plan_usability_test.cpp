// Issue 10's planner semantics: pins on part of a server, the precision notes.
#include <doctest/doctest.h>

#include "plan/plan_test_util.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using topoplan::test::Machine;

TEST_CASE("pins whose product is smaller than the topology plan on that many GPUs") {
  Machine h100("hgx-h100-8");
  for (PlanMode mode : {PlanMode::Serve, PlanMode::Decode, PlanMode::Prefill}) {
    PlanRequest r;
    r.mode = mode;
    r.tp = 4;
    r.pp = 1;
    r.dp = 1;
    PlanOutput out = plan(load_model("llama-3-8b"), *h100.router, r);
    CHECK(out.gpus == 4);  // tp 4 x pp 1 x dp 1
    CHECK(out.topology_gpus == 8);
    REQUIRE(out.plans.size() == 1);
    CHECK(out.plans.front().fits);
    REQUIRE(out.placement);
    // tp-pp-dp order takes the first four GPUs of the topology.
    REQUIRE(out.placement->ranks.size() == 4);
    CHECK(out.placement->ranks[0].device_id == "gpu0");
    CHECK(out.placement->ranks[3].device_id == "gpu3");
  }
  // Only tp pinned: the rest of the server is dp (tp 4 x dp 2 or tp 4 x pp 2).
  PlanRequest r;
  r.tp = 4;
  CHECK(plan(load_model("llama-3-8b"), *h100.router, r).gpus == 8);
  // More GPUs pinned than the topology has: refused by name.
  r.pp = 1;
  r.dp = 4;
  CHECK_THROWS_WITH_AS(plan(load_model("llama-3-8b"), *h100.router, r),
                       doctest::Contains("16 GPUs asked"), InputError);
}

TEST_CASE("FP8 weights on an A100 server: the plan notes weight-only pricing") {
  Machine a100("dgx-a100-8");
  ModelSpec m = load_model("llama-3-8b");
  apply_precision(m, "fp8");
  PlanRequest r;
  r.mode = PlanMode::Decode;
  r.tp = 8;
  PlanOutput out = plan(m, *a100.router, r);
  REQUIRE(out.precision_notes.size() == 1);
  CHECK(out.precision_notes[0].find("weight-only") != std::string::npos);
  CHECK(out.weight_format.find("weight-only") != std::string::npos);
}

TEST_CASE("serve_queue_us: M/D/1 prefill queueing plus the decode step in progress, by hand") {
  // A 1 s cycle with 100 ms of prefill for 10 requests: ρ = 0.1, S = 10 ms per request.
  // Wait = ρS / (2(1 − ρ)) + step/2 = 0.1 × 10,000 / 1.8 + 20,000 / 2 = 555.56 + 10,000 µs.
  CHECK(serve_queue_us(100000, 1e6, 10, 20000) == doctest::Approx(10555.555556));
  // Half the time in prefill, one request per cycle: ρ = 0.5, S = 500 ms:
  // 0.5 × 500,000 / 1 + 0 = 250,000 µs.
  CHECK(serve_queue_us(500000, 1e6, 1, 0) == doctest::Approx(250000));
  // No prefill work: only the residual step.
  CHECK(serve_queue_us(0, 1e6, 10, 30) == 15);
}

TEST_CASE("serve: TTFT includes its queueing, tokens/s/user = 1000 / TPOT") {
  Machine h100("hgx-h100-8");
  PlanRequest r;
  r.batch = 16;
  r.tp = 4;
  r.pp = 1;
  PlanOutput out = plan(load_model("llama-3-8b"), *h100.router, r);
  const PlanResult& p = out.plans.front();
  REQUIRE(p.fits);
  CHECK(p.tokens_per_s_per_user == doctest::Approx(1000 / p.tpot_ms));
  CHECK(p.ttft_ms * 1e3 == doctest::Approx(p.prefill.total_us()));
  // The wait is at least half a decode step (the step in progress) and only serve has it.
  CHECK(p.prefill.queue_us >= p.decode.total_us() / 2);
  r.mode = PlanMode::Decode;
  CHECK(plan(load_model("llama-3-8b"), *h100.router, r).plans.front().prefill.queue_us == 0);
}

TEST_CASE("prefill mode does not count --output against the context") {
  // Llama-3-8B has an 8192-token context: an 8k prompt plans in prefill mode even with
  // --output 4096, and serve refuses prompt + output = 12288.
  Machine h100("hgx-h100-8");
  PlanRequest r;
  r.mode = PlanMode::Prefill;
  r.prompt = 8192;
  r.output = 4096;
  CHECK(r.max_sequence() == 8192);
  CHECK(plan(load_model("llama-3-8b"), *h100.router, r).plans.front().fits);
  r.mode = PlanMode::Serve;
  CHECK_THROWS_WITH_AS(plan(load_model("llama-3-8b"), *h100.router, r),
                       doctest::Contains("exceeds the model's context"), InputError);
}

TEST_CASE("the Pareto front honours --tpot-max, limits nobody meets are reported") {
  Machine h100("hgx-h100-8");
  PlanRequest r;
  r.tpot_max_ms = 6;
  PlanOutput out = plan(load_model("llama-3-8b"), *h100.router, r);
  REQUIRE(!out.pareto.empty());
  for (const ParetoPoint& p : out.pareto) CHECK(p.tpot_ms <= 6);
  CHECK(out.status == "ok");
  CHECK(out.objective_note.empty());  // an SLA was given
  r.tpot_max_ms = 1;                  // below any plan's TPOT on H100
  out = plan(load_model("llama-3-8b"), *h100.router, r);
  CHECK(out.pareto.empty());
  CHECK(out.status == "no_plan_meets_limits");
  CHECK(out.status_message.find("TPOT") != std::string::npos);
}

TEST_CASE("serve without an SLA says what it maximises, nothing fits says why first") {
  Machine h100("hgx-h100-8");
  PlanOutput out = plan(load_model("llama-3-8b"), *h100.router, PlanRequest{});
  CHECK(out.objective_note.find("tokens/s per user") != std::string::npos);
  // 405B in bf16 = 811 GB of weights over 8 x 80 GB: nothing fits; the hint names FP8.
  out = plan(load_model("llama-3.1-405b"), *h100.router, PlanRequest{});
  CHECK(out.status == "no_plan_fits");
  CHECK(out.status_message.find("No plan fits") == 0);
  CHECK(out.status_message.find("--precision fp8") != std::string::npos);
}

TEST_CASE("strategy labels of a MoE model always say ep, a dense model's only above ep1") {
  using topoplan::test::strat;
  CHECK(label(strat(8, 1, 1, 1), true) == "tp8 pp1 dp1 ep1");
  CHECK(label(strat(8, 1, 1, 1, true), true) == "tp8 pp1 dp1 ep1 adp");
  CHECK(label(strat(8, 1, 1, 8), true) == "tp8 pp1 dp1 ep8");
  CHECK(label(strat(8, 1, 1, 1), false) == "tp8 pp1 dp1");
  Machine h100("hgx-h100-8");
  const PlanOutput moe = plan(load_model("gpt-oss-120b"), *h100.router, PlanRequest{});
  CHECK(moe.moe);
  CHECK_FALSE(plan(load_model("llama-3-8b"), *h100.router, PlanRequest{}).moe);
}
