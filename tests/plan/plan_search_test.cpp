// The search: ranking order, Pareto front, explanation, placement contrast, and every built-in
// model on every built-in server and on a 2-node cluster.
#include <doctest/doctest.h>

#include "plan/plan_test_util.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

TEST_CASE("serve ranking: fitting plans first, by tokens/s per GPU") {
  Machine h200("hgx-h200-8");
  PlanOutput out = plan(load_model("deepseek-r1"), *h200.router, PlanRequest{});
  REQUIRE(out.plans.size() == 36);
  REQUIRE(out.plans.front().fits);
  bool seen_unfit = false;
  for (std::size_t i = 0; i < out.plans.size(); ++i) {
    const PlanResult& p = out.plans[i];
    if (!p.fits) seen_unfit = true;
    CHECK((p.fits || !p.reason.empty()));
    if (seen_unfit) CHECK_FALSE(p.fits);
    if (i > 0 && p.fits) CHECK(out.plans[i - 1].tokens_per_s_per_gpu >= p.tokens_per_s_per_gpu);
  }
  // Attention DP stores each sequence's MLA cache once instead of on all 8 ranks: it wins.
  CHECK(out.plans.front().strategy.attention_dp);
  CHECK(out.explanation.find("beats the runner-up") != std::string::npos);
  // The Pareto front trades per-user speed for per-GPU throughput monotonically.
  REQUIRE(out.pareto.size() >= 2);
  for (std::size_t i = 1; i < out.pareto.size(); ++i) {
    CHECK(out.pareto[i].tokens_per_s_per_user <= out.pareto[i - 1].tokens_per_s_per_user);
    CHECK(out.pareto[i].tokens_per_s_per_gpu > out.pareto[i - 1].tokens_per_s_per_gpu);
  }
}

TEST_CASE("TPOT limit picks a smaller batch") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-70b");
  PlanRequest r;
  r.tp = 8;
  PlanResult free = plan(m, *h100.router, r).plans.front();
  r.tpot_max_ms = 20;
  PlanResult limited = plan(m, *h100.router, r).plans.front();
  REQUIRE(limited.fits);
  CHECK(limited.meets_limits);
  CHECK(limited.tpot_ms <= 20);
  CHECK(limited.batch < free.batch);
  CHECK(limited.tokens_per_s < free.tokens_per_s);
  // The search bisects to the largest batch within the limit: one more sequence breaks it.
  Planner p(m, *h100.router, r);
  CHECK(p.evaluate(limited.strategy, limited.batch + limited.strategy.dp).tpot_ms > 20);
}

TEST_CASE("decode ranking by TPOT, prefill ranking by TTFT") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-70b");
  PlanRequest r;
  r.mode = PlanMode::Decode;
  PlanOutput d = plan(m, *h100.router, r);
  CHECK(d.plans.front().strategy.tp == 8);  // batch 1: the widest TP reads the fewest bytes
  for (std::size_t i = 1; i < d.plans.size() && d.plans[i].fits; ++i)
    CHECK(d.plans[i - 1].tpot_ms <= d.plans[i].tpot_ms);
  r.mode = PlanMode::Prefill;
  PlanOutput f = plan(m, *h100.router, r);
  for (std::size_t i = 1; i < f.plans.size() && f.plans[i].fits; ++i)
    CHECK(f.plans[i - 1].ttft_ms <= f.plans[i].ttft_ms);
}

TEST_CASE("a TP group split across servers is much slower") {
  Machine two("hgx-h100-8", 2);
  ModelSpec m = load_model("llama-3-70b");
  PlanRequest r;
  r.mode = PlanMode::Decode;
  r.tp = 8;
  r.dp = 2;
  PlanOutput out = plan(m, *two.router, r);
  REQUIRE(out.bad_placement);
  REQUIRE(out.bad_placement->fits);
  // dp-pp-tp strides every TP group over both servers: its all-reduces go through the NICs.
  // Batch-1 all-reduces are latency-bound (64 KiB), so the network's higher latency shows more
  // than its lower bandwidth: the TP term grows by half, the step by over 10%.
  CHECK(out.bad_placement->tpot_ms > 1.1 * out.plans.front().tpot_ms);
  CHECK(out.bad_placement->decode.tp_allreduce_us > 1.5 * out.plans.front().decode.tp_allreduce_us);
}

TEST_CASE("every built-in model plans on every built-in server and a 2-node cluster") {
  std::vector<std::string> servers = {"dgx-a100-8", "hgx-a800-8",  "hgx-b200-8",
                                      "hgx-h100-8", "hgx-h20-8",   "hgx-h200-8",
                                      "hgx-h800-8", "pcie-l40s-8", "pcie-rtx4090-8"};
  std::vector<std::unique_ptr<Machine>> machines;
  for (const auto& s : servers) machines.push_back(std::make_unique<Machine>(s));
  machines.push_back(std::make_unique<Machine>("hgx-h20-8", 2));
  for (const std::string& name : builtin_model_names()) {
    ModelSpec m = load_model(name);
    for (const auto& mp : machines) {
      const Machine& mc = *mp;
      CAPTURE(name);
      CAPTURE(mc.topology.name);
      PlanOutput out;
      CHECK_NOTHROW(out = plan(m, *mc.router, PlanRequest{}));
      REQUIRE_FALSE(out.plans.empty());
      for (const PlanResult& p : out.plans) {
        if (!p.fits) continue;
        CHECK(p.tpot_ms > 0);
        CHECK(p.memory.used_bytes() <= p.memory.capacity_bytes * 1.000001);
      }
    }
  }
  // The 72-GPU NVL72 rack (one NVLink domain) in decode mode: one batch per strategy keeps the
  // debug/sanitizer build fast while every strategy is still placed and priced.
  Machine rack("gb200-nvl72");
  PlanRequest decode;
  decode.mode = PlanMode::Decode;
  for (const std::string& name : builtin_model_names()) {
    CAPTURE(name);
    PlanOutput out;
    CHECK_NOTHROW(out = plan(load_model(name), *rack.router, decode));
    REQUIRE_FALSE(out.plans.empty());
    CHECK(out.plans.front().fits);  // 72 x 186 GB holds every built-in model
  }
  // 671B in FP8 needs at least 8 x 96 GB; both H20 nodes together hold it comfortably.
  Machine two("hgx-h20-8", 2);
  CHECK(plan(load_model("deepseek-r1"), *two.router, PlanRequest{}).plans.front().fits);
}
