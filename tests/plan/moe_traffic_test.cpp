// DeepEP normal-mode dispatch traffic (src/plan/moe_traffic.cpp): hand-derived probabilities and
// the per-node deduplication across servers.
#include <doctest/doctest.h>

#include "plan/moe_traffic.hpp"
#include "plan/plan_test_util.hpp"

using namespace topoplan;
using topoplan::test::Machine;

TEST_CASE("probability that a top-k token needs a destination") {
  // Identities: nothing held → 0; everything held → 1; top-1 → held / E.
  CHECK(prob_any_expert(256, 8, 0) == 0);
  CHECK(prob_any_expert(256, 8, 256) == doctest::Approx(1));
  CHECK(prob_any_expert(64, 1, 16) == doctest::Approx(0.25));
  // DeepSeek-R1 (256 experts, top-8) over 8 GPUs, 32 experts each:
  // 1 − (224·223·…·217)/(256·255·…·249) = 0.66183 (python: prod((224-i)/(256-i) for i in 0..7)).
  CHECK(prob_any_expert(256, 8, 32) == doctest::Approx(0.66183).epsilon(1e-4));
  // A server of 8 GPUs at EP16 holds 128 experts: 1 − Π (128−i)/(256−i) = 0.99651.
  CHECK(prob_any_expert(256, 8, 128) == doctest::Approx(0.99651).epsilon(1e-4));
}

TEST_CASE("one server: one copy per destination GPU, fewer bytes than one per expert") {
  Machine h100("hgx-h100-8");
  std::vector<int> g = h100.topology.gpus();
  TrafficMatrix m = deepep_normal_matrix(h100.topology, g, 100, 1000, 256, 8);
  // 100 tokens × 1000 B × P(rank touched) = 100 × 1000 × 0.66183 to each other GPU.
  CHECK(m[0][1] == doctest::Approx(66183).epsilon(1e-4));
  CHECK(m[3][3] == 0);
  // Per (token, expert) copy (low-latency kernels): 100 × 8 / 8 × 1000 = 100,000 B per pair.
  TrafficMatrix ll = moe_dispatch_matrix(8, 100, 1000, 8);
  CHECK(m[0][1] < ll[0][1]);
}

TEST_CASE("two servers: one RDMA copy per node to the same local index, then NVLink forwards") {
  Machine two("hgx-h100-8", 2);
  std::vector<int> g = two.topology.gpus();  // node-major: ranks 0-7 node 0, 8-15 node 1
  REQUIRE(g.size() == 16);
  TrafficMatrix m = deepep_normal_matrix(two.topology, g, 1, 1, 256, 8);
  // EP16: 16 experts per GPU, P(rank) = 0.40770; a node holds 128: P(node) = 0.99651.
  // GPU 0 → GPU 8 (its RDMA peer): the node copy; GPU 0 → GPU 9: nothing directly.
  CHECK(m[0][8] == doctest::Approx(0.99651).epsilon(1e-4));
  CHECK(m[0][9] == 0);
  // GPU 8 forwards to GPU 9 the tokens of GPU 0 that GPU 9 needs (0.40770) plus its own
  // same-node copy (0.40770): 0.81541.
  CHECK(m[8][9] == doctest::Approx(2 * 0.40770).epsilon(1e-4));
  // Cross-node bytes: 8 × 0.99651 per node pair direction instead of 8 × 8 × 8/16 = 32 copies.
  double cross = 0;
  for (int j = 8; j < 16; ++j)
    for (int i = 0; i < 8; ++i) cross += m[i][j];
  CHECK(cross == doctest::Approx(8 * 0.99651).epsilon(1e-4));
}
