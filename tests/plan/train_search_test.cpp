// The training search: exact pruning (the pruned search returns the exhaustive search's top
// plans), MoE strategies, pins, and the size-independent collective pricing.
#include <doctest/doctest.h>

#include "model/tiny_models.hpp"
#include "plan/plan_test_util.hpp"
#include "plan/train_impl.hpp"
#include "topoplan/topology.hpp"

using namespace topoplan;

namespace {

void same_top(const ModelSpec& m, const Router& r, TrainRequest q) {
  q.top = 5;
  q.prune = true;
  TrainingResult pruned = plan_training(m, r, q);
  q.prune = false;
  TrainingResult all = plan_training(m, r, q);
  REQUIRE(pruned.plans.size() == all.plans.size());
  CHECK(pruned.strategies_evaluated < all.strategies_evaluated);
  CHECK(pruned.strategies_enumerated == all.strategies_enumerated);
  for (std::size_t i = 0; i < all.plans.size(); ++i) {
    CAPTURE(i);
    CHECK(describe(pruned.plans[i].strategy) == describe(all.plans[i].strategy));
    CHECK(pruned.plans[i].step_time_ms == all.plans[i].step_time_ms);
  }
}

}  // namespace

TEST_CASE("train search: pruning is exact (same top 5 as the exhaustive search)") {
  test::Machine one("hgx-h100-8");
  TrainRequest q;
  q.seq = 4096;
  q.global_batch = 32;
  // bf16 gradients, so that plans of the 70B fit 16 GPUs (with fp32 gradient buffers none
  // does, and the comparison would be among misfits only).
  q.grad_reduce = GradReduce::BF16;
  same_top(load_model("llama-3-8b"), *one.router, q);
  test::Machine two("hgx-h100-8", 2);
  q.global_batch = 64;
  same_top(load_model("llama-3-70b"), *two.router, q);
  q.seq = 64;
  q.global_batch = 16;
  same_top(test::tiny_moe(), *two.router, q);
}

TEST_CASE("train search: pins, MoE expert parallelism and the ranking order") {
  test::Machine two("hgx-h100-8", 8);  // Mixtral 8x22B (141B) needs 64 GPUs' memory
  TrainRequest q;
  q.seq = 4096;
  q.global_batch = 128;
  q.tp = 8;
  q.precision = TrainPrecision::BF16;
  TrainingResult r = plan_training(load_model("mixtral-8x22b"), *two.router, q);
  REQUIRE(r.plans.front().fits);
  for (const TrainPlan& p : r.plans) {
    CHECK(p.strategy.tp == 8);
    CHECK(p.strategy.precision == TrainPrecision::BF16);
  }
  for (std::size_t i = 1; i < r.plans.size(); ++i)
    CHECK(r.plans[i - 1].step_time_ms <= r.plans[i].step_time_ms);
  CHECK(r.strategies_enumerated ==
        r.pruned_divisibility + r.pruned_memory + r.pruned_bound + r.strategies_evaluated);
  CHECK(!r.explanation.empty());
  // Expert parallelism shows up in the space: the best EP plan splits the 8 experts.
  q.ep = 2;
  TrainingResult e = plan_training(load_model("mixtral-8x22b"), *two.router, q);
  REQUIRE(e.plans.front().fits);
  CHECK(e.plans.front().strategy.ep == 2);
  CHECK(e.plans.front().breakdown.ep_us > 0);
}

TEST_CASE("train search: nothing fits -> the closest misfits with their reasons") {
  test::Machine one("hgx-h100-8");
  TrainRequest q;
  q.seq = 8192;
  q.global_batch = 16;
  TrainingResult r = plan_training(load_model("llama-3.1-405b"), *one.router, q);
  REQUIRE(!r.plans.empty());
  CHECK_FALSE(r.plans.front().fits);
  CHECK(r.plans.front().reason.find("exceeds by") != std::string::npos);
  CHECK(r.strategies_evaluated == 0);
}

TEST_CASE("collectives at scale: an extrapolated DP ring matches the directly priced one") {
  // 256 servers: the 8 DP groups of stride 8 hold 2,048 GPUs, over the direct-pricing window;
  // the pricer halves them to 128 ranks and extrapolates. Direct: every group of 256 at once.
  test::Machine mc("hgx-h100-8", 256);
  train::CommPricer pricer(*mc.router, 2048, NcclTuning::builtin());
  CollectiveModel cm(*mc.router);
  auto groups = pricer.window(8, 256);
  REQUIRE(groups.size() == 8);
  for (CollOp op : {CollOp::AllReduce, CollOp::ReduceScatter}) {
    for (double bytes : {64e6, 1e9}) {
      double direct = 0;
      for (const auto& c : cm.cost_concurrent(op, groups, bytes))
        direct = std::max(direct, c.time_us);
      CAPTURE(bytes);
      CHECK(pricer.cost(op, 8, 256, bytes) == doctest::Approx(direct).epsilon(0.03));
    }
  }
}
