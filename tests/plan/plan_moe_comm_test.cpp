// MoeComm::AllGather (TensorRT-LLM's AllGatherReduceScatter at EP size <= top-k): an MoE layer
// under attention DP with ep = tp gathers every token and reduce-scatters the outputs instead
// of DeepEP's per-destination copies. Values by hand.
#include <doctest/doctest.h>

#include "plan/plan_test_util.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

TEST_CASE("MoE all-gather: the layer's traffic is the gathered bf16 hidden states, no all-to-all") {
  const ModelSpec r1 = load_model("deepseek-r1");
  const Strategy adp = strat(8, 1, 1, 8, true);
  // 1,024 tokens over 8 attention ranks: gathered buffer 1,024 x 7,168 x 2 B = 14,680,064 B.
  const LayerTraffic ag = layer_traffic(r1, LayerType::Moe, adp, 1024, MoeComm::AllGather);
  CHECK(ag.dp_gather_bytes == doctest::Approx(14680064.0));
  CHECK(ag.ep_dispatch_bytes_per_rank == 0);
  CHECK(ag.ep_combine_bytes_per_rank == 0);
  const LayerTraffic ep = layer_traffic(r1, LayerType::Moe, adp, 1024);  // DeepEP, the default
  CHECK(ep.dp_gather_bytes == 0);
  CHECK(ep.ep_dispatch_bytes_per_rank > 0);
  // Dense layers gather the same way under either.
  CHECK(layer_traffic(r1, LayerType::Dense, adp, 1024, MoeComm::AllGather).dp_gather_bytes ==
        doctest::Approx(layer_traffic(r1, LayerType::Dense, adp, 1024).dp_gather_bytes));
}

TEST_CASE("MoE all-gather: a decode step pays one all-gather + one reduce-scatter per layer") {
  Machine h200("hgx-h200-8");
  const ModelSpec r1 = load_model("deepseek-r1");
  PlanRequest q;
  q.moe_comm = MoeComm::AllGather;
  const Strategy adp = strat(8, 1, 1, 8, true);
  const TimeBreakdown b =
      Planner(r1, *h200.router, q).decode_step(adp, 1024, 2048, PlacementOrder::TpPpDp);
  CollectiveModel comm(*h200.router);
  CollectiveOptions no;
  no.allow_nvls = false;  // the plan's default (SGLang); NCCL picks ring/LL128 here either way
  const double bytes = 1024.0 * 7168 * 2;
  const double ag = comm.cost(CollOp::AllGather, h200.topology.gpus(), bytes, no).time_us;
  const double rs = comm.cost(CollOp::ReduceScatter, h200.topology.gpus(), bytes, no).time_us;
  // All 61 layers (3 dense + 58 MoE) gather and scatter; no all-to-all is left.
  CHECK(b.ep_alltoall_us == 0);
  CHECK(b.dp_gather_us == doctest::Approx(61 * (ag + rs)).epsilon(0.02));
  CHECK(parse_moe_comm("allgather") == MoeComm::AllGather);
  CHECK(to_string(MoeComm::DeepEP) == "deepep");
  CHECK_THROWS_AS(parse_moe_comm("nccl"), UnknownNameError);
}
