// Two-batch overlap (PlanRequest::two_batch_overlap): the per-layer overlap by hand, then the
// step's identities on a real DeepSeek-R1 EP16 decode (halves' kernels, hidden + exposed =
// the halves' communication, never slower than the batch's compute).
#include <doctest/doctest.h>

#include <algorithm>

#include "plan/plan_test_util.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

TEST_CASE("tbo_layer: max of compute and communication, the overlap's SM cost, the ramp") {
  // Compute-bound, no SM contention (decode's RDMA hooks): communication all hidden.
  TboLayer t = tbo_layer(100, 60, 0);
  CHECK(t.time_us == 100);
  CHECK(t.exposed_comm_us == 0);
  CHECK(t.hidden_comm_us == 60);
  CHECK(t.ramp_us == 30);  // the first half's shorter stage: 60 / 2
  // Communication-bound: the compute hides, the step is the communication.
  t = tbo_layer(40, 100, 0);
  CHECK(t.time_us == 100);
  CHECK(t.exposed_comm_us == 60);
  CHECK(t.hidden_comm_us == 40);
  CHECK(t.ramp_us == 20);
  // Prefill's DeepEP normal kernels hold 20 of 132 SMs while they overlap: 60 µs of overlapped
  // compute runs on 112 SMs, 20/112 slower (held_sm_slowdown), 100 + 60 x 20/112 = 110.71.
  t = tbo_layer(100, 60, 20.0 / 112);
  CHECK(t.time_us == doctest::Approx(100 + 60 * 20.0 / 112));
  CHECK(t.exposed_comm_us == doctest::Approx(60 * 20.0 / 112));
  CHECK(t.exposed_comm_us + t.hidden_comm_us == doctest::Approx(60));
  // Nothing to hide: the layer is its compute.
  t = tbo_layer(100, 0, 0.2);
  CHECK(t.time_us == 100);
  CHECK(t.hidden_comm_us == 0);
}

TEST_CASE("two-batch overlap: a decode step hides MoE communication behind the other half") {
  Machine h100("hgx-h100-8", 2);
  const ModelSpec r1 = load_model("deepseek-r1");
  const Strategy s = strat(16, 1, 1, 16, true);  // EP16 attention DP over two servers
  PlanRequest off, on;
  on.two_batch_overlap = true;
  const double batch = 16 * 64, context = 2048;
  const TimeBreakdown a =
      Planner(r1, *h100.router, off).decode_step(s, batch, context, PlacementOrder::TpPpDp);
  const TimeBreakdown b =
      Planner(r1, *h100.router, on).decode_step(s, batch, context, PlacementOrder::TpPpDp);
  REQUIRE(a.ep_alltoall_us > 0);
  CHECK(a.comm_hidden_us == 0);
  CHECK(b.comm_hidden_us > 0);
  // The halves read the weights twice: no less weight time than the whole batch.
  CHECK(b.weights_us >= a.weights_us);
  // The all-to-all left exposed is less than without overlap, and what moved went to hidden.
  CHECK(b.ep_alltoall_us < a.ep_alltoall_us);
  // A step is no faster than its compute alone and no slower than compute + all communication.
  const double compute = b.weights_us + b.kv_us + b.activations_us + b.compute_us + b.floors_us;
  CHECK(b.total_us() >= compute);
  CHECK(b.total_us() <=
        compute + b.tp_allreduce_us + b.dp_gather_us + b.ep_alltoall_us + b.comm_hidden_us + 1e-6);
  // Batch 1 cannot be split: the same step either way.
  const TimeBreakdown one_a =
      Planner(r1, *h100.router, off).decode_step(s, 1, context, PlacementOrder::TpPpDp);
  const TimeBreakdown one_b =
      Planner(r1, *h100.router, on).decode_step(s, 1, context, PlacementOrder::TpPpDp);
  CHECK(one_b.total_us() == doctest::Approx(one_a.total_us()));
}

TEST_CASE("two-batch overlap: dense models and EP 1 are unchanged") {
  Machine h100("hgx-h100-8");
  const ModelSpec llama = load_model("llama-3-8b");
  PlanRequest on;
  on.two_batch_overlap = true;
  const TimeBreakdown a = Planner(llama, *h100.router, PlanRequest{})
                              .decode_step(strat(8), 64, 1024, PlacementOrder::TpPpDp);
  const TimeBreakdown b =
      Planner(llama, *h100.router, on).decode_step(strat(8), 64, 1024, PlacementOrder::TpPpDp);
  CHECK(b.total_us() == doctest::Approx(a.total_us()));
  CHECK(b.comm_hidden_us == 0);
}
