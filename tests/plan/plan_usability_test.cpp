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
