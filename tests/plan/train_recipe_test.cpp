// Published training recipes must rank first, or within 3% of the first plan's step time, in
// their own setting (issue 26, point 2), and no bf16 plan of a shipped model at seq <= 8K on
// >= 64 H100 may claim more than 50% MFU (issue 26, "Done when"). Each case names its source.
// Cases the model does not meet yet are marked may_fail with the measured gap: they run and
// report, and stop being expected failures when the mechanism behind the gap is found.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "plan/plan_test_util.hpp"
#include "topoplan/train.hpp"

using namespace topoplan;

namespace {

struct Ranked {
  double best_ms = 0, recipe_ms = 0;
  std::string best;
};

TrainRequest base(double seq, int gbs) {
  TrainRequest q;
  q.seq = seq;
  q.global_batch = gbs;
  q.precision = TrainPrecision::BF16;
  q.top = 1;
  return q;
}

// The searched best plan and the best plan with the recipe's parallelism pinned (the rest:
// vp, ZeRO, recompute, micro-batch, searched as the recipe's authors would tune them).
Ranked rank(const std::string& model, const std::string& server, int nodes, TrainRequest q, int tp,
            int cp, int pp) {
  test::Machine mc(server, nodes);
  ModelSpec m = load_model(model);
  Ranked r;
  TrainingResult free = plan_training(m, *mc.router, q);
  REQUIRE(!free.plans.empty());
  REQUIRE(free.plans.front().fits);
  r.best_ms = free.plans.front().step_time_ms;
  r.best = describe(free.plans.front().strategy);
  q.tp = tp, q.cp = cp, q.pp = pp;
  TrainingResult pinned = plan_training(m, *mc.router, q);
  REQUIRE(!pinned.plans.empty());
  REQUIRE(pinned.plans.front().fits);
  r.recipe_ms = pinned.plans.front().step_time_ms;
  return r;
}

}  // namespace

// Llama 3 paper (Dubey et al. 2024, arXiv:2407.21783) §3.3.2 Table 4: 405B at seq 8,192 on
// 16,384 H100, TP8 CP1 PP16 DP128, 16M tokens per batch (2,048 sequences), BF16. Measured gap
// (2026-12-07): the search prefers tp4 cp8 pp16 vp6 dp32 zero1 (5.68 s) over the recipe's best
// (tp8 sp cp1 pp16 vp6 dp128 zero2, 6.73 s): 18% (docs/accuracy.md, "Not done yet").
TEST_CASE("train recipe: Llama 3 405B at 8K on 16,384 H100 is TP8 CP1 PP16" * doctest::may_fail()) {
  Ranked r = rank("llama-3.1-405b", "hgx-h100-8", 2048, base(8192, 2048), 8, 1, 16);
  INFO("best: " << r.best << " " << r.best_ms << " ms; recipe " << r.recipe_ms << " ms");
  CHECK(r.recipe_ms <= 1.03 * r.best_ms);
}

// Same paper, Table 4: at seq 131,072 (16M tokens: 128 sequences) the run used TP8 CP16 PP16
// DP8: context parallelism wins at long sequence.
TEST_CASE("train recipe: Llama 3 405B at 128K on 16,384 H100 uses context parallelism") {
  test::Machine mc("hgx-h100-8", 2048);
  ModelSpec m = load_model("llama-3.1-405b");
  TrainingResult r = plan_training(m, *mc.router, base(131072, 128));
  REQUIRE(!r.plans.empty());
  REQUIRE(r.plans.front().fits);
  INFO("best: " << describe(r.plans.front().strategy));
  CHECK(r.plans.front().strategy.cp > 1);
}

// The recipe itself within 3%: 10,899 ms against the search's tp8 sp cp32 pp8 vp8 at 10,592 ms
// (2.9%, 2026-12-07; it was 3.1% behind a plan with a TP group across two servers on 2026-12-05).
TEST_CASE("train recipe: Llama 3 405B at 128K on 16,384 H100 is TP8 CP16 PP16") {
  Ranked r = rank("llama-3.1-405b", "hgx-h100-8", 2048, base(131072, 128), 8, 16, 16);
  INFO("best: " << r.best << " " << r.best_ms << " ms; recipe " << r.recipe_ms << " ms");
  CHECK(r.recipe_ms <= 1.03 * r.best_ms);
}

// NVIDIA dgxc-benchmarking / NeMo performance recipe (tests/accuracy/check_points.json,
// dgxc-llama31-405b-bf16-512xh100): Llama 3.1 405B, 512 H100, seq 8,192, GBS 256, MBS 1,
// TP8 PP8 CP2 VP8 with TP comm overlap (NeMo's engine profile).
TEST_CASE("train recipe: NeMo's Llama 3.1 405B on 512 H100 is TP8 CP2 PP8") {
  TrainRequest q = base(8192, 256);
  apply_train_engine(q, "nemo");
  Ranked r = rank("llama-3.1-405b", "hgx-h100-8", 64, q, 8, 2, 8);
  INFO("best: " << r.best << " " << r.best_ms << " ms; recipe " << r.recipe_ms << " ms");
  CHECK(r.recipe_ms <= 1.03 * r.best_ms);
}

// Same source (dgxc-gpt3-175b-bf16-128xh100): GPT-3 175B, 128 H100, seq 2,048, GBS 256, MBS 1,
// TP4 PP8 VP6 CP1 with TP comm overlap.
TEST_CASE("train recipe: NeMo's GPT-3 175B on 128 H100 is TP4 CP1 PP8") {
  TrainRequest q = base(2048, 256);
  apply_train_engine(q, "nemo");
  Ranked r = rank("gpt3-175b", "hgx-h100-8", 16, q, 4, 1, 8);
  INFO("best: " << r.best << " " << r.best_ms << " ms; recipe " << r.recipe_ms << " ms");
  CHECK(r.recipe_ms <= 1.03 * r.best_ms);
}

// Issue 26 "Done when": no bf16 plan of a shipped model at seq <= 8K on >= 64 H100 claims more
// than 50% MFU. Measured (2026-12-05): dense models 54-65% (llama-3-8b DP on 64 H100 65%),
// because the compute alone runs at 60-65% of peak in the model; published bf16 points contradict
// the cap too (dgxc-benchmarking: Llama 3.1 8B on 8 H100 at ~62%, 70B on 64 H100 54%, GPT-3 175B
// 52-54%; docs/accuracy.md). Kept as a report until that is settled.
TEST_CASE("train recipe: no shipped model claims more than 50% bf16 MFU at seq <= 8K on 64+ H100" *
          doctest::may_fail()) {
  const char* models[] = {"llama-3-8b", "llama-3-70b", "gpt3-175b", "qwen3-32b", "mixtral-8x22b"};
  for (std::string name : models) {
    ModelSpec m = load_model(name);
    const double seq = m.max_context > 0 ? std::min(8192.0, double(m.max_context)) : 8192.0;
    for (int nodes : {8, 64}) {
      test::Machine mc("hgx-h100-8", nodes);
      TrainingResult r = plan_training(m, *mc.router, base(seq, nodes * 16));
      REQUIRE(!r.plans.empty());
      const TrainPlan& p = r.plans.front();
      if (!p.fits) continue;
      INFO(name << " on " << nodes * 8 << " H100: " << describe(p.strategy) << " MFU " << p.mfu);
      CHECK(p.mfu <= 0.50);
    }
  }
}
