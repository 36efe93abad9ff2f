// The flow engine on hand-built and built-in topologies: closed forms, monotonicity,
// contention between concurrent groups, PCIe-only servers.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>

#include "comm/loads.hpp"
#include "comm_test_util.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using namespace topoplan::test;

TEST_CASE("ring all-reduce on an NVSwitch equals the closed form 2(n-1)/n·S/B + NCCL latency") {
  // 4 GPUs, 100 GB/s per direction to the switch, efficiency 1. Every GPU's link carries
  // 2(n-1)/n·S = 1.5·S each way. NCCL latency (tuning.cc, sm90 on NVLink): Ring Simple base 8.4
  // + 2(n-1) = 6 steps × hwLat 3.4 → alpha = 3.4 per step plus 8.4 once.
  const Topology t = nvswitch_server(4, "H100-SXM", 100, 1.0);
  Router r(t);
  CollectiveModel m(r);
  for (double s : {1e3, 1e6, 1e9}) {
    const CollectiveCost c =
        m.cost_uncached(CollOp::AllReduce, t.gpus(), s, force(Algorithm::Ring, Protocol::Simple));
    CHECK(c.time_us ==
          doctest::Approx(8.4 + ring_closed_form_us(CollOp::AllReduce, 4, s, 100, 3.4)));
    CHECK(c.busbw_GBps == doctest::Approx(c.algbw_GBps * 1.5));
  }
  // All-gather: n-1 = 3 steps of S/n: 0.75·S/100 + 8.4 + 3 × 3.4.
  const CollectiveCost ag =
      m.cost(CollOp::AllGather, t.gpus(), 1e9, force(Algorithm::Ring, Protocol::Simple));
  CHECK(ag.time_us == doctest::Approx(0.75 * 1e9 / 100e3 + 8.4 + 3 * 3.4));
  // Large messages: busbw → B for ring all-reduce and all-gather alike.
  CHECK(m.cost(CollOp::AllReduce, t.gpus(), 1e12, force(Algorithm::Ring)).busbw_GBps ==
        doctest::Approx(100).epsilon(0.001));
  CHECK(m.cost(CollOp::AllGather, t.gpus(), 1e12, force(Algorithm::Ring)).busbw_GBps ==
        doctest::Approx(100).epsilon(0.001));
}

TEST_CASE("switchless NVLink mesh: ring channels spread over every link (issue 14)") {
  // 8 GPUs, one 50 GB/s link per pair, efficiency 1. NCCL's ring search puts its channels on
  // n − 1 = 7 edge-disjoint rings, so every directed link carries 1/7 of one ring's bytes:
  // all-reduce 2(n−1)/n · S / 7 = S/4 per link → time S/(4·50 GB/s) and busbw
  // = algbw · 2(n−1)/n = 200 · 1.75 = 350 GB/s = 7 × 50. One ring in GPU order would give 50.
  const Topology t = mesh_server(8, "H100-SXM", 50);
  Router r(t);
  CollectiveModel m(r);
  const double s = 1e12;  // latency negligible (< 0.1%)
  const CollectiveCost ar = m.cost(CollOp::AllReduce, t.gpus(), s, force(Algorithm::Ring));
  CHECK(ar.busbw_GBps == doctest::Approx(350).epsilon(0.002));
  // All-gather: (n−1)/n · S / 7 = S/8 per link → algbw 400, busbw 400 · 7/8 = 350.
  const CollectiveCost ag = m.cost(CollOp::AllGather, t.gpus(), s, force(Algorithm::Ring));
  CHECK(ag.busbw_GBps == doctest::Approx(350).epsilon(0.002));
  // Three GPUs of the mesh: 2 rings, busbw 2 × 50.
  const std::vector<int> three = first(t, 3);
  CHECK(m.cost(CollOp::AllReduce, three, s, force(Algorithm::Ring)).busbw_GBps ==
        doctest::Approx(100).epsilon(0.002));
}

TEST_CASE("time is monotonic in size and in link bandwidth") {
  const Topology slow = nvswitch_server(8, "H100-SXM", 200, 0.9);
  const Topology fast = nvswitch_server(8, "H100-SXM", 400, 0.9);
  Router rs(slow), rf(fast);
  CollectiveModel ms(rs), mf(rf);
  for (CollOp op : {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter, CollOp::Broadcast,
                    CollOp::AllToAll}) {
    double prev = 0;
    for (double s = 8; s <= 8e9; s *= 4) {
      const double ts = ms.cost(op, slow.gpus(), s).time_us;
      CHECK(ts >= prev);
      CHECK(mf.cost(op, fast.gpus(), s).time_us <= ts);
      prev = ts;
    }
  }
}

TEST_CASE("bus bandwidth identities: busbw = algbw × factor, algbw = size / time") {
  const Topology t = load_topology("hgx-h100-8");
  Router r(t);
  CollectiveModel m(r);
  for (CollOp op : {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter, CollOp::Broadcast,
                    CollOp::Reduce, CollOp::AllToAll}) {
    const CollectiveCost c = m.cost(op, t.gpus(), 256 * kMiB);
    CHECK(c.algbw_GBps == doctest::Approx(256 * kMiB / (c.time_us * 1e3)));
    CHECK(c.busbw_GBps == doctest::Approx(c.algbw_GBps * busbw_factor(op, 8)));
    CHECK(c.bottleneck.utilisation > 0.5);
    CHECK(c.bottleneck.utilisation <= 1.0);
  }
}

namespace {
// Two H100s behind one PCIe switch sharing ONE ConnectX-7 (hand-written to force NIC sharing).
const char* kSharedNicServer = R"({
  "name": "two-gpus-one-nic",
  "devices": [
    {"id": "gpu[0-1]", "type": "gpu", "model": "H100-SXM"},
    {"id": "psw0", "type": "pcie-switch", "model": "PCIe 5.0 switch"},
    {"id": "nic0", "type": "nic", "model": "ConnectX-7"},
    {"id": "cpu0", "type": "cpu", "model": "x86"}
  ],
  "links": [
    {"from": "gpu[0-1]", "to": "psw0", "type": "pcie5", "count": 16},
    {"from": "nic0", "to": "psw0", "type": "pcie5", "count": 16},
    {"from": "psw0", "to": "cpu0", "type": "pcie5", "count": 16}
  ]
})";
}  // namespace

TEST_CASE("contention: two concurrent groups sharing a NIC are slower than one") {
  ClusterOptions o;
  o.nodes = 2;
  const Topology t = make_cluster(parse_topology_json(kSharedNicServer, "test"), o);
  Router r(t);
  CollectiveModel m(r);
  const std::vector<int> a{dev(t, "n0/gpu0"), dev(t, "n1/gpu0")};
  const std::vector<int> b{dev(t, "n0/gpu1"), dev(t, "n1/gpu1")};
  const CollectiveOptions ring = force(Algorithm::Ring, Protocol::Simple);
  const CollectiveCost alone = m.cost(CollOp::AllReduce, a, 1e9, ring);
  const auto both = m.cost_concurrent(CollOp::AllReduce, {a, b}, 1e9, ring);
  REQUIRE(both.size() == 2);
  // Alone: 2 ranks, each sends S once over the NIC port (50 GB/s × 0.96 = 48 < PCIe 64 × 0.8125
  // = 52). Together the port carries 2·S: the transfer part doubles exactly.
  CHECK(alone.bottleneck.type == "ib-ndr400");
  CHECK(alone.time_us - alone.latency_us == doctest::Approx(1e9 / 48e3));
  CHECK(both[0].time_us - both[0].latency_us == doctest::Approx(2 * 1e9 / 48e3));
  CHECK(both[1].time_us == doctest::Approx(both[0].time_us));
  CHECK(both[0].bottleneck.load_bytes == doctest::Approx(2e9));
}

TEST_CASE("contention: groups on different rails of a rail-optimized fabric do not interfere") {
  const Topology t = cluster("hgx-h100-8", 2);
  Router r(t);
  CollectiveModel m(r);
  const std::vector<int> a{dev(t, "n0/gpu0"), dev(t, "n1/gpu0")};
  const std::vector<int> b{dev(t, "n0/gpu1"), dev(t, "n1/gpu1")};
  const CollectiveCost alone = m.cost(CollOp::AllReduce, a, 1e9);
  const auto both = m.cost_concurrent(CollOp::AllReduce, {a, b}, 1e9);
  CHECK(both[0].time_us == doctest::Approx(alone.time_us));
  // Eight TP groups (one per server) never leave their server: concurrent = alone.
  const Topology c8 = cluster("hgx-h100-8", 8);
  Router r8(c8);
  CollectiveModel m8(r8);
  std::vector<std::vector<int>> tp;
  for (int n = 0; n < 8; ++n) tp.push_back(c8.gpus_of_node(n));
  const auto tp_costs = m8.cost_concurrent(CollOp::AllReduce, tp, 64 * kMiB);
  CHECK(tp_costs[7].time_us ==
        doctest::Approx(m8.cost(CollOp::AllReduce, tp[0], 64 * kMiB).time_us));
}

TEST_CASE("PCIe-only server: the ring crosses the CPU link, which bounds it") {
  // pcie-l40s-8: GPUs 0-3 under cpu0, 4-7 under cpu1, sockets joined by UPI (22 GB/s, NCCL's
  // SRP_QPI_BW). Ring 0→…→7→0 crosses UPI once each way (3→4, 7→0), each carrying
  // 2(n-1)/n·S = 1.75·S; PCIe Gen4 x16 switch uplinks (32 × 0.821 = 26.3 GB/s) carry at most
  // the same. So T = 1.75·S/22 + latency; NCCL latency with PCI hops: 8.4 + 14 × 5.7 = 88.2 µs.
  const Topology t = load_topology("pcie-l40s-8");
  Router r(t);
  CollectiveModel m(r);
  const double s = kGiB;
  const CollectiveCost c =
      m.cost(CollOp::AllReduce, t.gpus(), s, force(Algorithm::Ring, Protocol::Simple));
  CHECK(c.bottleneck.kind == LinkKind::CpuLink);
  CHECK(c.time_us == doctest::Approx(88.2 + 1.75 * s / 22e3));
  CHECK(c.busbw_GBps == doctest::Approx(22).epsilon(0.01));
  // No NVLink and no NVSwitch: NVLS cannot run, LL128 is off (typeIntra > NVB).
  CHECK_THROWS_AS(m.cost(CollOp::AllReduce, t.gpus(), s, force(Algorithm::Nvls)), InputError);
  CHECK_THROWS_AS(m.cost(CollOp::AllReduce, t.gpus(), s, force(Algorithm::Ring, Protocol::LL128)),
                  InputError);
  // Four GPUs of one socket stay below the CPU link: faster.
  CHECK(m.cost(CollOp::AllReduce, first(t, 4), s).busbw_GBps > 24);
}

TEST_CASE(
    "send/recv and all-to-all use direct transfers, ragged all-to-all is bound by the hot rank") {
  const Topology t = load_topology("hgx-h100-8");
  Router r(t);
  CollectiveModel m(r);
  // One NVLink bundle: 450 × 0.844 = 379.8 GB/s; 1 GB takes 1e9 / 379.8e3 µs plus latency.
  const CollectiveCost p = m.send_recv(t.gpus()[0], t.gpus()[1], 1e9);
  CHECK(p.algorithm == Algorithm::Direct);
  CHECK(p.time_us - p.latency_us == doctest::Approx(1e9 / (450 * 0.844 * 1e3)));
  // Uniform all-to-all: each GPU sends 7/8 of S out and receives 7/8 in → busbw = B.
  const CollectiveCost u = m.cost(CollOp::AllToAll, t.gpus(), 8e9);
  CHECK(u.busbw_GBps == doctest::Approx(450 * 0.844).epsilon(0.01));
  // Skewed MoE dispatch: rank 7 receives 70% of tokens; its inbound link is the bottleneck.
  const TrafficMatrix skew =
      moe_dispatch_matrix(8, 4096, 7168, 8, {.05, .05, .05, .05, .05, .025, .025, .7});
  const CollectiveCost c = m.all_to_all(t.gpus(), skew);
  CHECK(c.bottleneck.to == "gpu7");
  const CollectiveCost even = m.all_to_all(t.gpus(), moe_dispatch_matrix(8, 4096, 7168, 8));
  CHECK(c.time_us > even.time_us);
}

TEST_CASE("concurrent all-to-all groups and send/recv pairs sharing a NIC slow each other down") {
  // pcie-l40s-8 servers: GPUs 0-3 sit under cpu0, whose NIC is nic0 (ConnectX-7, port 50 × 0.96
  // = 48 GB/s); each GPU's own PCIe Gen4 x16 link gives 32 × 0.821 = 26.27 GB/s. One GPU pair
  // across servers is PCIe-bound (26.27); two pairs behind the same NIC share 48 → 24 each.
  const Topology t = cluster("pcie-l40s-8", 2);
  Router r(t);
  CollectiveModel m(r);
  const std::vector<int> a{dev(t, "n0/gpu0"), dev(t, "n0/gpu1"), dev(t, "n1/gpu0"),
                           dev(t, "n1/gpu1")};
  const std::vector<int> b{dev(t, "n0/gpu2"), dev(t, "n0/gpu3"), dev(t, "n1/gpu2"),
                           dev(t, "n1/gpu3")};
  const CollectiveCost one = m.send_recv(a[0], a[2], 1e9);
  CHECK(one.bottleneck.type == "pcie4");
  CHECK(one.time_us - one.latency_us == doctest::Approx(1e9 / (32 * 0.821 * 1e3)));
  const auto pairs = m.cost_concurrent(CollOp::SendRecv, {{a[0], a[2]}, {b[0], b[2]}}, 1e9);
  CHECK(pairs[0].bottleneck.kind == LinkKind::Network);
  CHECK(pairs[0].time_us - pairs[0].latency_us == doctest::Approx(2e9 / 48e3));
  // EP all-to-all: each group sends half its bytes across servers; together they load the NIC
  // twice as much as one group alone.
  const CollectiveCost alone = m.cost(CollOp::AllToAll, a, 1e9);
  const auto both = m.cost_concurrent(CollOp::AllToAll, {a, b}, 1e9);
  CHECK(both[0].time_us > alone.time_us);
  CHECK(both[1].time_us == doctest::Approx(both[0].time_us));
  CHECK(both[0].bottleneck.kind == LinkKind::Network);
}

TEST_CASE("eight concurrent DP rings share an oversubscribed fat-tree's leaf uplinks") {
  // 32 × hgx-h100-8 on an 8:1 oversubscribed fat-tree: 256 NIC ports fill several leaves (57
  // down, 7 up each), so each rail's DP ring crosses leaf uplinks where consecutive servers sit
  // under different leaves. Alone, one ring (GPU r of every server) is bound by its NICs: each
  // ring edge carries 2(n−1)/n·S = 1.9375·S. With all eight rails' rings running, the eight
  // rings' crossings share the 7 uplinks, so at least one uplink carries two ring edges
  // (pigeonhole) and every ring slows down.
  ClusterOptions o;
  o.nodes = 32;
  o.fabric = FabricKind::FatTree;
  o.oversubscription = 8.0;
  const Topology t = load_topology("hgx-h100-8", o);
  Router r(t);
  CollectiveModel m(r);
  std::vector<std::vector<int>> dp(8);
  for (int n = 0; n < 32; ++n)
    for (std::size_t g = 0; g < 8; ++g) dp[g].push_back(t.gpus_of_node(n)[g]);
  const CollectiveOptions ring = force(Algorithm::Ring, Protocol::Simple);
  const CollectiveCost alone = m.cost(CollOp::AllReduce, dp[0], kGiB, ring);
  const auto all = m.cost_concurrent(CollOp::AllReduce, dp, kGiB, ring);
  CHECK(alone.bottleneck.type == "ib-ndr400");
  CHECK(alone.bottleneck.load_bytes == doctest::Approx(1.9375 * kGiB));
  CHECK(all[0].time_us > 1.1 * alone.time_us);
  CHECK(all[0].bottleneck.load_bytes >= 2 * 1.9375 * kGiB * 0.999);
  CHECK((all[0].bottleneck.from.find("leaf") != std::string::npos ||
         all[0].bottleneck.to.find("leaf") != std::string::npos));
}

TEST_CASE("ragged all-to-all: nccl-tests alltoallv size, bad matrices rejected") {
  const Topology t = load_topology("hgx-h100-8");
  Router r(t);
  CollectiveModel m(r);
  const std::vector<int> g = first(t, 4);
  // Rank 0 sends 3 × 100 MB; rank 3 receives 100 + 200 + 200 = 500 MB, the largest per-rank
  // volume: size = 500 MB, and the switch → gpu3 direction carries all 500 MB.
  TrafficMatrix b(4, std::vector<double>(4, 0.0));
  b[0][1] = b[0][2] = b[0][3] = 100e6;
  b[1][3] = b[2][3] = 200e6;
  const CollectiveCost c = m.all_to_all(g, b);
  CHECK(c.size_bytes == doctest::Approx(500e6));
  CHECK(c.bottleneck.to == "gpu3");
  CHECK(c.bottleneck.load_bytes == doctest::Approx(500e6));
  CHECK(c.time_us - c.latency_us == doctest::Approx(500e6 / (450 * 0.844 * 1e3)));
  b[1][2] = -1;
  CHECK_THROWS_AS(m.all_to_all(g, b), InputError);
  CHECK_THROWS_AS(m.all_to_all(g, TrafficMatrix(3, std::vector<double>(4, 0.0))), InputError);
  CHECK_THROWS_AS(m.all_to_all_concurrent({g, g}, {b}), InputError);
}

TEST_CASE("2 × gb200-nvl72 rail-optimized all-to-all: cross-rail bytes leave by PXN, NIC-bound") {
  // Regression: cross-rail pairs (n0/gpu0 → n1/gpu2) had no route. With 72 rails, NIC r of a
  // rack carries what all 72 local GPUs send to the other rack's GPU r: 72 × S/144 = S/2 per
  // port of 50 × 0.96 = 48 GB/s, so transfer = (S/2) / 48 GB/s (algbw 96 GB/s per rank).
  const Topology t = cluster("gb200-nvl72", 2);
  Router r(t);
  CollectiveModel m(r);
  const double s = 1 * kGiB;
  const CollectiveCost c = m.cost(CollOp::AllToAll, t.gpus(), s);
  CHECK(c.algorithm == Algorithm::Direct);
  CHECK(c.bottleneck.type == "ib-ndr400");
  CHECK(c.time_us - c.latency_us == doctest::Approx(s / 2 / (50 * 0.96 * 1e3)).epsilon(1e-3));
}

TEST_CASE("xGMI and HCCS meshes (issue 30): the ring is spread over all 7 links of each GPU") {
  // RCCL/HCCL are priced with NCCL's ring spread over the mesh's 7 edge-disjoint Hamiltonian
  // cycles (case above), so busbw -> 7 links x per-link GB/s x efficiency at large sizes:
  // MI300X 7 x 64 x 0.8 = 358.4, MI355X 7 x 76.8 x 0.8 = 430.08, Ascend 910B 7 x 28 x 0.8 =
  // 156.8 GB/s (catalog links xgmi-mi300, xgmi-mi355, hccs). One ring in GPU order would give 1/7.
  const double s = 1e12;  // latency negligible
  for (const auto& entry : {std::pair<const char*, double>{"amd-mi300x-8", 358.4},
                            {"amd-mi355x-8", 430.08},
                            {"ascend-910b-8", 156.8}}) {
    // Named copies, not a structured binding: clang 14 (the fuzz preset) cannot capture a
    // binding in CAPTURE's lambda.
    const char* name = entry.first;
    const double busbw = entry.second;
    CAPTURE(name);
    const Topology t = load_topology(name);
    Router r(t);
    CollectiveModel m(r);
    const CollectiveCost ar = m.cost(CollOp::AllReduce, t.gpus(), s, force(Algorithm::Ring));
    CHECK(ar.busbw_GBps == doctest::Approx(busbw).epsilon(0.003));
  }
}

TEST_CASE("repeated pairs are summed the same whatever order the flows come in (issue 32)") {
  // gpu0 → gpu1 repeated with three weights, gpu2 → gpu3 once; in one order and reversed, with
  // few flows (sorted directly) and many (bucketed by source). Every gpu0 → gpu1 byte crosses
  // gpu0's switch link, so that link's load is the sum of the pair's weights, and the group's
  // time per byte is that sum over 100 GB/s (efficiency 1).
  const Topology t = nvswitch_server(4, "H100-SXM", 100, 1.0);
  const Router r(t);
  const std::vector<int>& g = t.gpus();
  const double weights[] = {0.1, 0.7, 1e-9};
  for (const int repeats : {3, 6000}) {
    CAPTURE(repeats);
    std::vector<comm::Flow> flows;
    double sum = 0;
    for (int i = 0; i < repeats; ++i) {
      const double w = weights[i % 3];
      flows.push_back({g[0], g[1], w});
      sum += w;
    }
    flows.push_back({g[2], g[3], 0.5});
    std::vector<comm::Flow> reversed(flows.rbegin(), flows.rend());
    const comm::GroupLoad a = comm::evaluate_group(r, flows);
    const comm::GroupLoad b = comm::evaluate_group(r, std::move(reversed));
    CHECK(a.us_per_byte == b.us_per_byte);  // bit-exact: one summation order
    CHECK(a.weight == b.weight);
    CHECK(a.bottleneck == b.bottleneck);
    CHECK(a.weight == doctest::Approx(sum));
    CHECK(a.us_per_byte == doctest::Approx(sum / (100 * 1e3)));
  }
}

TEST_CASE("the engine sums a large set's pairs as merging it first does (issue 32)") {
  // 6,000 flows (bucketed by source) over the 12 ordered pairs of four GPUs, weights spread
  // over nine decades so that the summation order shows in the last bits. The engine visits
  // each pair's sum without making the merged set; routing the merged set must give the same
  // loads bit for bit.
  const Topology t = nvswitch_server(4, "H100-SXM", 100, 1.0);
  const Router r(t);
  const std::vector<int>& g = t.gpus();
  std::vector<comm::Flow> flows;
  std::uint32_t x = 12345;
  for (int i = 0; i < 6000; ++i) {
    x = x * 1664525u + 1013904223u;  // Numerical Recipes' LCG: reproducible everywhere
    const int a = static_cast<int>(x % 4), b = static_cast<int>((a + 1 + (x >> 8) % 3) % 4);
    flows.push_back({g[static_cast<std::size_t>(a)], g[static_cast<std::size_t>(b)],
                     std::pow(10.0, -static_cast<double>((x >> 12) % 10))});
  }
  std::vector<comm::Flow> merged = flows;
  comm::merge_stretch(merged, 0);
  REQUIRE(merged.size() == 12);
  // Each pair's weight is its copies summed in ascending weight, by hand.
  for (const comm::Flow& m : merged) {
    std::vector<double> copies;
    for (const comm::Flow& f : flows)
      if (f.src == m.src && f.dst == m.dst) copies.push_back(f.weight);
    std::sort(copies.begin(), copies.end());
    double sum = 0;
    for (double w : copies) sum += w;
    CHECK(m.weight == sum);
  }
  const comm::GroupLoad direct = comm::evaluate_group(r, flows);
  const comm::GroupLoad via_merge = comm::evaluate_group(r, merged);
  CHECK(direct.us_per_byte == via_merge.us_per_byte);
  CHECK(direct.weight == via_merge.weight);
  CHECK(direct.bottleneck == via_merge.bottleneck);
}

TEST_CASE("a stretch merged early gives the sums merging the whole set gives (issue 32)") {
  // Two stretches: the pair 1 → 2 only in the second, with three weights; merging the second
  // alone, then the whole, sums it exactly as merging the whole once does (bit for bit).
  const std::vector<comm::Flow> raw = {{5, 6, 0.3},  {1, 2, 0.7}, {9, 1, 1.0},
                                       {1, 2, 1e-9}, {3, 4, 0.5}, {1, 2, 0.1}};
  std::vector<comm::Flow> early = raw, once = raw;
  comm::merge_stretch(early, 1);
  CHECK(early.size() == 4);  // {5, 6} then the second stretch's three pairs
  CHECK(early.front().src == 5);
  comm::merge_stretch(early, 0);
  comm::merge_stretch(once, 0);
  REQUIRE(early.size() == once.size());
  for (std::size_t i = 0; i < once.size(); ++i) {
    CHECK(early[i].src == once[i].src);
    CHECK(early[i].dst == once[i].dst);
    CHECK(early[i].weight == once[i].weight);
  }
  // Ascending weight: 1e-9 + 0.1 + 0.7.
  CHECK(once.front().src == 1);
  CHECK(once.front().weight == (1e-9 + 0.1) + 0.7);
}

TEST_CASE("tree flows: every chain pair once, bytes conserved (issue 32)") {
  // 16 hgx-h100-8 servers, one channel per NIC (8): each channel chains a server's 8 GPUs
  // (7 edges, up and down, 1/8 of the buffer each) and runs two binary trees over the 16 heads
  // (15 edges each, up and down, half of the channel's 1/8 each). Per byte of message, summed
  // over channels: chains 16·14 = 224, trees 2·15·2·(1/2) = 30.
  const Topology t = cluster("hgx-h100-8", 16);
  const Router r(t);
  const comm::GroupInfo g = comm::analyse_group(r, t.gpus(), true);
  REQUIRE(g.channels == 8);
  std::vector<comm::Flow> flows;
  comm::tree_flows(g, flows);
  double intra = 0, inter = 0;
  std::set<std::pair<int, int>> intra_pairs;
  for (const comm::Flow& f : flows) {
    const bool same = t.device(f.src).node == t.device(f.dst).node;
    (same ? intra : inter) += f.weight;
    if (same) CHECK(intra_pairs.insert({f.src, f.dst}).second);  // each chain pair once
  }
  CHECK(intra == doctest::Approx(16 * 14));
  CHECK(inter == doctest::Approx(30));
  // A rotating chain uses all 8 edges of each server's cycle in both directions.
  CHECK(intra_pairs.size() == 16 * 16);
}

TEST_CASE("groups whose flows are made one at a time load links as the whole set does (issue 32)") {
  // Eight concurrent rings across 4 servers (GPU k of every server), given whole and made group
  // by group: the same per-group loads, to the bit; and each alone as evaluate_group gives it.
  const Topology t = cluster("hgx-h100-8", 4);
  const Router r(t);
  std::vector<std::vector<comm::Flow>> sets(8);
  for (int k = 0; k < 8; ++k)
    for (int s = 0; s < 4; ++s)
      sets[static_cast<std::size_t>(k)].push_back(
          {t.gpus()[static_cast<std::size_t>(8 * s + k)],
           t.gpus()[static_cast<std::size_t>(8 * ((s + 1) % 4) + k)], 1.5});
  const comm::FlowSource source = [&](std::size_t g, std::vector<comm::Flow>& out) {
    out = sets[g];
  };
  const std::vector<comm::GroupLoad> whole = comm::evaluate_loads(r, sets);
  const std::vector<comm::GroupLoad> made = comm::evaluate_loads(r, sets.size(), source);
  const std::vector<comm::GroupLoad> each = comm::evaluate_each(r, sets.size(), source);
  REQUIRE(made.size() == 8);
  for (std::size_t g = 0; g < 8; ++g) {
    CHECK(made[g].us_per_byte == whole[g].us_per_byte);
    CHECK(made[g].bottleneck == whole[g].bottleneck);
    CHECK(made[g].weight == whole[g].weight);
    const comm::GroupLoad alone = comm::evaluate_group(r, sets[g]);
    CHECK(each[g].us_per_byte == alone.us_per_byte);
    CHECK(each[g].bottleneck == alone.bottleneck);
  }
  // Each ring puts 1.5 per byte on its rail; the rails are apart, so together or alone alike.
  CHECK(whole[0].weight == doctest::Approx(1.5));
  CHECK(each[0].us_per_byte == whole[0].us_per_byte);
}

TEST_CASE("more concurrent groups than a 16-bit generation counts: none misses its links") {
  // The per-link generation cycles through 65,535 values, so groups g and g + 65,535 of one call
  // get the same one, and between them it wraps and every stamp is cleared. Groups 0 and 65,535
  // send gpu0 → gpu1, every other group gpu1 → gpu0 (the opposite directed links): group 65,535
  // must still fold its links, loaded by both of them (2 per byte). Without the clear, it found
  // group 0's stamp equal to its own and folded nothing.
  const Topology t = nvswitch_server(2, "H100-SXM", 100, 1.0);
  const Router r(t);
  constexpr std::size_t kGroups = 70000, kCycle = 65535;
  const std::vector<comm::GroupLoad> loads =
      comm::evaluate_loads(r, kGroups, [&](std::size_t g, std::vector<comm::Flow>& out) {
        const bool forward = g == 0 || g == kCycle;
        out.push_back({t.gpus()[forward ? 0 : 1], t.gpus()[forward ? 1 : 0], 1.0});
      });
  CHECK(loads[0].weight == 2.0);
  CHECK(loads[kCycle].weight == 2.0);
  CHECK(loads[1].weight == static_cast<double>(kGroups - 2));
  CHECK(loads[kGroups - 1].weight == static_cast<double>(kGroups - 2));
}
