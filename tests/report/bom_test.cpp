// `compare --bom`: counts from the graph derived by hand for 1,024-GPU designs, NVL72 rack power,
// identities (one optic per cable end, non-blocking leaves, oversubscription saves spines), the
// price table's overrides and errors.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "report/compare.hpp"
#include "report/compare_costs.hpp"
#include "topoplan/bom.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"
#include "topoplan/topology.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using namespace topoplan::report;

namespace {

Topology cluster(const std::string& server, int nodes, FabricKind kind, int tiers = 0,
                 double oversubscription = 1.0) {
  ClusterOptions o;
  o.nodes = nodes;
  o.fabric = kind;
  o.tiers = tiers;
  o.oversubscription = oversubscription;
  return load_topology(server, o);
}

// A design without a plan (the bill does not need one), priced as compare prices it.
Comparison bill_of(Topology t, const BomOptions& o = {}) {
  DesignResult d;
  d.topology = std::move(t);
  d.gpu_model = d.topology.device(d.topology.gpus().front()).model;
  d.gpu_W = {d.topology.catalog().gpu(d.gpu_model).power_W, "test"};
  d.server_overhead_W = server_overhead_W(d.gpu_model);
  Comparison c;
  c.designs.push_back(std::move(d));
  add_bom(c, o);
  return c;
}

const BomLevel& level(const BomCounts& n, int lv) {
  REQUIRE(static_cast<int>(n.levels.size()) >= lv);
  return n.levels[static_cast<std::size_t>(lv - 1)];
}

}  // namespace

// (a) 128 HGX H100 servers (8 GPUs, 8 ConnectX-7 NDR NICs each), rail-optimized, radix-64
// NDR switches (QM9700), non-blocking: each rail is a plane of 128 NIC ports.
//   leaf: 32 ports down, 32 up; 128 / 32 = 4 leaves per rail, 8 rails → 32 leaves.
//   spine: a rail's 4 leaves × 32 uplinks = 128 uplinks / 64 ports = 2 spines per rail
//   (each spine takes 16 links from each leaf) → 16 spines. 48 switches.
//   cables: NIC-leaf 1,024, leaf-spine 32 × 32 = 1,024; optics 2 per cable = 2,048 + 2,048.
TEST_CASE("bom: 2-tier rail-optimized 1,024 GPUs, counted by hand") {
  const Comparison c = bill_of(cluster("hgx-h100-8", 128, FabricKind::RailOptimized));
  const Bom& b = *c.designs[0].bom;
  const BomCounts& n = b.counts;
  CHECK(n.servers == 128);
  CHECK(n.gpus == 1024);
  CHECK(n.nics == 1024);
  REQUIRE(n.levels.size() == 2);
  CHECK(level(n, 1).switches == 32);
  CHECK(level(n, 2).switches == 16);
  CHECK(level(n, 1).cables == 1024);
  CHECK(level(n, 2).cables == 1024);
  CHECK(n.optics() == 4096);
  CHECK(level(n, 1).switch_ports_used == 32 * 64);  // every leaf port used
  CHECK(level(n, 2).switch_ports_used == 16 * 64);
  CHECK(level(n, 1).link == "ib-ndr400");
  CHECK(n.nvlink_switch_trays == 0);
  // Power: GPUs 1,024 × 700 W = 716,800; rest 128 × 4,600 = 588,800; switches 48 × 747 =
  // 35,856; optics 4,096 × 8.5 = 34,816; IT 1,376,272 W; × PUE 1.3 = 1,789,153.6 W.
  CHECK(b.power.gpus_W == doctest::Approx(716800));
  CHECK(b.power.server_rest_W == doctest::Approx(588800));
  CHECK(b.power.switches_W == doctest::Approx(35856));
  CHECK(b.power.optics_W == doctest::Approx(34816));
  CHECK(b.power.it_W == doctest::Approx(1376272));
  CHECK(b.power.facility_W == doctest::Approx(1789153.6));
  // Capex: servers 128 × 250,000 = 32,000,000; NICs 1,024 × 1,800 = 1,843,200; switches
  // 48 × 28,000 = 1,344,000; optics 4,096 × 750 = 3,072,000; cables 2,048 × 100 = 204,800;
  // 38,464,000 over 4 × 8,760 h = 1,097.72 $/h; energy 1,789.15 kW × 0.08 = 143.13 $/h.
  CHECK(b.cost.capex_usd == doctest::Approx(38464000));
  CHECK(b.cost.capex_usd_per_h == doctest::Approx(38464000.0 / 35040));
  CHECK(b.cost.energy_usd_per_h == doctest::Approx(1789.1536 * 0.08));
  CHECK(b.cost.complete);
  CHECK_FALSE(b.usd_per_mtok.has_value());  // no plan
}

// (b) the same 1,024 NIC ports as one fat-tree plane, forced to 3 tiers (src/hw/cluster.cpp):
//   leaf: 1,024 / 32 = 32 leaves, 32 up each.
//   spine (not the top tier): one block of the 32 leaves (h = 32 children); each leaf's 32
//   uplinks go one to each of 32 spines → 32 spines, each 32 down + 32 up.
//   core (top): one child block of 32 spine positions; each spine's 32 uplinks go as one
//   bundle of 32 to its own core → 32 cores with 32 of 64 ports used. 96 switches.
//   cables 1,024 per tier, 3,072; optics 6,144.
TEST_CASE("bom: 3-tier fat-tree 1,024 GPUs, counted by hand") {
  const Comparison c = bill_of(cluster("hgx-h100-8", 128, FabricKind::FatTree, 3));
  const BomCounts& n = c.designs[0].bom->counts;
  REQUIRE(n.levels.size() == 3);
  CHECK(level(n, 1).switches == 32);
  CHECK(level(n, 2).switches == 32);
  CHECK(level(n, 3).switches == 32);
  CHECK(n.switches() == 96);
  CHECK(level(n, 1).cables == 1024);
  CHECK(level(n, 2).cables == 1024);
  CHECK(level(n, 3).cables == 1024);
  CHECK(n.optics() == 6144);
  CHECK(level(n, 3).switch_ports_used == 32 * 32);  // the cores are half used
  CHECK(level(n, 3).cable_name == "spine-core");
  // 96 × 747 W switches, 6,144 × 8.5 W optics.
  CHECK(c.designs[0].bom->power.switches_W == doctest::Approx(96 * 747.0));
  CHECK(c.designs[0].bom->power.optics_W == doctest::Approx(6144 * 8.5));
}

// (c) GB200 NVL72: 72 × 1,200 W + 33,600 W overhead = 120 kW published rack power (costs.json).
// Trays: 72 GPUs × 18 NVLink5 = 1,296 ports / 144 per tray = 9 trays × 400 W = 3.6 kW of it.
// GB300: 72 × 1,400 + 31,200 = 132 kW.
TEST_CASE("bom: NVL72 rack power is the published rack power, trays inside it") {
  const Bom b = *bill_of(load_topology("gb200-nvl72")).designs[0].bom;
  CHECK(b.counts.nvlink_tray_ports == 1296);
  CHECK(b.counts.nvlink_switch_trays == 9);
  CHECK(b.power.nvlink_trays_W == doctest::Approx(3600));
  CHECK(b.power.server_rest_W == doctest::Approx(30000));
  CHECK(b.power.it_W == doctest::Approx(120000));
  CHECK(b.power.facility_W == doctest::Approx(156000));
  CHECK(b.counts.levels.empty());  // one rack: no fabric switches
  const Bom b3 = *bill_of(load_topology("gb300-nvl72")).designs[0].bom;
  CHECK(b3.counts.nvlink_switch_trays == 9);
  CHECK(b3.power.it_W == doctest::Approx(132000));
  // An HGX board's NVSwitches are in its server: no trays.
  CHECK(bill_of(load_topology("hgx-b200-8")).designs[0].bom->counts.nvlink_switch_trays == 0);
}

TEST_CASE("bom: every cable crossing a tier has one optic per end") {
  for (const FabricKind kind : {FabricKind::RailOptimized, FabricKind::FatTree}) {
    const BomCounts n = bill_of(cluster("hgx-h100-8", 40, kind)).designs[0].bom->counts;
    for (const BomLevel& l : n.levels) {
      CAPTURE(l.cable_name);
      CHECK(l.optics == 2 * l.cables);
      CHECK(l.switch_ports_used <= 64 * l.switches);
    }
    // Each cable has one end on its level's switches and one below: the ends add up.
    long long ends = n.nics;
    for (const BomLevel& l : n.levels) ends += l.switch_ports_used;
    CHECK(ends == 2 * n.cables());
  }
}

TEST_CASE("bom: a non-blocking leaf has as many ports up as down") {
  const Topology t = cluster("hgx-h100-8", 128, FabricKind::FatTree);
  std::map<int, long long> down, up;
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    if (l.kind != LinkKind::Network) continue;
    const Device& a = t.device(l.a);
    const Device& b = t.device(l.b);
    if (b.tier == 1 && a.type == DeviceType::Nic) down[l.b] += l.count;
    if (a.tier == 1 && b.tier == 2) up[l.a] += l.count;
  }
  REQUIRE(down.size() == 32);
  for (const auto& leaf : down) CHECK(up[leaf.first] == leaf.second);
}

// Oversubscription 3:1 (down = round(64 × 3/4) = 48, up 16): a rail of 128 ports needs
// ceil(128 / 48) = 3 leaves whose 3 × 16 = 48 uplinks fit one spine → 24 leaves, 8 spines
// (16 non-blocking), leaf-spine cables 8 × 48 = 384.
TEST_CASE("bom: an oversubscribed fabric has fewer spines") {
  const BomCounts full =
      bill_of(cluster("hgx-h100-8", 128, FabricKind::RailOptimized)).designs[0].bom->counts;
  const BomCounts over =
      bill_of(cluster("hgx-h100-8", 128, FabricKind::RailOptimized, 0, 3.0)).designs[0].bom->counts;
  CHECK(level(over, 1).switches == 24);
  CHECK(level(over, 2).switches == 8);
  CHECK(level(over, 2).cables == 384);
  CHECK(level(over, 2).switches < level(full, 2).switches);
  CHECK(over.optics() < full.optics());
}

// 16 servers: a rail of 16 ports is one leaf (8 leaves, no spines, 128 cables); a fat-tree of
// 128 ports needs 4 leaves of 32 and 2 spines (128 + 128 cables).
TEST_CASE("bom: rail-optimized and fat-tree differ where the physics says") {
  const BomCounts rail =
      bill_of(cluster("hgx-h100-8", 16, FabricKind::RailOptimized)).designs[0].bom->counts;
  const BomCounts tree =
      bill_of(cluster("hgx-h100-8", 16, FabricKind::FatTree)).designs[0].bom->counts;
  REQUIRE(rail.levels.size() == 1);
  CHECK(rail.switches() == 8);
  CHECK(rail.cables() == 128);
  REQUIRE(tree.levels.size() == 2);
  CHECK(level(tree, 1).switches == 4);
  CHECK(level(tree, 2).switches == 2);
  CHECK(tree.cables() == 256);
}

TEST_CASE("bom: settings and prices from the command line and a file") {
  BomOptions o;
  o.pue = 1.1;
  o.kwh_usd = 0.1;
  o.years = 5;
  o.item_prices = {"switch:ib-ndr400=20000"};
  const Bom b = *bill_of(cluster("hgx-h100-8", 16, FabricKind::RailOptimized), o).designs[0].bom;
  CHECK(b.power.pue == doctest::Approx(1.1));
  CHECK(b.pue_source == "--pue");
  CHECK(b.cost.years == doctest::Approx(5));
  // 16 × 250,000 + 128 × 1,800 + 8 × 20,000 + 256 × 750 + 128 × 100 = 4,595,200.
  CHECK(b.cost.capex_usd == doctest::Approx(4595200));
  CHECK_THROWS_AS(
      bill_of(load_topology("hgx-h100-8"), BomOptions{"", {"switch:nope=1"}, {}, {}, {}}),
      InputError);
  CHECK_THROWS_AS(
      bill_of(load_topology("hgx-h100-8"), BomOptions{"", {"nic:ConnectX-7=-1"}, {}, {}, {}}),
      FieldError);
  CHECK_THROWS_AS(bill_of(load_topology("hgx-h100-8"), BomOptions{"", {}, 0.5, {}, {}}),
                  FieldError);
  const std::string path = "bom_test_prices.json";
  {
    std::ofstream f(path);
    f << R"({"switches": [{"link": "ib-ndr400", "usd": 10000}], "defaults": {"pue": {"value": 1.5}}})";
  }
  const PriceTable t = load_price_table(path);
  CHECK(t.find("switch", "ib-ndr400")->usd == doctest::Approx(10000));
  CHECK(t.find("switch", "ib-ndr400")->W == doctest::Approx(747));  // kept
  CHECK(t.pue.value == doctest::Approx(1.5));
  {
    std::ofstream f(path);
    f << R"({"optics": [{"link": "ib-ndr400", "usd": -3}]})";
  }
  CHECK_THROWS_WITH(load_price_table(path),
                    doctest::Contains("bom_test_prices.json: /optics/0/usd: must be >= 0"));
  {
    std::ofstream f(path);
    f << R"({"optics": [{"link": "my-link", "usd": 3}]})";
  }
  CHECK_THROWS_WITH(load_price_table(path), doctest::Contains("/optics/0/name: missing field"));
  std::remove(path.c_str());
}

TEST_CASE("compare --bom: the overall winner is the lowest cost of ownership per output token") {
  // The same servers and plan on a rail-optimized (8 leaves) and a fat-tree (1 leaf) fabric tie
  // on the GPU-hour price; their bills differ by 7 leaf switches, so the fat-tree wins.
  const ModelSpec m = load_model("llama-3-8b");
  Comparison c = compare_designs(m,
                                 {parse_design("hgx-h100-8:nodes=4:name=rail"),
                                  parse_design("hgx-h100-8:nodes=4:fabric=fat-tree:name=fat")},
                                 PlanRequest{}, {});
  CHECK(c.criterion == "usd_per_mtok");
  add_bom(c, BomOptions{});
  REQUIRE(c.designs[0].bom->usd_per_mtok);
  REQUIRE(c.designs[1].bom->usd_per_mtok);
  CHECK(*c.designs[1].bom->usd_per_mtok < *c.designs[0].bom->usd_per_mtok);
  CHECK(c.criterion == "bom_usd_per_mtok");
  CHECK(c.overall == 1);
  CHECK(c.why.find("fat wins on the cost of ownership") == 0);
}
