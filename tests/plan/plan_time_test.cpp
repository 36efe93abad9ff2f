// Step times: collective volumes per layer by hand, the TP all-reduce term rebuilt from the
// collective engine, pipeline bubbles, speculative decoding and monotonicity in the batch.
#include <doctest/doctest.h>

#include "plan/plan_test_util.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/placement.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

TEST_CASE("TP all-reduce volume per layer") {
  ModelSpec m = load_model("llama-3-70b");  // hidden 8192, bf16 activations
  LayerTraffic t = layer_traffic(m, LayerType::Dense, strat(8), 16);
  CHECK(t.tp_allreduces == 2);                   // after o_proj and after the MLP
  CHECK(t.tp_allreduce_bytes == 16 * 8192 * 2);  // tokens x hidden x 2 B = 262,144
  CHECK(t.ep_dispatch_bytes_per_rank == 0);
  CHECK(layer_traffic(m, LayerType::Dense, strat(1), 16).tp_allreduces == 0);
  CHECK(layer_traffic(m, LayerType::Dense, strat(4, 2), 16).pp_bytes == 16 * 8192 * 2);
}

TEST_CASE("EP all-to-all and attention-DP gather volumes per layer") {
  ModelSpec m = load_model("deepseek-r1");  // hidden 7168, top-8, FP8 dispatch, BF16 combine
  // 64 tokens over 8 attention-DP ranks: 8 tokens per rank, each sent to 8 experts; 7/8 of the
  // copies leave the rank. FP8 dispatch carries a 4-byte scale per 128 channels.
  LayerTraffic moe = layer_traffic(m, LayerType::Moe, strat(8, 1, 1, 8, true), 64);
  CHECK(moe.ep_dispatch_bytes_per_rank == doctest::Approx(8 * 8 * 7168 * (1 + 4.0 / 128) * 7 / 8));
  CHECK(moe.ep_combine_bytes_per_rank == doctest::Approx(8 * 8 * 7168 * 2 * 7.0 / 8));
  CHECK(moe.tp_allreduces == 0);
  // Dense layers (and MoE with ep < tp) run the MLP tensor-parallel on gathered tokens:
  // all-gather + reduce-scatter of the replica's 64 x 7168 x 2 B.
  CHECK(layer_traffic(m, LayerType::Dense, strat(8, 1, 1, 8, true), 64).dp_gather_bytes ==
        64 * 7168 * 2);
  CHECK(layer_traffic(m, LayerType::Moe, strat(8, 1, 1, 4, true), 64).dp_gather_bytes ==
        64 * 7168 * 2);
  // EP without attention DP: tokens are already on every rank; only the two all-reduces.
  LayerTraffic tp_ep = layer_traffic(m, LayerType::Moe, strat(8, 1, 1, 8), 64);
  CHECK(tp_ep.tp_allreduces == 2);
  CHECK(tp_ep.ep_dispatch_bytes_per_rank == 0);
}

TEST_CASE("decode TP term = layers x 2 all-reduces + logits all-gather, priced concurrently") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");  // 32 layers, hidden 4096, vocab 128256
  Planner p(m, *h100.router, PlanRequest{});
  double batch = 4;
  TimeBreakdown d = p.decode_step(strat(4, 1, 2), batch, 1536, PlacementOrder::TpPpDp);
  // Rebuild: 2 replicas of 2 sequences; both TP groups run each collective at once.
  CollectiveModel cm(*h100.router);
  Placement pl = place(*h100.router, strat(4, 1, 2), PlacementOrder::TpPpDp);
  auto slowest = [&](CollOp op, double bytes) {
    double t = 0;
    for (const auto& c : cm.cost_concurrent(op, pl.tp_groups, bytes)) t = std::max(t, c.time_us);
    return t;
  };
  double expected = 32 * 2 * slowest(CollOp::AllReduce, 2 * 4096 * 2) +
                    slowest(CollOp::AllGather, 2 * 128256 * 2);
  CHECK(d.tp_allreduce_us == doctest::Approx(expected));
  CHECK(d.ep_alltoall_us == 0);
  CHECK(d.bubble_us == 0);
  // The terms add up to the step.
  double sum = 0;
  for (const auto& [name, us] : terms(d)) sum += us;
  CHECK(sum == doctest::Approx(d.total_us()));
}

TEST_CASE("pipeline: one sequence leaves pp-1 stages idle") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  Planner p(m, *h100.router, PlanRequest{});
  TimeBreakdown one = p.decode_step(strat(4, 2), 1, 1536, PlacementOrder::TpPpDp);
  // m = 1 micro-batch in a 2-stage ring: the step is 2 stage times + 1 send, half of it bubble.
  double stage = one.total_us() - one.bubble_us - one.pp_sendrecv_us;
  CHECK(one.bubble_us == doctest::Approx(stage).epsilon(0.001));
  CHECK(one.pp_sendrecv_us > 0);
  // With 2 sequences the two micro-batches fill both stages: no bubble.
  CHECK(p.decode_step(strat(4, 2), 2, 1536, PlacementOrder::TpPpDp).bubble_us == 0);
}

TEST_CASE("more batch: higher TPOT, more tokens/s") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-70b");
  PlanRequest r;
  r.mode = PlanMode::Decode;
  Planner p(m, *h100.router, r);
  double prev_tpot = 0, prev_tps = 0;
  for (double b : {1, 2, 4, 8, 16, 32, 64, 128, 256}) {
    PlanResult res = p.evaluate(strat(8), b);
    REQUIRE(res.fits);
    CHECK(res.tpot_ms > prev_tpot);
    CHECK(res.tokens_per_s > prev_tps);
    CHECK(res.tokens_per_s == doctest::Approx(res.tokens_per_s_per_user * b));
    prev_tpot = res.tpot_ms;
    prev_tps = res.tokens_per_s;
  }
}

TEST_CASE("speculative decoding: verifying 2 tokens costs less than 2 steps") {
  Machine h200("hgx-h200-8");
  ModelSpec m = load_model("deepseek-r1");
  PlanRequest r;
  r.mode = PlanMode::Decode;
  PlanResult base = Planner(m, *h200.router, r).evaluate(strat(8, 1, 1, 8), 8);
  r.mtp_accept = 1.8;  // 1 draft token, 1.8 tokens accepted per step on average
  PlanResult mtp = Planner(m, *h200.router, r).evaluate(strat(8, 1, 1, 8), 8);
  REQUIRE(base.fits);
  REQUIRE(mtp.fits);
  // Memory-bound decode: the verify step reads the same weights for 2 tokens per sequence.
  CHECK(mtp.tpot_ms < base.tpot_ms);
  CHECK(mtp.tpot_ms > base.tpot_ms / 1.8);
  CHECK(mtp.memory.weights_bytes > base.memory.weights_bytes);  // the MTP module is loaded
}

TEST_CASE("prefill: chunks add up and TTFT grows with the prompt") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  Planner p(m, *h100.router, PlanRequest{});
  double t1 = p.prefill(strat(8), 1, 2048, PlacementOrder::TpPpDp).total_us();
  double t2 = p.prefill(strat(8), 1, 8192, PlacementOrder::TpPpDp).total_us();
  double t4 = p.prefill(strat(8), 4, 8192, PlacementOrder::TpPpDp).total_us();
  CHECK(t2 > 3 * t1);  // 4x the tokens, attention quadratic: at least ~linear growth
  // 4 prompts of one chunk each run as 4 chunks of the same shape.
  CHECK(t4 == doctest::Approx(4 * t2));
}
