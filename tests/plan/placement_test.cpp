// Placement: orders, coordinates, groups, group summaries, errors, permutation identities.
// Bandwidths from topologies/catalog/links.json: nvlink4 25 GB/s per link × 18 = 450 GB/s per
// direction; ib-ndr400 50 GB/s; pcie4 x16 = 16 × 2 = 32 GB/s (pcie-l40s-8, hand-checked below).
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "plan/placement_fixtures.hpp"
#include "topoplan/error.hpp"
#include "topoplan/placement.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using test::cluster;
using test::strat;

namespace {
int dev(const Topology& t, const std::string& id) {
  auto i = t.find(id);
  REQUIRE(i.has_value());
  return *i;
}
}  // namespace

TEST_CASE("placement order names round-trip, unknown names are input errors") {
  for (const std::string& n : placement_order_names())
    CHECK(to_string(parse_placement_order(n)) == n);
  CHECK(parse_placement_order("TP_PP_DP") == PlacementOrder::TpPpDp);
  CHECK_THROWS_AS(parse_placement_order("tp-dp-pp"), UnknownNameError);
}

TEST_CASE("rank 5 of tp=pp=dp=2 decomposes per order (5 = 0b101)") {
  const Topology t = load_topology("hgx-h20-8");
  const Router r(t);
  const Strategy s = strat(2, 2, 2);
  // tp innermost: tp = 5%2 = 1, pp = (5/2)%2 = 0, dp = 5/4 = 1
  const RankPlacement a = place(r, s, PlacementOrder::TpPpDp).ranks[5];
  CHECK(std::tie(a.tp_rank, a.pp_rank, a.dp_rank) == std::make_tuple(1, 0, 1));
  // dp innermost, tp outermost: dp = 5%2 = 1, pp = (5/2)%2 = 0, tp = 5/4 = 1
  const RankPlacement b = place(r, s, PlacementOrder::DpPpTp).ranks[5];
  CHECK(std::tie(b.tp_rank, b.pp_rank, b.dp_rank) == std::make_tuple(1, 0, 1));
  // pp innermost, then tp: pp = 5%2 = 1, tp = (5/2)%2 = 0, dp = 5/4 = 1
  const RankPlacement c = place(r, s, PlacementOrder::PpTpDp).ranks[5];
  CHECK(std::tie(c.tp_rank, c.pp_rank, c.dp_rank) == std::make_tuple(0, 1, 1));
  // Canonical orders run rank r on the r-th GPU.
  CHECK(a.device == t.gpus()[5]);
  CHECK(c.device_id == "gpu5");
}

TEST_CASE("Placer::take moves the cached placement out and a later place() builds it again") {
  const Topology t = load_topology("hgx-h20-8");
  const Router r(t);
  const Placer placer(r);
  const Strategy s = strat(4, 1, 2);
  const Placement first = placer.place(s, PlacementOrder::DpPpTp);  // a copy
  const Placement taken = placer.take(s, PlacementOrder::DpPpTp);
  CHECK(taken.ranks.size() == 8);
  CHECK(taken.devices() == first.devices());
  CHECK(taken.tp_groups == first.tp_groups);
  CHECK(taken.dp_groups == first.dp_groups);
  CHECK(taken.ranks[5].device_id == first.ranks[5].device_id);
  const Placement& again = placer.place(s, PlacementOrder::DpPpTp);
  CHECK(again.devices() == first.devices());
  CHECK(again.ranks.size() == 8);
}

TEST_CASE("hgx-h20-8 tp=8: one NVLink TP group, no PP/DP traffic") {
  const Topology t = load_topology("hgx-h20-8");
  const Router r(t);
  const Placement p = place(r, strat(8, 1, 1, 8), PlacementOrder::TpPpDp);
  REQUIRE(p.tp_groups.size() == 1);
  CHECK(p.tp_groups[0] == t.gpus());
  CHECK(p.ranks[3].nic == dev(t, "nic3"));  // GPU i and NIC i share a PCIe switch (PIX)
  CHECK(p.ranks[3].nic_id == "nic3");
  const auto sums = summarize_groups(r, p);
  REQUIRE(sums.size() == 4);
  CHECK(sums[0].kind == "tp");
  CHECK(sums[0].groups == 1);
  CHECK(sums[0].size == 8);
  CHECK(sums[0].worst_class == PathClass::NVL);
  CHECK(sums[0].bottleneck_GBps == doctest::Approx(450));  // 18 × 25
  CHECK(sums[0].bottleneck_link == "nvlink4 \u00d718");
  CHECK_FALSE(sums[0].crosses_nodes);
  CHECK(sums[1].kind == "ep");  // ep = tp: the whole TP group, all pairs NVL
  CHECK(sums[1].groups == 1);
  CHECK(sums[1].worst_class == PathClass::NVL);
  CHECK(sums[2].kind == "pp");  // 8 one-stage chains: no traffic
  CHECK(sums[2].groups == 8);
  CHECK(sums[2].size == 1);
  CHECK(sums[2].worst_class == PathClass::LOC);
  CHECK(sums[2].bottleneck_GBps == 0);
  CHECK(sums[2].bottleneck_link.empty());
}

TEST_CASE("ep groups: strided slices of each TP group (SGLang moe_ep groups)") {
  const Topology t = load_topology("hgx-h20-8");
  const Router r(t);
  // tp 8, ep 4 → expert_tp 2: EP groups are TP ranks {0,2,4,6} and {1,3,5,7}.
  const Placement p = place(r, strat(8, 1, 1, 4), PlacementOrder::TpPpDp);
  REQUIRE(p.ep_groups.size() == 2);
  const auto& g = t.gpus();
  CHECK(p.ep_groups[0] == std::vector<int>{g[0], g[2], g[4], g[6]});
  CHECK(p.ep_groups[1] == std::vector<int>{g[1], g[3], g[5], g[7]});
  // ep 1 → every GPU holds all experts: eight one-member groups.
  const Placement q = place(r, strat(4, 1, 2, 1), PlacementOrder::TpPpDp);
  CHECK(q.ep_groups.size() == 8);
  CHECK(q.ep_groups[0].size() == 1);
}

TEST_CASE("invalid strategies are input errors") {
  const Topology t = load_topology("hgx-h20-8");
  const Router r(t);
  CHECK_THROWS_AS(place(r, strat(0, 1, 1), PlacementOrder::TpPpDp), InputError);
  CHECK_THROWS_AS(place(r, strat(8, 1, 1, 3), PlacementOrder::TpPpDp), InputError);
  CHECK_THROWS_AS(place(r, strat(8, 2, 1), PlacementOrder::Optimized), InputError);  // 16 > 8
  CHECK_THROWS_WITH_AS(place(r, strat(4, 2, 2), PlacementOrder::TpPpDp),
                       doctest::Contains("16 GPUs"), InputError);
}

TEST_CASE("every order is a permutation: each rank once, each GPU once, groups consistent") {
  const Topology t = cluster("hgx-h100-8", 2);
  const Router r(t);
  const Placer placer(r);
  for (const Strategy& s : {strat(8, 2, 1, 8), strat(4, 2, 2, 2), strat(2, 4, 2), strat(16, 1, 1),
                            strat(2, 3, 2), strat(1, 1, 12)}) {
    for (const std::string& name : placement_order_names()) {
      CAPTURE(name);
      CAPTURE(s.tp);
      CAPTURE(s.pp);
      const Placement& p = placer.place(s, parse_placement_order(name));
      REQUIRE(p.ranks.size() == static_cast<std::size_t>(s.gpus()));
      std::set<int> devices;
      std::set<std::tuple<int, int, int>> coords;
      for (std::size_t i = 0; i < p.ranks.size(); ++i) {
        CHECK(p.ranks[i].rank == static_cast<int>(i));
        devices.insert(p.ranks[i].device);
        coords.emplace(p.ranks[i].tp_rank, p.ranks[i].pp_rank, p.ranks[i].dp_rank);
      }
      CHECK(devices.size() == p.ranks.size());
      CHECK(coords.size() == p.ranks.size());
      // Group counts and sizes: tp pp·dp×tp, ep (tp/ep)·pp·dp×ep, pp tp·dp×pp, dp tp·pp×dp.
      CHECK(p.tp_groups.size() == static_cast<std::size_t>(s.pp * s.dp));
      CHECK(p.ep_groups.size() == static_cast<std::size_t>(s.tp / s.ep * s.pp * s.dp));
      CHECK(p.pp_chains.size() == static_cast<std::size_t>(s.tp * s.dp));
      CHECK(p.dp_groups.size() == static_cast<std::size_t>(s.tp * s.pp));
      // Group member k has coordinate k in that dimension.
      std::vector<const RankPlacement*> by_device(t.device_count(), nullptr);
      for (const auto& rp : p.ranks) by_device[static_cast<std::size_t>(rp.device)] = &rp;
      for (const auto& g : p.tp_groups)
        for (std::size_t k = 0; k < g.size(); ++k)
          CHECK(by_device[static_cast<std::size_t>(g[k])]->tp_rank == static_cast<int>(k));
      for (const auto& g : p.pp_chains)
        for (std::size_t k = 0; k < g.size(); ++k)
          CHECK(by_device[static_cast<std::size_t>(g[k])]->pp_rank == static_cast<int>(k));
      for (const auto& g : p.dp_groups)
        for (std::size_t k = 0; k < g.size(); ++k)
          CHECK(by_device[static_cast<std::size_t>(g[k])]->dp_rank == static_cast<int>(k));
    }
  }
}

namespace {
// summarize_group read the slow way: every pair routed, no pair skipped as alike.
GroupSummary summarize_every_pair(const Router& r, const std::vector<std::vector<int>>& groups,
                                  bool ring, bool all_pairs) {
  GroupSummary s;
  bool any = false;
  for (const auto& g : groups)
    for (std::size_t i = 0; i < g.size(); ++i)
      for (std::size_t j = 0; j < g.size(); ++j) {
        const bool next = j == i + 1 || (ring && g.size() > 2 && i + 1 == g.size() && j == 0);
        if (i == j || !(all_pairs || next)) continue;
        const Path& p = r.path(g[i], g[j]);
        s.worst_class = std::max(s.worst_class, p.cls);
        if (any && !(p.bw_GBps < s.bottleneck_GBps)) continue;
        any = true;
        s.bottleneck_GBps = p.bw_GBps;
        std::optional<Link> narrowest;
        for (DirLink d : p.hops) {
          const Link l = r.topology().link(link_of(d));
          if (!narrowest || l.bw_GBps < narrowest->bw_GBps) narrowest = l;
        }
        s.bottleneck_link = narrowest ? (narrowest->count > 1 ? narrowest->type + " \u00d7" +
                                                                    std::to_string(narrowest->count)
                                                              : narrowest->type.str())
                                      : "";
      }
  return s;
}
}  // namespace

TEST_CASE("group summaries skip pairs alike to one read and still equal every pair's reading") {
  // Servers wired alike on a 2:1 fat-tree (climbs of 1 and 2 tiers): TP rings inside servers,
  // TP rings and EP all-pairs across servers (dp-pp-tp), pipeline chains across leaves.
  ClusterOptions o;
  o.nodes = 40;
  o.fabric = FabricKind::FatTree;
  o.oversubscription = 2.0;
  const Topology t = load_topology("hgx-h100-8", o);
  const Router r(t);
  for (const PlacementOrder order : {PlacementOrder::TpPpDp, PlacementOrder::DpPpTp}) {
    const Placement p = place(r, strat(8, 4, 10, 8), order);
    const char* name = order == PlacementOrder::TpPpDp ? "tp-pp-dp" : "dp-pp-tp";
    CAPTURE(name);
    const std::vector<std::tuple<const char*, const std::vector<std::vector<int>>*, bool>> kinds = {
        {"tp", &p.tp_groups, false},
        {"ep", &p.ep_groups, true},
        {"pp", &p.pp_chains, false},
        {"dp", &p.dp_groups, false}};
    for (const auto& k : kinds) {
      const char* kind = std::get<0>(k);
      CAPTURE(kind);
      const bool all_pairs = std::get<2>(k);
      const GroupSummary got = summarize_group(r, kind, *std::get<1>(k), all_pairs);
      const GroupSummary want =
          summarize_every_pair(r, *std::get<1>(k), std::string(kind) != "pp", all_pairs);
      CHECK(got.worst_class == want.worst_class);
      CHECK(got.bottleneck_GBps == want.bottleneck_GBps);
      CHECK(got.bottleneck_link == want.bottleneck_link);
    }
  }
}
