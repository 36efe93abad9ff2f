// nccl-tests' point-to-point tests (sendrecv_perf ring, gather, scatter, hypercube) and several
// concurrent groups, with values derived by hand from the link rates.
#include <doctest/doctest.h>

#include "comm_test_util.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using namespace topoplan::test;

namespace {
CollectiveOptions ring_pattern() {
  CollectiveOptions o;
  o.send_recv = SendRecvPattern::Ring;
  return o;
}
// Direct (p2p) Simple latency on one NVLink server: NCCL's Ring Simple base 8.4 + NVLink hwLat
// 3.4 (tuning.cc, topologies/tuning/nccl.json), once per round.
constexpr double kP2pSimpleUs = 8.4 + 3.4;
}  // namespace

TEST_CASE("gather and scatter: the root's link carries (n-1)/n of the size and busbw is (n-1)/n") {
  // 4 GPUs on one NVSwitch at 100 GB/s per direction, efficiency 1. Gather of S = 1 GB: three
  // ranks send S/4 each into the root's downlink, 0.75 GB / 100 GB/s = 7,500 µs, one p2p round.
  const Topology t = nvswitch_server(4, "H100-SXM", 100, 1.0);
  Router r(t);
  CollectiveModel m(r);
  for (CollOp op : {CollOp::Gather, CollOp::Scatter}) {
    CAPTURE(to_string(op));
    const CollectiveCost c = m.cost(op, t.gpus(), 1e9);
    CHECK(c.time_us == doctest::Approx(7500 + kP2pSimpleUs));
    CHECK(c.latency_us == doctest::Approx(kP2pSimpleUs));
    CHECK(c.algorithm == Algorithm::Direct);
    CHECK(c.algbw_GBps == doctest::Approx(1e9 / (c.time_us * 1e3)));
    CHECK(c.busbw_GBps == doctest::Approx(c.algbw_GBps * 0.75));
    CHECK(c.bottleneck.load_bytes == doctest::Approx(0.75e9));
    // The root's link is the busy one: into the root for gather, out of it for scatter.
    const auto root_end = [op](const CollectiveCost& x) {
      return op == CollOp::Gather ? x.bottleneck.to : x.bottleneck.from;
    };
    CHECK(root_end(c) == "gpu0");
    CollectiveOptions root2;
    root2.root = 2;
    const CollectiveCost c2 = m.cost(op, t.gpus(), 1e9, root2);
    CHECK(c2.time_us == doctest::Approx(c.time_us));
    CHECK(root_end(c2) == "gpu2");
  }
  CollectiveOptions outside;
  outside.root = 4;
  CHECK_THROWS_AS(m.cost(CollOp::Gather, t.gpus(), 1e9, outside), FieldError);
  CHECK_THROWS_AS(m.cost(CollOp::Gather, t.gpus(), 1e9, force(Algorithm::Ring)), FieldError);
  CHECK(busbw_factor(CollOp::Gather, 8) == doctest::Approx(7.0 / 8));
  CHECK(busbw_factor(CollOp::Scatter, 4) == doctest::Approx(0.75));
}

TEST_CASE("hypercube: log2(n) rounds of 2^k/n of the size and algbw counts (n-1)/n = busbw") {
  // 8 GPUs on one NVSwitch at 100 GB/s: rounds move S/8, S/4, S/2 over every GPU's link, each
  // its own p2p round: 7/8 · 1 GB / 100 GB/s = 8,750 µs + 3 latencies. nccl-tests' algbw is what
  // a rank receives, S · 7/8, over the time (HyperCubeGetBw), and busbw equals it.
  const Topology t = nvswitch_server(8, "H100-SXM", 100, 1.0);
  Router r(t);
  CollectiveModel m(r);
  const CollectiveCost c = m.cost(CollOp::Hypercube, t.gpus(), 1e9);
  CHECK(c.time_us == doctest::Approx(8750 + 3 * kP2pSimpleUs));
  CHECK(c.latency_us == doctest::Approx(3 * kP2pSimpleUs));
  CHECK(c.algbw_GBps == doctest::Approx(0.875e9 / (c.time_us * 1e3)));
  CHECK(c.busbw_GBps == doctest::Approx(c.algbw_GBps));
  CHECK(c.bottleneck.load_bytes == doctest::Approx(0.5e9));  // the last, longest round
  CHECK(algbw_bytes_factor(CollOp::Hypercube, 8) == doctest::Approx(0.875));
  // Four GPUs: S/4 + S/2.
  CHECK(m.cost(CollOp::Hypercube, first(t, 4), 1e9).time_us ==
        doctest::Approx(7500 + 2 * kP2pSimpleUs));
  CHECK_THROWS_AS(m.cost(CollOp::Hypercube, first(t, 6), 1e9), InputError);
  CHECK(m.cost(CollOp::Hypercube, first(t, 1), 1e9).time_us == 0);
}

TEST_CASE("send-recv ring: every rank sends to the next at once, so shared links slow it") {
  // pcie-l40s-8 servers (engine_test): GPU 0 and GPU 2 sit under different PCIe switches of cpu0,
  // whose NIC port gives 48 GB/s; each GPU's own PCIe link 32 × 0.821 = 26.27 GB/s. The ring
  // n0/gpu0 → n1/gpu0 → n0/gpu2 → n1/gpu2 → n0/gpu0 sends two transfers out of n0's NIC at
  // once: 2 GB / 48 GB/s. The pair alone is bound by its PCIe link: 1 GB / 26.27 GB/s.
  const Topology t = cluster("pcie-l40s-8", 2);
  Router r(t);
  CollectiveModel m(r);
  const std::vector<int> ring{dev(t, "n0/gpu0"), dev(t, "n1/gpu0"), dev(t, "n0/gpu2"),
                              dev(t, "n1/gpu2")};
  const CollectiveCost pair = m.cost(CollOp::SendRecv, {ring[0], ring[1]}, 1e9);
  CHECK(pair.time_us - pair.latency_us == doctest::Approx(1e9 / (32 * 0.821 * 1e3)));
  const CollectiveCost c = m.cost(CollOp::SendRecv, ring, 1e9, ring_pattern());
  CHECK(c.ranks == 4);
  CHECK(c.time_us - c.latency_us == doctest::Approx(2e9 / 48e3));
  CHECK(c.latency_us == doctest::Approx(pair.latency_us));  // one round
  CHECK(c.bottleneck.kind == LinkKind::Network);
  CHECK(c.busbw_GBps == doctest::Approx(c.algbw_GBps));
  CHECK(c.algbw_GBps == doctest::Approx(1e9 / (c.time_us * 1e3)));
  // Two ranks: each sends to the other; full-duplex links make it as fast as the pair.
  const CollectiveCost two = m.cost(CollOp::SendRecv, {ring[0], ring[1]}, 1e9, ring_pattern());
  CHECK(two.time_us == doctest::Approx(pair.time_us));
  // The library's default stays the pair (pipeline boundaries): n != 2 is refused there.
  CHECK_THROWS_AS(m.cost(CollOp::SendRecv, ring, 1e9), InputError);
}

TEST_CASE("concurrent groups: sharing a bottleneck link is slower than alone but disjoint is not") {
  // Same servers. Groups {n0/gpu0, n1/gpu0} and {n0/gpu2, n1/gpu2} leave through n0's one NIC
  // (48 GB/s): together 2 GB cross it each way, 2e9 / 48e3 µs, where one alone is PCIe-bound.
  // {n0/gpu4, n1/gpu4} hangs off cpu1 and its NIC: nothing shared, nothing slower.
  const Topology t = cluster("pcie-l40s-8", 2);
  Router r(t);
  CollectiveModel m(r);
  const std::vector<int> a{dev(t, "n0/gpu0"), dev(t, "n1/gpu0")};
  const std::vector<int> b{dev(t, "n0/gpu2"), dev(t, "n1/gpu2")};
  const std::vector<int> d{dev(t, "n0/gpu4"), dev(t, "n1/gpu4")};
  for (CollOp op : {CollOp::SendRecv, CollOp::AllReduce, CollOp::Gather, CollOp::Hypercube}) {
    CAPTURE(to_string(op));
    const CollectiveOptions o = ring_pattern();
    const CollectiveCost alone = m.prepare(op, {a}, o).slowest(1e9);
    const CollectiveCost shared = m.prepare(op, {a, b}, o).slowest(1e9);
    const CollectiveCost disjoint = m.prepare(op, {a, d}, o).slowest(1e9);
    CHECK(shared.time_us > alone.time_us * 1.05);
    CHECK(disjoint.time_us == doctest::Approx(alone.time_us));
    CHECK(m.prepare(op, {a, b}, o).groups() == 2);
  }
  const CollectiveCost sr = m.prepare(CollOp::SendRecv, {a, b}, ring_pattern()).slowest(1e9);
  CHECK(sr.time_us - sr.latency_us == doctest::Approx(2e9 / 48e3));
  // Groups whose shares depend on n must match in size.
  CHECK_THROWS_AS(m.prepare(CollOp::Gather, {a, {b[0], b[1], d[0]}}, {}).slowest(1e9), InputError);
}

TEST_CASE("nccl-tests program names of the point-to-point tests") {
  CHECK(parse_coll_op("gather_perf") == CollOp::Gather);
  CHECK(parse_coll_op("scatter_perf") == CollOp::Scatter);
  CHECK(parse_coll_op("hypercube_perf") == CollOp::Hypercube);
  CHECK(parse_coll_op("sendrecv_perf") == CollOp::SendRecv);
  CHECK(to_string(CollOp::Hypercube) == "hypercube");
}
