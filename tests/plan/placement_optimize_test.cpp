// Placement across servers and the Optimized search: TP inside NVLink / PCIe switch, PP chains
// on one rail, the cost of a bad order, the Placer cache.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "plan/placement_fixtures.hpp"
#include "topoplan/error.hpp"
#include "topoplan/placement.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using test::cluster;
using test::strat;

namespace {
int node_of(const Topology& t, int d) {
  return t.device(d).node;
}
int local_of(const Topology& t, int d) {
  return t.device(d).local_index;
}
// Stage boundaries of every PP chain that cross servers, and how many of those change rail
// (local GPU index, which is also the NIC index on these rail-wired HGX servers).
std::pair<int, int> pp_crossings(const Topology& t, const Placement& p) {
  int cross = 0, off_rail = 0;
  for (const auto& chain : p.pp_chains)
    for (std::size_t i = 0; i + 1 < chain.size(); ++i)
      if (node_of(t, chain[i]) != node_of(t, chain[i + 1])) {
        ++cross;
        off_rail += local_of(t, chain[i]) != local_of(t, chain[i + 1]);
      }
  return {cross, off_rail};
}
}  // namespace

TEST_CASE("2-node hgx-h100-8, tp=8 pp=2: TP inside each server, PP chains on one rail") {
  const Topology t = cluster("hgx-h100-8", 2);
  const Router r(t);
  for (PlacementOrder order : {PlacementOrder::TpPpDp, PlacementOrder::Optimized}) {
    CAPTURE(to_string(order));
    const Placement p = place(r, strat(8, 2, 1), order);
    REQUIRE(p.tp_groups.size() == 2);
    for (const auto& g : p.tp_groups)
      for (int d : g) CHECK(node_of(t, d) == node_of(t, g[0]));
    // 8 chains, each crossing servers once, always between the same local GPU (same rail).
    CHECK(pp_crossings(t, p) == std::make_pair(8, 0));
    for (const auto& chain : p.pp_chains)  // both stages use the NIC of their own rail
      CHECK(local_of(t, r.nic_of_gpu(chain[0])) == local_of(t, r.nic_of_gpu(chain[1])));
    const auto sums = summarize_groups(r, p);
    CHECK(sums[0].worst_class == PathClass::NVL);
    CHECK_FALSE(sums[0].crosses_nodes);
    CHECK(sums[2].worst_class == PathClass::NET);
    CHECK(sums[2].crosses_nodes);
    CHECK(sums[2].bottleneck_GBps == doctest::Approx(50));  // one ConnectX-7 NDR port
    CHECK(sums[2].bottleneck_link == "ib-ndr400");
  }
}

TEST_CASE("dp-pp-tp splits TP across servers and the TP all-reduce gets much slower") {
  const Topology t = cluster("hgx-h100-8", 2);
  const Router r(t);
  const CollectiveModel model(r);
  const Placement good = place(r, strat(8, 2, 1), PlacementOrder::TpPpDp);
  const Placement bad = place(r, strat(8, 2, 1), PlacementOrder::DpPpTp);
  // tp_rank = rank / 2: the pp=0 TP group is ranks 0,2,...,14 = gpus 0,2,4,6 of both servers.
  const auto bad_tp = summarize_group(r, "tp", bad.tp_groups, false);
  CHECK(bad_tp.crosses_nodes);
  CHECK(bad_tp.worst_class == PathClass::NET);
  CHECK(bad_tp.bottleneck_GBps == doctest::Approx(50));
  const double bytes = 256.0 * (1 << 20);
  const PlacementComparison c = compare_placements(model, good, bad, bytes);
  CHECK(c.good_order == "tp-pp-dp");
  CHECK(c.bad_order == "dp-pp-tp");
  CHECK(c.good_tp.worst_class == PathClass::NVL);
  CHECK(c.bad_tp.worst_class == PathClass::NET);
  // At 256 MiB both are bandwidth-bound (S = 268.4 MB).
  // Good: an NVLink ring is an upper bound (NVLS can only be faster): 2·(7/8)·S over
  // 450 GB/s × 0.844 (nvlink4 efficiency) = 1237 µs, plus a few µs of latency.
  CHECK(c.good_us < 1237 + 50);
  // Bad: every rank needs the partial sum of the 4 ranks on the other server, so ≥ S bytes per
  // TP group cross the network in each direction; the two groups share the server's 8 NDR ports
  // (8 × 50 × 0.96 = 384 GB/s): ≥ 2·S / 384 GB/s = 1398 µs whatever the algorithm.
  CHECK(c.bad_us >= 1398);
  CHECK(c.slowdown > 1398.0 / (1237 + 50));
  CHECK(c.slowdown == doctest::Approx(c.bad_us / c.good_us));
  // tp = 1: nothing to all-reduce.
  const PlacementComparison none =
      compare_placements(model, place(r, strat(1, 1, 16), PlacementOrder::TpPpDp),
                         place(r, strat(1, 1, 16), PlacementOrder::DpPpTp), bytes);
  CHECK(none.slowdown == 1);
  // Placements of different strategies cannot be compared.
  CHECK_THROWS_AS(
      compare_placements(model, good, place(r, strat(1, 1, 16), PlacementOrder::TpPpDp), bytes),
      InputError);
}

TEST_CASE("Optimized keeps cross-server stage boundaries on one rail (tp=4 pp=4 on 2 servers)") {
  const Topology t = cluster("hgx-h100-8", 2);
  const Router r(t);
  // Canonical: stages 0,1 on server 0 (locals 0-3, 4-7), 2,3 on server 1 (0-3, 4-7): the 1→2
  // boundary goes from local 4+i to local i, off-rail for all 4 chains.
  const Placement canon = place(r, strat(4, 4, 1), PlacementOrder::TpPpDp);
  CHECK(pp_crossings(t, canon) == std::make_pair(4, 4));
  // Optimized visits server 1's blocks in reverse: the boundary joins local 4+i to 4+i.
  const Placement opt = place(r, strat(4, 4, 1), PlacementOrder::Optimized);
  CHECK(pp_crossings(t, opt) == std::make_pair(4, 0));
  CHECK(communication_proxy(r, opt) < communication_proxy(r, canon));
  CHECK(summarize_group(r, "tp", opt.tp_groups, false).worst_class == PathClass::NVL);
}

TEST_CASE("Optimized packs whole pipelines into a server when they fit (tp=2 pp=3 dp=2)") {
  const Topology t = cluster("hgx-h100-8", 2);
  const Router r(t);
  // Canonical: 6 TP blocks of 2 over 8-GPU servers: the second pipeline (blocks 3,4,5) starts on
  // server 0 (locals 6-7) and continues on server 1: 2 crossings. Optimized: one pipeline per
  // server (3 blocks of 2 = 6 GPUs each), no crossing.
  CHECK(pp_crossings(t, place(r, strat(2, 3, 2), PlacementOrder::TpPpDp)).first == 2);
  const Placement opt = place(r, strat(2, 3, 2), PlacementOrder::Optimized);
  CHECK(pp_crossings(t, opt).first == 0);
  CHECK_FALSE(summarize_group(r, "pp", opt.pp_chains, false).crosses_nodes);
}

TEST_CASE("pcie-l40s-8 tp=2: Optimized keeps each TP pair under one PCIe switch (PIX)") {
  const Topology t = load_topology("pcie-l40s-8");
  const Router r(t);
  const Placement p = place(r, strat(2, 1, 4), PlacementOrder::Optimized);
  const GroupSummary s = summarize_group(r, "tp", p.tp_groups, false);
  CHECK(s.worst_class == PathClass::PIX);
  CHECK(s.bottleneck_GBps == doctest::Approx(32));  // pcie4 x16: 16 × 2 GB/s
  CHECK(s.bottleneck_link == "pcie4 \u00d716");
  // tp=4: best is one socket (PHB through the CPU), never across UPI (SYS).
  CHECK(
      summarize_group(r, "tp", place(r, strat(4, 1, 2), PlacementOrder::Optimized).tp_groups, false)
          .worst_class == PathClass::PHB);
}

TEST_CASE("PCIe server wired with switch pairs {0,4},{1,5},{2,6},{3,7}: Optimized finds them") {
  std::ifstream in(std::string(TOPOPLAN_SOURCE_DIR) + "/topologies/servers/pcie-l40s-8.json");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("\"gpu[0-1]\"", "\"gpu[0,4]\"");
  replace("\"gpu[2-3]\"", "\"gpu[1,5]\"");
  replace("\"gpu[4-5]\"", "\"gpu[2,6]\"");
  replace("\"gpu[6-7]\"", "\"gpu[3,7]\"");
  const Topology t = parse_topology_json(text, "interleaved-l40s.json");
  const Router r(t);
  // Canonical pairs {0,1}: switches 0 and 1 under cpu0 → PHB; {4,5} likewise.
  CHECK(summarize_group(r, "tp", place(r, strat(2, 1, 4), PlacementOrder::TpPpDp).tp_groups, false)
            .worst_class == PathClass::PHB);
  const Placement opt = place(r, strat(2, 1, 4), PlacementOrder::Optimized);
  CHECK(summarize_group(r, "tp", opt.tp_groups, false).worst_class == PathClass::PIX);
  CHECK(opt.tp_groups[0] == std::vector<int>{*t.find("gpu0"), *t.find("gpu4")});
}

TEST_CASE("Placer caches per (strategy, order)") {
  const Topology t = load_topology("hgx-h20-8");
  const Router r(t);
  const Placer placer(r);
  const Placement& a = placer.place(strat(4, 1, 2), PlacementOrder::Optimized);
  const Placement& b = placer.place(strat(4, 1, 2), PlacementOrder::Optimized);
  CHECK(&a == &b);
  CHECK(&placer.place(strat(4, 1, 2), PlacementOrder::TpPpDp) != &a);
  CHECK(a.devices() == place(r, strat(4, 1, 2), PlacementOrder::Optimized).devices());
  CHECK(&placer.router() == &r);
}

TEST_CASE("gb200-nvl72: TP groups of 8 spanning trays stay in the 72-GPU NVLink domain") {
  const Topology t = load_topology("gb200-nvl72");
  const Router r(t);
  const Placement p = place(r, strat(8, 1, 9), PlacementOrder::TpPpDp);
  const GroupSummary s = summarize_group(r, "tp", p.tp_groups, false);
  CHECK(s.groups == 9);
  CHECK(s.worst_class == PathClass::NVL);
  CHECK_FALSE(s.crosses_nodes);  // the whole rack is node 0
}

TEST_CASE("the proxy: Optimized is never worse than canonical, the bad order is worse") {
  const Topology t = cluster("hgx-h100-8", 4);
  const Router r(t);
  for (const Strategy& s : {strat(8, 4, 1), strat(4, 8, 1), strat(2, 2, 8, 2), strat(16, 2, 1),
                            strat(8, 1, 3, 8), strat(1, 4, 8)}) {
    CAPTURE(s.tp);
    CAPTURE(s.pp);
    CAPTURE(s.dp);
    const double canon = communication_proxy(r, place(r, s, PlacementOrder::TpPpDp));
    // Canonical is one of Optimized's candidates, so Optimized ≤ canonical.
    CHECK(communication_proxy(r, place(r, s, PlacementOrder::Optimized)) <= canon);
    // tp outermost strides TP groups by pp·dp GPUs, so a group of 2..8 spans servers while the
    // canonical one sits inside one server's NVLink (tp > 8 spans servers in both orders).
    if (s.tp > 1 && s.tp <= 8 && s.pp * s.dp > 1)
      CHECK(communication_proxy(r, place(r, s, PlacementOrder::DpPpTp)) > canon);
  }
}

TEST_CASE("proxy weights follow the model's step: PP (pp - 1) / layers, EP 2 x MoE share") {
  const Topology t = cluster("hgx-h100-8", 2);
  const Router r(t);
  // tp=4 pp=4 ep=4: f(L) = 2 T_tp + 2 (moe / L) T_ep + (3 / L) T_pp + 0.01 T_dp, so with no MoE
  // layers f is a + b / L: halving 1/L halves the difference, f(10) - f(20) = 2 (f(20) - f(40)).
  const Placement p = place(r, strat(4, 4, 1, 4), PlacementOrder::TpPpDp);
  auto f = [&](int layers, int moe) {
    return communication_proxy(r, p, StepCounts{.layers = layers, .moe_layers = moe});
  };
  CHECK(f(10, 0) > f(20, 0));
  CHECK(f(10, 0) - f(20, 0) == doctest::Approx(2 * (f(20, 0) - f(40, 0))));
  // All layers MoE adds the EP term 2 T_ep whatever the layer count; none adds nothing.
  CHECK(f(10, 10) - f(10, 0) == doctest::Approx(f(40, 40) - f(40, 0)));
  CHECK(f(10, 10) > f(10, 0));
  // Without a pipeline the PP term vanishes: the layer count changes nothing.
  const Placement flat = place(r, strat(4, 1, 4, 4), PlacementOrder::TpPpDp);
  CHECK(communication_proxy(r, flat, StepCounts{.layers = 10, .moe_layers = 0}) ==
        doctest::Approx(communication_proxy(r, flat, StepCounts{.layers = 40, .moe_layers = 0})));
}
