// Generated clusters: structure, structural routes between servers, ECMP, bisection.
// ConnectX-7 ports are ib-ndr400: 50 GB/s per direction, 0.35 µs (topologies/catalog).
#include <doctest/doctest.h>

#include <map>
#include <memory>
#include <vector>

#include "route/route_helpers.hpp"
#include "topoplan/error.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using topoplan::test::check_path;
using topoplan::test::id;

namespace {
int count_type(const Topology& t, DeviceType type, int tier = -1) {
  int n = 0;
  for (std::size_t d = 0; d < t.device_count(); ++d) {
    const Device& dev = t.device(static_cast<int>(d));
    n += dev.type == type && (tier < 0 || dev.tier == tier);
  }
  return n;
}
Topology cluster(const std::string& server, int nodes, const std::string& fabric,
                 double oversub = 1.0) {
  ClusterOptions o;
  o.nodes = nodes;
  o.fabric = parse_fabric_kind(fabric);
  o.oversubscription = oversub;
  return make_cluster(load_topology(server), o);
}
}  // namespace

TEST_CASE("2-node rail-optimized hgx-h100-8: NET paths through the rail leaf") {
  const Topology t = cluster("hgx-h100-8", 2, "rail-optimized");
  CHECK(t.gpus().size() == 16);
  CHECK(t.node_count() == 2);
  CHECK(count_type(t, DeviceType::NetSwitch) == 8);  // one leaf per rail, 2 ports each
  CHECK(t.fabric.tiers == 1);
  CHECK(t.fabric.link == "ib-ndr400");
  CHECK(t.validate().empty());
  Router r(t);
  // n0/gpu0→psw0→nic0→rail0/leaf0→nic0→psw0→gpu0: NET, bottleneck the 50 GB/s NIC port,
  // latency 4 × 0.5 (PCIe) + 2 × 0.35 (IB) = 2.7 µs.
  const Path& p = r.path(id(t, "n0/gpu0"), id(t, "n1/gpu0"));
  check_path(p, PathClass::NET, 50, 2.7);
  REQUIRE(p.hops.size() == 6);
  CHECK(t.device(t.to_device(p.hops[2])).id == "rail0/leaf0");
  // Cross-rail: gpu0 relays over NVLink to gpu3 and uses nic3 (PXN), then rail 3:
  // 0.3 + 0.3 + 0.5 + 0.5 + 0.35 + 0.35 + 0.5 + 0.5 = 3.3 µs.
  const Path& x = r.path(id(t, "n0/gpu0"), id(t, "n1/gpu3"));
  check_path(x, PathClass::NET, 50, 3.3);
  // Inside one server the network is never used.
  const Path& in = r.path(id(t, "n1/gpu0"), id(t, "n1/gpu7"));
  CHECK(in.cls == PathClass::NVL);
  CHECK(in.bw_GBps == doctest::Approx(450));
  CHECK(t.device(r.nic_of_gpu(id(t, "n1/gpu5"))).id == "n1/nic5");
  CHECK(r.network_GBps(id(t, "n1/gpu5")) == doctest::Approx(50));
}

TEST_CASE("rail-optimized: spines appear when one leaf cannot hold a rail") {
  // 96 servers: each rail has 96 ports > 64, so 3 leaves of 32 down + 32 up ports per rail.
  // Their 3 × 32 uplinks fit one top tier; 3 leaves × 32/C ≤ 64 ports needs C = 2 spines
  // per rail, each taking 16 bundled links from every leaf.
  const Topology t = cluster("hgx-h100-8", 96, "rail-optimized");
  CHECK(t.fabric.tiers == 2);
  CHECK(count_type(t, DeviceType::NetSwitch, 1) == 8 * 3);
  CHECK(count_type(t, DeviceType::NetSwitch, 2) == 8 * 2);
  Router r(t);
  const Path& p = r.path(id(t, "n0/gpu2"), id(t, "n95/gpu2"));  // leaf0 → spine → leaf2
  CHECK(p.cls == PathClass::NET);
  CHECK(p.hops.size() == 8);
  CHECK(p.bw_GBps == doctest::Approx(50));
  const Path& q = r.path(id(t, "n0/gpu2"), id(t, "n31/gpu2"));  // same leaf: no spine
  CHECK(q.hops.size() == 6);
}

TEST_CASE("fat-tree: ECMP spreads leaf-to-leaf flows over the spines") {
  // 16 × 8 = 128 ports: 4 leaves of 32; top tier C = 2 spines, 16 links from each leaf.
  const Topology t = cluster("hgx-h100-8", 16, "fat-tree");
  CHECK(count_type(t, DeviceType::NetSwitch, 1) == 4);
  CHECK(count_type(t, DeviceType::NetSwitch, 2) == 2);
  Router r(t);
  std::map<int, int> per_spine;
  for (int a = 0; a < 4; ++a)    // servers 0-3 sit on leaf0
    for (int b = 4; b < 8; ++b)  // servers 4-7 on leaf1
      for (int g = 0; g < 8; ++g)
        for (int h = 0; h < 8; ++h) {
          const Path& p = r.path(t.gpus_of_node(a)[g], t.gpus_of_node(b)[h]);
          for (DirLink d : p.hops)
            if (t.device(t.to_device(d)).tier == 2) ++per_spine[t.to_device(d)];
        }
  REQUIRE(per_spine.size() == 2);
  for (auto [spine, n] : per_spine) CHECK((n > 1024 * 4 / 10 && n < 1024 * 6 / 10));
}

TEST_CASE("fat-tree bisection: non-blocking, then 3:1 oversubscribed") {
  // Non-blocking: rank-order halves are servers 0-7 (leaves 0, 1) against 8-15 (leaves 2, 3);
  // 64 NICs × 50 GB/s = 3200 GB/s cross, matched by 2 leaves × 32 uplinks × 50 GB/s.
  const Topology t1 = cluster("hgx-h100-8", 16, "fat-tree");
  Router r1(t1);
  CHECK(bisection_GBps(r1) == doctest::Approx(3200));
  // 3:1: leaves take 48 down / 16 up ports: leaf0 = servers 0-5, leaf1 = 6-11, leaf2 = 12-15.
  // Side A (servers 0-7): leaf0 sends up 16 × 50 = 800; on leaf1, A's 16 ports reach B's 32
  // ports locally (800); leaf0's 800 comes down through leaf1 or leaf2. Total 1600 GB/s.
  const Topology t3 = cluster("hgx-h100-8", 16, "fat-tree", 3.0);
  Router r3(t3);
  CHECK(bisection_GBps(r3) == doctest::Approx(1600));
}

TEST_CASE("three tiers and bad options") {
  // 2560 servers × 8 NICs, rail plane of 2560 ports: 80 leaves > 64, so pods of 32 leaves
  // (3 pods) and a third tier.
  const Topology t = cluster("hgx-h20-8", 2560, "rail-optimized");
  CHECK(t.fabric.tiers == 3);
  Router r(t);
  const Path& p = r.path(id(t, "n0/gpu1"), id(t, "n2559/gpu1"));
  CHECK(p.cls == PathClass::NET);
  int top = 0;
  for (DirLink d : p.hops) top = std::max(top, t.device(t.to_device(d)).tier);
  CHECK(top == 3);
  // ECMP at both climbs: leaf → 32 spines of the pod, spine → 2 cores of its group, so the
  // 1024 rail-1 flows from servers 0-31 (leaf 0) to servers 2048-2079 (pod 2) can use 64 cores
  // of rail 1 (32 spine positions × 2); a fair hash uses every one, about 16 flows each.
  std::map<int, int> per_core;
  for (int a = 0; a < 32; ++a)
    for (int b = 2048; b < 2080; ++b)
      for (DirLink d : r.path(t.gpus_of_node(a)[1], t.gpus_of_node(b)[1]).hops)
        if (t.device(t.to_device(d)).tier == 3) ++per_core[t.to_device(d)];
  CHECK(per_core.size() == 64);
  for (auto [core, n] : per_core) CHECK(n < 40);
  ClusterOptions bad;
  bad.nodes = 4;
  CHECK_THROWS_AS(parse_fabric_kind("fat-tre"), UnknownNameError);
  bad.fabric = FabricKind::FatTree;
  bad.oversubscription = 0.5;
  CHECK_THROWS_AS(make_cluster(load_topology("hgx-h20-8"), bad), InputError);
  bad.oversubscription = 1;
  bad.link = "nvlink4";
  CHECK_THROWS_AS(make_cluster(load_topology("hgx-h20-8"), bad), InputError);
}

TEST_CASE("identity: every path is a connected walk from src to dst with its bottleneck and sum") {
  ClusterOptions forced;
  forced.nodes = 2;
  forced.fabric = FabricKind::FatTree;
  forced.tiers = 2;  // 16 ports would fit one switch; ask for leaves + spines anyway
  const Topology two_tier = make_cluster(load_topology("hgx-h20-8"), forced);
  CHECK(two_tier.fabric.tiers == 2);
  for (const Topology& t : {cluster("pcie-l40s-8", 300, "fat-tree"),
                            cluster("hgx-h100-8", 1100, "fat-tree", 2.0), two_tier}) {
    Router r(t);
    const auto& gpus = t.gpus();
    for (std::size_t i = 0; i < gpus.size(); i += 37) {
      const int a = gpus[i], b = gpus[(i * 7919 + 13) % gpus.size()];
      if (a == b) continue;
      const Path& p = r.path(a, b);
      INFO(t.name << " " << t.device(a).id << " → " << t.device(b).id);
      REQUIRE_FALSE(p.hops.empty());
      CHECK(t.from_device(p.hops.front()) == a);
      CHECK(t.to_device(p.hops.back()) == b);
      double bw = 1e300, lat = 0;
      for (std::size_t h = 0; h < p.hops.size(); ++h) {
        if (h > 0) CHECK(t.from_device(p.hops[h]) == t.to_device(p.hops[h - 1]));
        bw = std::min(bw, t.bw_GBps(p.hops[h]));
        lat += t.link(link_of(p.hops[h])).latency_us;
      }
      CHECK(p.bw_GBps == doctest::Approx(bw));
      CHECK(p.latency_us == doctest::Approx(lat));
      CHECK((t.device(a).node == t.device(b).node) == (p.cls != PathClass::NET));
    }
  }
}

TEST_CASE("network share per GPU accounts for an oversubscribed fabric (topo show)") {
  // 16 x hgx-h100-8 on a 2-tier fat-tree: each GPU has a 50 GB/s NDR400 NIC. Non-blocking, the
  // bisection carries every GPU's 50 GB/s; at 2:1 the share is the bisection over the 64 GPUs
  // of one half, below the NIC rate.
  const Topology full = cluster("hgx-h100-8", 16, "fat-tree");
  const Router rf(full);
  const TopologySummary f = summarize(rf, true);
  CHECK(f.network_share_GBps == doctest::Approx(50));
  const Topology over = cluster("hgx-h100-8", 16, "fat-tree", 2.0);
  const Router ro(over);
  const TopologySummary o = summarize(ro, true);
  CHECK(o.network_GBps == doctest::Approx(50));
  CHECK(o.network_share_GBps == doctest::Approx(o.bisection_GBps / 64));
  CHECK(o.network_share_GBps < 50);
  CHECK(o.bisection_GBps < f.bisection_GBps);
}

// Router::fabric_climb (issue 32): the tiers a structural route between servers climbs, when
// every link between two tiers is alike. Rail-optimized hgx-h100-8 on 65 servers: 3 leaves per
// rail of 32 servers (64-port switches, 32 down, 32 up), so n0 and n31 share leaves and n32
// does not.
TEST_CASE("fabric_climb: 1 on a shared leaf, 2 through the spine, -1 inside a server") {
  const Topology t = cluster("hgx-h100-8", 65, "rail-optimized");
  Router r(t);
  CHECK(t.fabric.tiers == 2);
  CHECK(r.fabric_climb(id(t, "n0/gpu0"), id(t, "n31/gpu0")) == 1);
  CHECK(r.fabric_climb(id(t, "n0/gpu0"), id(t, "n32/gpu0")) == 2);
  CHECK(r.fabric_climb(id(t, "n0/gpu0"), id(t, "n32/gpu5")) == 2);  // PXN to rail 5, then up
  CHECK(r.fabric_climb(id(t, "n0/gpu0"), id(t, "n0/gpu5")) == -1);
  // The route itself agrees: same leaf is GPU … NIC → leaf → NIC … (one switch), through the
  // spine three switches.
  auto switches = [&](const Path& p) {
    int n = 0;
    for (DirLink d : p.hops) n += t.device(t.to_device(d)).type == DeviceType::NetSwitch;
    return n;
  };
  CHECK(switches(r.path(id(t, "n0/gpu0"), id(t, "n31/gpu0"))) == 1);
  CHECK(switches(r.path(id(t, "n0/gpu0"), id(t, "n32/gpu0"))) == 3);
}

TEST_CASE("fabric_climb: -1 when one leaf-to-spine link differs from the others") {
  Topology t = cluster("hgx-h100-8", 65, "rail-optimized");
  // A second, slower uplink from rail 0's first leaf to a spine: up-links of tier 1 differ, so
  // a route's price would depend on its ECMP choice.
  int leaf = -1, spine = -1;
  for (std::size_t d = 0; d < t.device_count(); ++d) {
    const Device& dev = t.device(static_cast<int>(d));
    if (dev.type != DeviceType::NetSwitch) continue;
    if (dev.tier == 1 && leaf < 0) leaf = static_cast<int>(d);
    if (dev.tier == 2 && spine < 0) spine = static_cast<int>(d);
  }
  REQUIRE(leaf >= 0);
  REQUIRE(spine >= 0);
  Link slow = t.link(t.neighbours(leaf).front().out / 2);
  slow.a = leaf;
  slow.b = spine;
  slow.bw_GBps /= 2;
  t.add_link(slow);
  Router r(t);
  CHECK(r.fabric_climb(id(t, "n0/gpu0"), id(t, "n32/gpu0")) == -1);
}

TEST_CASE("a worker router routes as its parent does, and outlives it (issue 32)") {
  ClusterOptions o;
  o.nodes = 4;
  const Topology t = load_topology("hgx-h100-8", o);
  auto parent = std::make_unique<Router>(t);
  std::vector<Path> want;
  for (int a : t.gpus())
    for (int b : t.gpus()) want.push_back(parent->path(a, b));
  Router worker = parent->worker();
  parent.reset();  // the shared indexes stay alive with the worker
  std::size_t i = 0;
  for (int a : t.gpus())
    for (int b : t.gpus()) {
      const Path& p = worker.path(a, b);
      CHECK(p.hops == want[i].hops);
      CHECK(p.cls == want[i].cls);
      CHECK(p.bw_GBps == want[i].bw_GBps);
      CHECK(worker.transient_path(a, b).hops == want[i].hops);
      ++i;
    }
  CHECK(i == 32 * 32);
}
