// Topology diagrams: node/edge counts derived from the server files, one colour per link kind,
// bounded collapsed clusters, merged-edge counts, DOT and SVG output.
#include "report/diagram.hpp"

#include <doctest/doctest.h>

#include <set>

#include "topoplan/error.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using namespace topoplan::report;

namespace {

const DiagramNode* find_node(const Diagram& d, const std::string& key) {
  for (const DiagramNode& n : d.nodes)
    if (n.key == key) return &n;
  return nullptr;
}

const DiagramEdge* find_edge(const Diagram& d, const std::string& a, const std::string& b) {
  for (const DiagramEdge& e : d.edges)
    if (e.a == a && e.b == b) return &e;
  return nullptr;
}

int devices_drawn(const Diagram& d) {
  int n = 0;
  for (const DiagramNode& v : d.nodes) n += v.devices;
  return n;
}

Topology cluster(int nodes, const std::string& fabric = "rail-optimized") {
  ClusterOptions o;
  o.nodes = nodes;
  o.fabric = parse_fabric_kind(fabric);
  return load_topology("hgx-h100-8", o);
}

}  // namespace

TEST_CASE("diagram: hgx-h100-8 drawn device by device, wired as built") {
  const Topology t = load_topology("hgx-h100-8");
  const Diagram d = build_diagram(t, {});
  // topologies/servers/hgx-h100-8.json: 8 GPUs + 1 NVSwitch + 4 PCIe switches + 8 NICs + 2 CPUs.
  CHECK(d.nodes.size() == 23);
  // Links: 8 GPU-NVSwitch + 8 GPU-PCIe switch + 8 NIC-PCIe switch + 4 switch-CPU + 1 UPI = 29.
  CHECK(d.edges.size() == 29);
  // Clusters: the server, 2 NUMA nodes, 4 PCIe switch boxes.
  CHECK(d.clusters.size() == 7);
  CHECK(d.notes.empty());
  // CPU → PCIe switch → GPU, drawn top-down; the NVLink bundle keeps its 18 links.
  const DiagramEdge* nvl = find_edge(d, "gpu3", "nvswitch");
  REQUIRE(nvl != nullptr);
  CHECK(nvl->count == 18);
  CHECK(nvl->label == "×18");
  CHECK(nvl->bw_GBps == doctest::Approx(450.0));  // 18 × 25 GB/s NVLink4 per direction
  CHECK(nvl->penwidth == doctest::Approx(6.0));   // √(450 / 12.5)
  const DiagramEdge* pcie = find_edge(d, "psw1", "gpu3");
  REQUIRE(pcie != nullptr);
  CHECK(pcie->label == "x16");
  CHECK(find_edge(d, "cpu0", "psw0") != nullptr);
  // gpu3 hangs from psw1, which hangs from cpu0: NUMA 0, PCIe switch box psw1.
  CHECK(find_node(d, "gpu3")->cluster == "server0/numa0/psw1");
  CHECK(find_node(d, "nvswitch")->cluster == "server0");
}

TEST_CASE("diagram: one colour per link kind, every edge coloured by its kind") {
  std::set<std::string> colours;
  for (LinkKind k :
       {LinkKind::NVLink, LinkKind::PCIe, LinkKind::C2C, LinkKind::CpuLink, LinkKind::Network})
    colours.insert(link_colour(k));
  CHECK(colours.size() == 5);
  const Diagram d = build_diagram(cluster(2), {});
  // NVLink, PCIe, UPI and InfiniBand appear in a 2-node HGX cluster (no C2C).
  CHECK(d.kinds.size() == 4);
  for (const DiagramEdge& e : d.edges) CHECK(e.colour == link_colour(e.kind));
  const Diagram gb = build_diagram(load_topology("gb200-nvl72"), {});
  bool c2c = false;
  for (LinkKind k : gb.kinds) c2c |= k == LinkKind::C2C;
  CHECK(c2c);
}

TEST_CASE("diagram: pen width grows with the square root of GB/s, clamped to [1, 9]") {
  CHECK(pen_width(50) == doctest::Approx(2.0));                     // √(50/12.5) = √4
  CHECK(pen_width(900) == doctest::Approx(8.48528).epsilon(1e-4));  // √72
  CHECK(pen_width(0) == 1.0);
  CHECK(pen_width(5000) == 9.0);
}

TEST_CASE("diagram: a 2-node cluster is drawn in full, a 128-node one collapses") {
  const Topology two = cluster(2);
  const Diagram full = build_diagram(two, {});
  CHECK(full.nodes.size() == two.device_count());
  CHECK(full.notes.empty());

  const Topology big = cluster(128);  // 1,024 GPUs
  const Diagram d = build_diagram(big, {});
  CHECK(devices_drawn(d) == static_cast<int>(big.device_count()));  // every device is counted
  const DiagramNode* more = find_node(d, "more-servers");
  REQUIRE(more != nullptr);
  CHECK(more->label.find("× 127 more servers like this") == 0);
  // Rail r: 128 NIC ports on radix-64 leaves with 32 down ports (1:1) = 4 leaves; leaf0 takes
  // n0..n31, so the stacked servers reach it with 31 merged links and n0's NIC with one.
  const DiagramEdge* merged = find_edge(d, "more-servers", "rail0/leaf0");
  REQUIRE(merged != nullptr);
  CHECK(merged->links == 31);
  CHECK(merged->label == "×31");
  CHECK(find_edge(d, "n0/nic0", "rail0/leaf0") != nullptr);
  // The other 3 leaves of each rail stack into one node.
  const DiagramNode* leaves = find_node(d, "more:rail0/leaf");
  REQUIRE(leaves != nullptr);
  CHECK(leaves->devices == 3);
  // 25 server nodes (23 + the stack... ) and per rail leaf0, the leaf stack and the spines.
  CHECK(d.nodes.size() <= 60);

  DiagramOptions expand;
  expand.expand = true;
  CHECK(build_diagram(big, expand).nodes.size() == big.device_count());
}

TEST_CASE("diagram: a 16,384-GPU cluster stays as small as a 1,024-GPU one") {
  for (const std::string fabric : {"rail-optimized", "fat-tree"}) {
    CAPTURE(fabric);
    const Topology small = cluster(128, fabric), big = cluster(2048, fabric);
    const Diagram a = build_diagram(small, {}), b = build_diagram(big, {});
    CHECK(devices_drawn(b) == static_cast<int>(big.device_count()));
    CHECK(b.nodes.size() <= 60);
    CHECK(b.edges.size() <= 100);
    // Same drawing up to one extra tier per plane.
    CHECK(b.nodes.size() <= a.nodes.size() + 8);
  }
}

TEST_CASE("diagram: sockets of a 36-Grace NVL72 collapse past two") {
  const Topology t = load_topology("gb200-nvl72");
  const Diagram d = build_diagram(t, {});
  const DiagramNode* more = find_node(d, "server0/more-sockets");
  REQUIRE(more != nullptr);
  // 36 trays' Graces, 2 drawn: 34 CPUs, 68 GPUs and 68 NICs stacked.
  CHECK(more->label.find("× 34 more sockets like these") == 0);
  CHECK(more->label.find("68 GPUs, 68 NICs") != std::string::npos);
  CHECK(devices_drawn(d) == static_cast<int>(t.device_count()));
}

TEST_CASE("diagram: --labels prints GB/s per direction") {
  DiagramOptions o;
  o.labels = true;
  const Diagram d = build_diagram(load_topology("hgx-h100-8"), o);
  CHECK(find_edge(d, "gpu0", "nvswitch")->label == "×18 450 GB/s");
  CHECK(find_edge(d, "psw0", "gpu0")->label == "x16 64 GB/s");  // PCIe 5.0: 4 GB/s per lane
}

TEST_CASE("diagram: DOT and SVG output") {
  const Diagram d = build_diagram(load_topology("pcie-l40s-8"), {});
  const std::string dot = diagram_dot(d);
  CHECK(dot.find("subgraph cluster_server0") != std::string::npos);
  CHECK(dot.find("Legend") != std::string::npos);
  const std::string svg = diagram_svg(d);
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.rfind("</svg>") != std::string::npos);
  CHECK(svg.find("gpu7") != std::string::npos);
}

TEST_CASE("diagram: formats from flags and file names") {
  CHECK(diagram_format_of_path("x.PNG") == DiagramFormat::Png);
  CHECK(diagram_format_of_path("a/b.dot") == DiagramFormat::Dot);
  CHECK(parse_diagram_format("pdf") == DiagramFormat::Pdf);
  CHECK_THROWS_AS(diagram_format_of_path("noext"), FieldError);
  CHECK_THROWS_WITH(diagram_format_of_path("x.jpeg"),
                    "output_path: x.jpeg: unknown diagram format 'jpeg' (dot, svg, png, pdf)");
  CHECK_THROWS_AS(parse_diagram_format("jpeg"), FieldError);
}
