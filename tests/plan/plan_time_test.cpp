// Step times: collective volumes per layer by hand, the TP all-reduce term derived by hand from
// NCCL's model, pipeline bubbles, speculative decoding and monotonicity in the batch.
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

TEST_CASE("decode TP term = layers x 2 all-reduces + logits all-gather, by hand") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");  // 32 layers, hidden 4096, vocab 128256, bf16
  Planner p(m, *h100.router, PlanRequest{});
  double batch = 4;
  TimeBreakdown d = p.decode_step(strat(4, 1, 2), batch, 1536, PlacementOrder::TpPpDp);
  // 2 replicas of 2 sequences; the two TP groups of 4 H100s sit on their own NVLinks, so running
  // them at once costs what one costs. NCCL's model (shared/reference/nccl-model.md 3.3-3.5,
  // Hopper, one node), n = 4:
  // All-reduce of 2 tokens x 4096 x 2 B = 16,384 B, ring LL: lat = base 6.6 + 2(n-1) = 6 steps
  //   x 0.6 (NVLink ring LL) = 10.2 µs; busBw = llMaxBw 141 GB/s (0.5 x the rings' NVLink
  //   bandwidth is far above it); algBw = 141 x n / 6 = 94 GB/s; 10.2 + 16384 / 94,000 =
  //   10.374298 µs. (Latency alone: tree LL 6.8 + 2 x 3 x 0.6 = 10.4 µs, ring LL128 14 + 6 x 1.9
  //   = 25.4, ring Simple 8.4 + 6 x 3.4 = 28.8, NVLS 25: ring LL is the fastest.)
  // All-gather of the logits, 2 rows x 128256 x 2 B = 513,024 B in all, ring LL: lat = 6.6 +
  //   (n-1) x 0.6 = 8.4 µs; algBw = 141 x 4 / 3 = 188 GB/s; 8.4 + 513024 / 188,000 =
  //   11.128851 µs (latency alone: LL128 14 + 3 x 1.9 = 19.7, Simple 8.4 + 3 x 3.4 = 18.6, NVLS
  //   25).
  // TP term = 32 layers x 2 x 10.374298 + 11.128851 = 675.0839 µs.
  CHECK(d.tp_allreduce_us == doctest::Approx(675.0839).epsilon(0.001));
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
