// Prepared collectives (one group priced per class) equal the per-group answer of
// cost_concurrent / send_recv / all_to_all on the same groups, on symmetric and asymmetric sets.
#include <doctest/doctest.h>

#include <algorithm>

#include "comm_test_util.hpp"

using namespace topoplan;
using namespace topoplan::test;

namespace {
// Groups of `size` consecutive GPUs starting at `offset` (a set that straddles servers when the
// size does not divide the server).
std::vector<std::vector<int>> blocks(const Topology& t, int size, int offset = 0) {
  std::vector<std::vector<int>> out;
  const auto& g = t.gpus();
  for (std::size_t s = offset; s + size <= g.size(); s += size)
    out.emplace_back(g.begin() + static_cast<std::ptrdiff_t>(s),
                     g.begin() + static_cast<std::ptrdiff_t>(s) + size);
  return out;
}

// The first group of maximal time, as the planner took it before prepared sets.
const CollectiveCost& first_max(const std::vector<CollectiveCost>& c) {
  return *std::max_element(c.begin(), c.end(),
                           [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
}
}  // namespace

TEST_CASE("prepared concurrent sets: slowest() is the slowest of cost_concurrent") {
  for (const char* fabric : {"rail-optimized", "fat-tree"}) {
    ClusterOptions o;
    o.nodes = 12;
    o.fabric = parse_fabric_kind(fabric);
    const Topology t = load_topology("hgx-h100-8", o);
    Router r(t);
    CollectiveModel m(r);
    for (int size : {2, 3, 8, 16, 24}) {
      for (int offset : {0, 4}) {
        const auto groups = blocks(t, size, offset);
        for (CollOp op : {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter}) {
          CAPTURE(fabric);
          CAPTURE(size);
          CAPTURE(offset);
          const PreparedCollective p = m.prepare(op, groups);
          CHECK(p.groups() == static_cast<int>(groups.size()));
          for (double s : {1e3, 1e6, 1e9}) {
            // A fresh model: the reference shares no cache with the prepared set.
            CollectiveModel fresh(r);
            const auto each = fresh.cost_concurrent(op, groups, s);
            const CollectiveCost& want = first_max(each);
            const CollectiveCost got = p.slowest(s);
            CHECK(got.time_us == want.time_us);
            CHECK(got.algorithm == want.algorithm);
            CHECK(got.protocol == want.protocol);
            CHECK(got.bottleneck.dirlink == want.bottleneck.dirlink);
            const auto all = p.each(s);
            REQUIRE(all.size() == each.size());
            for (std::size_t i = 0; i < all.size(); ++i) CHECK(all[i].time_us == each[i].time_us);
            CHECK(p.classes(s) <= p.groups());
          }
        }
      }
    }
  }
}

TEST_CASE("classes: aligned intra-server groups of identical servers form one class") {
  const Topology t = cluster("hgx-h100-8", 4);
  Router r(t);
  CollectiveModel m(r);
  // 8 groups of 4 GPUs, two per server, all NVSwitch-alike: one class, priced once.
  CHECK(m.prepare(CollOp::AllReduce, blocks(t, 4)).classes(1e6) == 1);
  // Shifted by 2 GPUs, every other group (GPUs 6, 7 | 8, 9) straddles two servers: the
  // straddling groups cross the network and price differently, so there are several classes.
  const PreparedCollective shifted = m.prepare(CollOp::AllReduce, blocks(t, 4, 2));
  CHECK(shifted.classes(1e6) > 1);
  CHECK(shifted.classes(1e6) <= shifted.groups());
}

TEST_CASE("prepared independent send/recv and all-to-all equal the one-at-a-time calls") {
  const Topology t = cluster("hgx-h100-8", 4);
  Router r(t);
  CollectiveModel m(r);
  const auto& g = t.gpus();
  std::vector<std::vector<int>> pairs;
  for (std::size_t i = 0; i + 9 < g.size(); i += 3) pairs.push_back({g[i], g[i + 9]});
  const PreparedCollective p = m.prepare_independent(CollOp::SendRecv, pairs);
  for (double s : {100.0, 1e5, 1e8}) {
    double want = 0;
    for (const auto& pr : pairs) want = std::max(want, m.send_recv(pr[0], pr[1], s).time_us);
    CHECK(p.slowest(s).time_us == want);
  }
  // All-to-all: a unit matrix scaled by the size is the matrix at that size (within rounding:
  // the weights are the same ratios computed from scaled entries).
  const std::vector<int> ep(g.begin(), g.begin() + 16);
  const TrafficMatrix unit = moe_dispatch_matrix(16, 1.0, 1.0, 8);
  const PreparedCollective a = m.prepare_all_to_all({ep}, {unit});
  for (double s : {1e3, 7e6}) {
    const CollectiveCost want = m.all_to_all(ep, moe_dispatch_matrix(16, 1.0, s, 8));
    CHECK(a.slowest(s).time_us == doctest::Approx(want.time_us).epsilon(1e-12));
    CHECK(a.slowest(s).protocol == want.protocol);
  }
}

// Issue 32: between servers, pairs at the same slots whose routes climb equally high are routed
// once (Router::fabric_climb). Stage boundaries of pipelines over 65 servers (three leaves of 32
// servers per rail, or fat-tree leaves of 4) include same-leaf and cross-leaf pairs, PXN relays
// (slot 0 → slot 3) and intra-server pairs; every pair's price must equal its own send_recv.
TEST_CASE("prepared send/recv pairs between servers: one route per (slots, climb), same prices") {
  for (const char* fabric : {"rail-optimized", "fat-tree"}) {
    ClusterOptions o;
    o.nodes = 65;
    o.fabric = parse_fabric_kind(fabric);
    const Topology t = load_topology("hgx-h100-8", o);
    Router r(t);
    CollectiveModel m(r);
    const auto& g = t.gpus();
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t i = 0; i + 8 < g.size(); i += 5) pairs.emplace_back(g[i], g[i + 8]);
    for (std::size_t i = 0; i + 259 < g.size(); i += 11) pairs.emplace_back(g[i], g[i + 259]);
    pairs.emplace_back(g[0], g[1]);
    // Inside servers, priced once per slot pair (servers alike): slots vary with the server.
    for (std::size_t k = 0; k < 65; k += 3)
      pairs.emplace_back(g[8 * k + k % 8], g[8 * k + (k + 3) % 8]);
    const PreparedCollective p = m.prepare_pairs(CollOp::SendRecv, pairs);
    for (double s : {100.0, 1e5, 1e8}) {
      CAPTURE(fabric);
      CAPTURE(s);
      CollectiveModel fresh(r);  // no shared cache
      double want = 0;
      for (const auto& [a, b] : pairs) want = std::max(want, fresh.send_recv(a, b, s).time_us);
      CHECK(p.slowest(s).time_us == want);
      const auto each = p.each(s);
      REQUIRE(each.size() == pairs.size());
      for (std::size_t i = 0; i < pairs.size(); ++i)
        CHECK(each[i].time_us == fresh.send_recv(pairs[i].first, pairs[i].second, s).time_us);
    }
  }
}

// Inside PCIe servers (pcie-l40s-8: pairs under one switch, across CPUs over UPI) the classes
// differ by slot pair; one price per slot pair must be each pair's own send_recv.
TEST_CASE("prepared send/recv pairs inside PCIe servers: one price per slot pair, same prices") {
  ClusterOptions o;
  o.nodes = 9;
  o.fabric = FabricKind::FatTree;
  const Topology t = load_topology("pcie-l40s-8", o);
  Router r(t);
  CollectiveModel m(r);
  const auto& g = t.gpus();
  std::vector<std::pair<int, int>> pairs;
  for (std::size_t k = 0; k < 9; ++k)
    for (std::size_t j = 1; j < 8; j += 3)
      pairs.emplace_back(g[8 * k + k % 8], g[8 * k + (k + j) % 8]);
  const PreparedCollective p = m.prepare_pairs(CollOp::SendRecv, pairs);
  for (double s : {100.0, 1e6}) {
    CAPTURE(s);
    CollectiveModel fresh(r);
    const auto each = p.each(s);
    REQUIRE(each.size() == pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i)
      CHECK(each[i].time_us == fresh.send_recv(pairs[i].first, pairs[i].second, s).time_us);
  }
}

TEST_CASE("ops on one strided group set share its analysis and price as a fresh model does") {
  // The dp-pp-tp contrast's TP groups: one GPU per server, rings across the fabric. All-gather
  // and reduce-scatter rings load links alike and share one load evaluation (issue 32); every
  // op must still price exactly as on a model that saw no other op.
  ClusterOptions o;
  o.nodes = 8;
  const Topology t = load_topology("hgx-h100-8", o);
  Router r(t);
  std::vector<std::vector<int>> groups(8);
  for (std::size_t i = 0; i < t.gpus().size(); ++i) groups[i % 8].push_back(t.gpus()[i]);
  CollectiveModel shared(r);
  for (CollOp op : {CollOp::AllGather, CollOp::ReduceScatter, CollOp::AllReduce}) {
    CAPTURE(static_cast<int>(op));
    const PreparedCollective p = shared.prepare(op, groups);
    for (double s : {1e4, 1e8}) {
      CollectiveModel fresh(r);
      const CollectiveCost want = fresh.prepare(op, groups).slowest(s);
      const CollectiveCost got = p.slowest(s);
      CHECK(got.time_us == want.time_us);
      CHECK(got.algorithm == want.algorithm);
      CHECK(got.bottleneck.dirlink == want.bottleneck.dirlink);
      CHECK(got.bottleneck.load_bytes == want.bottleneck.load_bytes);
    }
  }
}
