// A described cluster (issue 32) against the built one: cluster_shape's counts and names,
// for_each_cluster_link's links, and summarize_cluster's figures must equal make_cluster's and
// summarize()'s to the bit, over fabrics, tier counts, oversubscription and odd node counts.
#include <doctest/doctest.h>

#include <tuple>
#include <vector>

#include "hw/fabric_builder.hpp"
#include "topoplan/cluster_shape.hpp"
#include "topoplan/error.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;

namespace {

ClusterOptions options(int nodes, FabricKind fabric, double oversub = 1.0, int tiers = 0) {
  ClusterOptions o;
  o.nodes = nodes;
  o.fabric = fabric;
  o.oversubscription = oversub;
  o.tiers = tiers;
  return o;
}

// Every case: (server, options). 2 and 3 servers, a partial leaf (65), 16 servers at 2:1, a
// forced 3-tier fabric, a PCIe server with 2 NICs for 8 GPUs, and a 3-tier rail fabric (2,100
// servers: 66 leaves per rail need a core).
std::vector<std::tuple<const char*, ClusterOptions>> cases() {
  return {
      {"hgx-h100-8", options(2, FabricKind::RailOptimized)},
      {"hgx-h100-8", options(3, FabricKind::FatTree)},
      {"hgx-h100-8", options(65, FabricKind::RailOptimized)},
      {"hgx-h100-8", options(16, FabricKind::FatTree, 2.0)},
      {"hgx-h100-8", options(5, FabricKind::RailOptimized, 1.0, 3)},
      {"hgx-h20-8", options(9, FabricKind::FatTree, 3.0)},
      {"pcie-h100-8", options(4, FabricKind::FatTree)},
      {"gb200-nvl72", options(2, FabricKind::RailOptimized)},
      {"hgx-h100-8", options(2100, FabricKind::RailOptimized)},
  };
}

// Runs `check(server, options)` for every case, naming the case in any failure. Named copies
// in CAPTURE, not structured bindings: clang before 16 refuses to capture a binding.
template <class Check>
void for_each_case(Check check) {
  for (const auto& c : cases()) {
    const char* name = std::get<0>(c);
    const int nodes = std::get<1>(c).nodes;
    CAPTURE(name);
    CAPTURE(nodes);
    check(load_topology(name), std::get<1>(c));
  }
}

void check_summary_equal(const TopologySummary& a, const TopologySummary& b) {
  CHECK(a.devices == b.devices);
  CHECK(a.switches_per_tier == b.switches_per_tier);
  CHECK(a.gpus == b.gpus);
  CHECK(a.nodes == b.nodes);
  CHECK(a.gpu_model == b.gpu_model);
  CHECK(a.gpu_memory_bytes == b.gpu_memory_bytes);  // bit-exact: same summation order
  CHECK(a.nvlink_domain == b.nvlink_domain);
  CHECK(a.nvlink_GBps == b.nvlink_GBps);
  CHECK(a.pcie_GBps == b.pcie_GBps);
  CHECK(a.network_GBps == b.network_GBps);
  CHECK(a.network_share_GBps == b.network_share_GBps);
  CHECK(a.bisection_GBps == b.bisection_GBps);
}

}  // namespace

TEST_CASE("cluster_shape counts and names what make_cluster builds") {
  for_each_case([](const Topology& server, const ClusterOptions& o) {
    const Topology built = make_cluster(server, o);
    const ClusterShape shape = cluster_shape(server, o);
    CHECK(shape.devices == built.device_count());
    CHECK(shape.links == built.link_count());
    CHECK(shape.name == built.name);
    CHECK(shape.description == built.description);
    CHECK(shape.fabric.kind == built.fabric.kind);
    CHECK(shape.fabric.tiers == built.fabric.tiers);
    CHECK(shape.fabric.nodes == built.fabric.nodes);
    CHECK(shape.switches_per_tier == summarize(Router(built), false).switches_per_tier);
  });
}

TEST_CASE("for_each_cluster_link streams make_cluster's links in link order") {
  for_each_case([](const Topology& server, const ClusterOptions& o) {
    const Topology built = make_cluster(server, o);
    std::size_t i = 0;
    bool same = true;
    for_each_cluster_link(server, o, [&](int a, int b, double bw) {
      if (i < built.link_count()) {
        const Link& l = built.link(static_cast<int>(i));
        same = same && l.a == a && l.b == b && l.bw_GBps == bw;
      }
      ++i;
    });
    CHECK(i == built.link_count());
    CHECK(same);
  });
}

TEST_CASE("summarize_cluster gives summarize()'s figures without building the cluster") {
  for_each_case([](const Topology& server, const ClusterOptions& o) {
    check_summary_equal(summarize_cluster(server, o), summarize(Router(make_cluster(server, o))));
  });
  // The 2:1 case is the one where the bisection caps the share (route_cluster_test): it must
  // be below the NIC rate here too, so the comparison covers that branch.
  const TopologySummary over =
      summarize_cluster(load_topology("hgx-h100-8"), options(16, FabricKind::FatTree, 2.0));
  CHECK(over.network_share_GBps < over.network_GBps);
}

TEST_CASE("a described cluster is refused as make_cluster refuses it") {
  const Topology server = load_topology("hgx-h100-8");
  CHECK_THROWS_AS(cluster_shape(server, options(2, FabricKind::RailOptimized, 0.5)), InputError);
  // 2,100 servers do not fit one rail tier: make_cluster and the shape both say so.
  CHECK_THROWS_AS(make_cluster(server, options(2100, FabricKind::RailOptimized, 1.0, 1)),
                  InputError);
  CHECK_THROWS_AS(cluster_shape(server, options(2100, FabricKind::RailOptimized, 1.0, 1)),
                  InputError);
  CHECK_THROWS_AS(cluster_shape(server, options(1, FabricKind::RailOptimized)), InputError);
}

TEST_CASE("count_fabric counts the switches and links make_cluster adds to the servers") {
  // make_cluster reserves exactly this much (issue 32), so it must be the built fabric's size.
  for_each_case([](const Topology& server, const ClusterOptions& o) {
    const Topology built = make_cluster(server, o);
    const std::vector<int> nics = detail::server_nics(server);
    std::vector<std::vector<int>> server_nic(static_cast<std::size_t>(o.nodes));
    for (int k = 0; k < o.nodes; ++k)
      for (int n : nics)
        server_nic[static_cast<std::size_t>(k)].push_back(
            k * static_cast<int>(server.device_count()) + n);
    const detail::FabricCount c = detail::count_fabric(server_nic, o);
    const auto nodes = static_cast<std::size_t>(o.nodes);
    CHECK(c.switches == built.device_count() - nodes * server.device_count());
    CHECK(c.links == built.link_count() - nodes * server.link_count());
  });
}
