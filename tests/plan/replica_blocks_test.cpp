// Which strategies reduce to one block of replicas (src/plan/replica_blocks.hpp). Expected
// values by hand from the cluster generator: rail-optimized puts each rail of up to 32 servers
// on one leaf (64-port leaves, 32 down); fat-tree puts 32 NICs (4 servers of 8) on a leaf.
#include <doctest/doctest.h>

#include "plan/plan_test_util.hpp"
#include "plan/replica_blocks.hpp"

using namespace topoplan;
using plan_detail::ReplicaBlocks;

namespace {
Strategy st(int tp, int pp, int dp) {
  return test::strat(tp, pp, dp);
}
}  // namespace

TEST_CASE("replica blocks on a rail-optimized cluster: whole servers, one leaf per rail") {
  test::Machine m("hgx-h100-8", 96);  // 768 GPUs: a rail of 96 ports takes 3 leaves of 32
  const ReplicaBlocks b(*m.router);
  const auto canonical = PlacementOrder::TpPpDp;
  CHECK(b.replicas(st(8, 1, 64), canonical) == 1);   // a replica is one server
  CHECK(b.replicas(st(4, 1, 128), canonical) == 2);  // two replicas fill a server
  CHECK(b.replicas(st(8, 1, 96), canonical) == 1);
  CHECK(b.replicas(st(4, 1, 192), canonical) == 2);  // two replicas fill a server
  CHECK(b.replicas(st(1, 1, 768), canonical) == 8);
  CHECK(b.replicas(st(8, 4, 24), canonical) == 1);     // 4 servers, under one leaf per rail
  CHECK(b.replicas(st(8, 32, 3), canonical) == 1);     // 32 servers: exactly one leaf group
  CHECK(b.replicas(st(8, 3, 32), canonical) == 32);    // servers 30-32 straddle two leaves
  CHECK(b.replicas(st(8, 64, 1), canonical) == 1);     // dp 1: nothing to reduce
  CHECK(b.replicas(st(8, 48, 2), canonical) == 2);     // 48 servers span two leaves per rail
  CHECK(b.replicas(st(4, 1, 191), canonical) == 191);  // 2 per block does not divide 191
  CHECK(b.replicas(st(8, 4, 24), PlacementOrder::PpTpDp) == 1);
  // dp-pp-tp strides TP groups over the cluster; optimized picks GPUs freely: no translation.
  CHECK(b.replicas(st(8, 4, 24), PlacementOrder::DpPpTp) == 24);
  CHECK(b.replicas(st(8, 4, 24), PlacementOrder::Optimized) == 24);
}

TEST_CASE("replica blocks on a fat-tree: a block must not straddle two leaves") {
  test::Machine m("hgx-h100-8", 16, FabricKind::FatTree);  // 4 leaves of 4 servers
  const ReplicaBlocks b(*m.router);
  const auto canonical = PlacementOrder::TpPpDp;
  CHECK(b.replicas(st(8, 2, 8), canonical) == 1);  // blocks of 2 servers: 0-1, 2-3 | 4-5, ...
  CHECK(b.replicas(st(8, 4, 4), canonical) == 1);  // 4 servers = one leaf each
  CHECK(b.replicas(st(8, 8, 2), canonical) == 2);  // 8 servers span two leaves
  // 3 servers per replica: the second block (servers 3-5) spans both leaves, its traffic
  // goes up a spine and shares hashed links with other blocks: no reduction.
  CHECK(b.replicas(st(8, 3, 4), canonical) == 4);
  CHECK(b.replicas(st(8, 16, 1), canonical) == 1);
}

TEST_CASE("replica blocks: a single server never reduces (one block holds every replica)") {
  test::Machine m("hgx-h100-8");
  const ReplicaBlocks b(*m.router);
  CHECK(b.replicas(st(1, 1, 8), PlacementOrder::TpPpDp) == 8);
  CHECK(b.replicas(st(2, 2, 2), PlacementOrder::TpPpDp) == 2);
}

TEST_CASE("TP tiles: tp-pp-dp TP groups reduce to one tile even when replicas straddle leaves") {
  test::Machine m("hgx-h100-8", 96);  // rail leaves of 32 servers
  const ReplicaBlocks b(*m.router);
  const auto canonical = PlacementOrder::TpPpDp;
  // tp8 pp3: replicas straddle servers 30-32 (no block), but a TP group is one server.
  CHECK(b.replicas(st(8, 3, 32), canonical) == 32);
  CHECK(b.tp_tile_groups(st(8, 3, 32), canonical) == 1);
  CHECK(b.tp_tile_groups(st(4, 3, 64), canonical) == 2);   // two TP groups per server
  CHECK(b.tp_tile_groups(st(16, 3, 16), canonical) == 1);  // tiles of servers 2k, 2k+1
  // 32 servers = one leaf per rail, aligned at 0, 32, 64: still one tile each.
  CHECK(b.tp_tile_groups(st(256, 1, 3), canonical) == 1);
  CHECK(b.tp_tile_groups(st(768, 1, 1), canonical) == 0);  // one group: nothing to reduce
  // 48 servers: tiles 0-47 | 48-95 span two leaves per rail, their flows reach the spines.
  CHECK(b.tp_tile_groups(st(384, 1, 2), canonical) == 0);
  CHECK(b.tp_tile_groups(st(8, 3, 32), PlacementOrder::PpTpDp) == 0);  // strided TP groups
  CHECK(b.tp_tile_groups(st(8, 3, 32), PlacementOrder::DpPpTp) == 0);
  CHECK(b.tp_tile_groups(st(8, 3, 32), PlacementOrder::Optimized) == 0);
}

TEST_CASE("TP tiles on a fat-tree: a tile must not straddle two leaves") {
  test::Machine m("hgx-h100-8", 16, FabricKind::FatTree);  // 4 leaves of 4 servers
  const ReplicaBlocks b(*m.router);
  const auto canonical = PlacementOrder::TpPpDp;
  CHECK(b.tp_tile_groups(st(32, 1, 4), canonical) == 1);  // 4 servers = one leaf
  CHECK(b.tp_tile_groups(st(16, 3, 2), canonical) == 1);  // 2-server tiles, leaf-aligned
  CHECK(b.tp_tile_groups(st(64, 1, 2), canonical) == 0);  // 8 servers span two leaves
}
