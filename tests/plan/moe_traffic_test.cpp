// DeepEP normal-mode dispatch traffic (src/plan/moe_traffic.cpp): hand-derived probabilities and
// the per-node deduplication across servers.
#include <doctest/doctest.h>

#include "plan/moe_traffic.hpp"
#include "plan/plan_test_util.hpp"

using namespace topoplan;
using topoplan::test::Machine;

namespace {
// DeepSeek-R1's routed experts: 256, top-8; without and with its group limit (8 groups, 4 kept).
MoeSpec uniform() {
  MoeSpec m;
  m.num_experts = 256;
  m.top_k = 8;
  return m;
}
MoeSpec grouped() {
  MoeSpec m = uniform();
  m.n_group = 8;
  m.topk_group = 4;
  return m;
}
}  // namespace

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
  TrafficMatrix m = deepep_normal_matrix(h100.topology, g, 100, 1000, uniform());
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
  TrafficMatrix m = deepep_normal_matrix(two.topology, g, 1, 1, uniform());
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

TEST_CASE("group-limited routing: a token reaches fewer destinations (DeepSeek-V3 §2.1.2)") {
  // A destination holding one whole group of 32: the group is kept with C(7,3)/C(8,4) = 35/70 =
  // 0.5, then the 8 experts among the 128 of the kept groups miss its 32 with Π (96−i)/(128−i):
  // 0.5 × (1 − Π_{i<8} (96−i)/(128−i)) = 0.45363 (uniform: 0.66183).
  const std::vector<double> one_group{32, 0, 0, 0, 0, 0, 0, 0};
  CHECK(prob_any_expert(grouped(), one_group) == doctest::Approx(0.45363).epsilon(1e-4));
  CHECK(prob_any_expert(uniform(), {32}) == doctest::Approx(0.66183).epsilon(1e-4));
  // At EP8 (one group per rank) a token needs 8 × 0.45363 = 3.63 ranks, at most topk_group = 4;
  // uniform routing 8 × 0.66183 = 5.29.
  double ranks = 0;
  for (std::size_t r = 0; r < 8; ++r)
    ranks += prob_any_expert(grouped(), held_by_group(grouped(), {r}, 8));
  CHECK(ranks == doctest::Approx(8 * 0.45363).epsilon(1e-4));
  CHECK(ranks <= 4);
  // Four whole groups (a server at EP16): Σ_t C(4,t) C(4,4−t)/70 × Π (128−32t−i)/(128−i) misses,
  // 1 − that = 0.96292 (uniform 0.99651).
  CHECK(prob_any_expert(grouped(), held_by_group(grouped(), {0, 1, 2, 3, 4, 5, 6, 7}, 16)) ==
        doctest::Approx(0.96292).epsilon(1e-4));
  // Keeping every group is no limit: the uniform formula exactly.
  MoeSpec all = grouped();
  all.topk_group = 8;
  CHECK(prob_any_expert(all, one_group) == doctest::Approx(prob_any_expert(256, 8, 32)));
  // Nothing held: never needed; everything held: always.
  CHECK(prob_any_expert(grouped(), std::vector<double>(8, 0.0)) == 0);
  CHECK(prob_any_expert(grouped(), std::vector<double>(8, 32.0)) == doctest::Approx(1));
}

TEST_CASE("held_by_group: contiguous expert ranges split over routing groups") {
  // EP16: rank 1 holds experts 16-31, half of group 0; EP144: rank 17 holds [30.22, 32.0) of
  // group 0 and nothing of group 1 (256/144 = 1.778 experts per rank).
  CHECK(held_by_group(grouped(), {1}, 16)[0] == doctest::Approx(16));
  const std::vector<double> r17 = held_by_group(grouped(), {17}, 144);
  CHECK(r17[0] == doctest::Approx(32 - 17 * 256.0 / 144));
  CHECK(r17[1] == doctest::Approx(18 * 256.0 / 144 - 32));
  double sum = 0;
  for (std::size_t r = 0; r < 144; ++r)
    for (double h : held_by_group(grouped(), {r}, 144)) sum += h;
  CHECK(sum == doctest::Approx(256));  // every expert held once
}

TEST_CASE("two servers with group-limited routing: fewer RDMA bytes, same NVLink forwarding rule") {
  Machine two("hgx-h100-8", 2);
  std::vector<int> g = two.topology.gpus();
  TrafficMatrix m = deepep_normal_matrix(two.topology, g, 1, 1, grouped());
  // Node 1 holds groups 4-7 whole: P(node) = 0.96292; rank 9 holds 16 experts of group 4:
  // 0.5 × (1 − Π (112−i)/(128−i)) = 0.33371 (uniform 0.99651 and 0.40770).
  CHECK(m[0][8] == doctest::Approx(0.96292).epsilon(1e-4));
  CHECK(m[8][9] == doctest::Approx(2 * 0.33371).epsilon(1e-4));
}
