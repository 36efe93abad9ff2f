// Issue 14, fourth round: three mechanisms, each with a value derived by hand.
// 1. Under attention DP the busiest rank sets the step: a prompt prefilled alone occupies one
//    rank (its attention is the whole prompt's, not 1/ranks of it).
// 2. Staggered prefills: staggered_prefill_us, the serve cycle's prefill when prompts reach the
//    attention ranks one at a time.
// 3. NVLS off by default (SGLang writes NCCL_NVLS_ENABLE=0): the plan's TP all-reduce is priced
//    without NVLS unless PlanRequest::nvls.
#include <doctest/doctest.h>

#include <cmath>

#include "plan/plan_test_util.hpp"
#include "topoplan/collective.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

namespace {

double attention_flops(const std::vector<KernelCost>& ks) {
  double f = 0;
  for (const KernelCost& k : ks)
    if (k.kind == KernelKind::Attention) f += k.flops;
  return f;
}

}  // namespace

TEST_CASE("attention DP: one prompt on one of 8 ranks attends the whole prompt there") {
  const ModelSpec m = load_model("llama-3-8b");
  const Workload one{.phase = Phase::Prefill, .batch = 1, .new_tokens = 1024, .context = 0};
  const Workload eight{.phase = Phase::Prefill, .batch = 8, .new_tokens = 1024, .context = 0};
  const Shard adp{.tp = 8, .ep = 1, .expert_tp = 8, .attention_dp = true};
  // One sequence: the busiest rank holds it whole, the same attention as one per rank (8 over
  // 8 ranks); before 2026-12-04 it was priced as 1/8 of a prompt per rank.
  const double f1 = attention_flops(layer_kernels(m, LayerType::Dense, one, adp));
  const double f8 = attention_flops(layer_kernels(m, LayerType::Dense, eight, adp));
  CHECK(f1 > 0);
  CHECK(f1 == doctest::Approx(f8));
  // Sixteen over eight ranks: two each, twice one.
  const Workload sixteen{.phase = Phase::Prefill, .batch = 16, .new_tokens = 1024, .context = 0};
  CHECK(attention_flops(layer_kernels(m, LayerType::Dense, sixteen, adp)) ==
        doctest::Approx(2 * f1));
}

TEST_CASE("staggered_prefill_us: steps x (1 - (1 - q)^ranks) x one prefill, by hand") {
  // 128 prompts per rank over 2,048 steps: q = 1/16; 8 ranks: 1 - (15/16)^8 = 0.403281;
  // 2,048 x 0.403281 = 825.92 steps pay a 100 µs prefill.
  CHECK(staggered_prefill_us(128, 2048, 8, 100) ==
        doctest::Approx(2048 * (1 - std::pow(15.0 / 16, 8)) * 100));
  CHECK(staggered_prefill_us(128, 2048, 8, 100) == doctest::Approx(82591.9).epsilon(1e-5));
  // One rank: every prompt is its own prefill step, prompts x one.
  CHECK(staggered_prefill_us(128, 2048, 1, 100) == doctest::Approx(12800));
  // A prompt per rank in every step (q = 1): every step pays one prefill.
  CHECK(staggered_prefill_us(4096, 2048, 8, 100) == doctest::Approx(204800));
  // Rare prompts: nearly prompts x ranks prefills (8 x 2 = 16 of 16,384 steps).
  CHECK(staggered_prefill_us(2, 16384, 8, 100) == doctest::Approx(1600).epsilon(2e-3));
  CHECK(staggered_prefill_us(0, 100, 8, 100) == 0);
}

TEST_CASE("serve under attention DP pays the staggered prefills, not one aligned pass") {
  Machine h200("hgx-h200-8");
  const ModelSpec r1 = load_model("deepseek-r1");
  PlanRequest r;
  r.prompt = 1024;
  r.output = 2048;
  Planner p(r1, *h200.router, r);
  const Strategy s = strat(8, 1, 1, 8, true);
  const PlanResult res = p.evaluate(s, 1024);
  REQUIRE(res.fits);
  // The cycle by hand from the planner's own parts: 128 prompts per rank over 2,048 steps on 8
  // ranks, each staggered prefill one prompt on one rank.
  const TimeBreakdown one = p.prefill(s, 1, 1024, PlacementOrder::TpPpDp);
  const double step = res.decode.total_us();
  const double cycle = staggered_prefill_us(128, 2048, 8, one.total_us()) + 2048 * step;
  CHECK(res.tokens_per_s == doctest::Approx(1024.0 * 2048 / cycle * 1e6).epsilon(1e-6));
  // More than the aligned pass (all ranks prefilling together) would cost.
  const TimeBreakdown aligned = p.prefill(s, 1024, 1024, PlacementOrder::TpPpDp);
  CHECK(staggered_prefill_us(128, 2048, 8, one.total_us()) > aligned.total_us());
}

TEST_CASE("NVLS: off by default (SGLang), the TP all-reduce as NCCL prices it without NVLS") {
  Machine h200("hgx-h200-8");
  const ModelSpec r1 = load_model("deepseek-r1");
  PlanRequest r;
  const Strategy s = strat(8);
  CHECK_FALSE(r.nvls);
  PlanRequest on = r;
  on.nvls = true;
  const double off_us =
      Planner(r1, *h200.router, r).prefill(s, 2, 4096, PlacementOrder::TpPpDp).tp_allreduce_us;
  const double on_us =
      Planner(r1, *h200.router, on).prefill(s, 2, 4096, PlacementOrder::TpPpDp).tp_allreduce_us;
  // 8,192 tokens x 7,168 x 2 B = 117.4 MB per all-reduce; 2 per layer x 61 layers.
  CollectiveModel comm(*h200.router);
  CollectiveOptions no;
  no.allow_nvls = false;
  const double bytes = 8192.0 * 7168 * 2;
  const double ring = comm.cost(CollOp::AllReduce, h200.topology.gpus(), bytes, no).time_us;
  const double nvls = comm.cost(CollOp::AllReduce, h200.topology.gpus(), bytes).time_us;
  CHECK(comm.cost(CollOp::AllReduce, h200.topology.gpus(), bytes, no).algorithm != Algorithm::Nvls);
  CHECK(ring > nvls);
  // The logits gather adds a little on top of the 122 all-reduces in both.
  CHECK(off_us == doctest::Approx(122 * ring).epsilon(0.02));
  CHECK(on_us == doctest::Approx(122 * nvls).epsilon(0.02));
}
