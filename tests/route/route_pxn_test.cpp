// PXN relays (a GPU reaching a NIC of another rail through an NVLink peer) and a sweep that
// every built-in server, clustered 2× on either fabric, routes every GPU pair.
// Link figures (topologies/catalog/links.json): nvlink5 0.3 µs per link, 18 × 50 = 900 GB/s;
// nvlink-c2c 450 GB/s, 0.5 µs; pcie5 x16 64 GB/s, 0.5 µs; ib-ndr400 50 GB/s, 0.35 µs.
#include <doctest/doctest.h>

#include "route/route_helpers.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using topoplan::test::check_path;
using topoplan::test::id;

namespace {
Topology cluster(const std::string& server, int nodes, const std::string& fabric) {
  ClusterOptions o;
  o.nodes = nodes;
  o.fabric = parse_fabric_kind(fabric);
  return make_cluster(load_topology(server), o);
}
}  // namespace

TEST_CASE("gb200-nvl72: a GPU reaches another tray's NIC by NVLink then the peer's C2C (PXN)") {
  // Regression: the relay GPU could leave only by NVLink or PCIe, but a GB200 reaches its NIC
  // through Grace (C2C → CPU → PCIe), so cross-rail NICs were unreachable (DIS).
  const Topology t = load_topology("gb200-nvl72");
  Router r(t);
  const int g0 = id(t, "gpu0");
  // Own NIC: gpu0 → cpu0 (C2C) → nic0 (PCIe): PHB with a C2C hop = P2C; 0.5 + 0.5 µs, 64 GB/s.
  check_path(r.path(g0, id(t, "nic0")), PathClass::P2C, 64, 1.0);
  // nic2 hangs off cpu1 (tray 0, second Grace; gpu2 and gpu3 sit there): gpu0 → nvswitch →
  // gpu2|gpu3 → cpu1 → nic2 = 0.3 + 0.3 + 0.5 + 0.5 = 1.6 µs, bottleneck PCIe 64 GB/s, PXN.
  const Path& pxn = r.path(g0, id(t, "nic2"));
  check_path(pxn, PathClass::PXN, 64, 1.6);
  REQUIRE(pxn.hops.size() == 4);
  const std::string relay = t.device(t.to_device(pxn.hops[1])).id;
  CHECK((relay == "gpu2" || relay == "gpu3"));
  CHECK(t.device(t.to_device(pxn.hops[2])).id == "cpu1");
  // The closest NIC stays the GPU's own (P2C beats PXN).
  CHECK(t.device(r.nic_of_gpu(g0)).id == "nic0");
}

TEST_CASE("hgx-h100-8: a PXN relay is the NIC's own GPU, not the first NVLink peer") {
  // Issue 14 regression. psw0 holds gpu0, gpu1, nic0 and nic1. gpu4 (on psw2) reaches nic1 by
  // PXN; NCCL relays through nic1's local GPU (gpu1). Relaying through gpu0 (the first peer the
  // search met) made gpu0's PCIe uplink carry rails 0 and 1 for the whole server, so a 2 × 8
  // rail-optimized all-to-all ran at 55.6 GB/s busbw instead of the fat-tree's 89.8.
  const Topology t = load_topology("hgx-h100-8");
  Router r(t);
  // gpu4 → nvswitch → gpu1 → psw0 → nic1: 2 × 0.3 (NVLink) + 2 × 0.5 (PCIe) = 1.6 µs, 64 GB/s.
  const Path& p = r.path(id(t, "gpu4"), id(t, "nic1"));
  check_path(p, PathClass::PXN, 64, 1.6);
  REQUIRE(p.hops.size() == 4);
  CHECK(t.device(t.to_device(p.hops[1])).id == "gpu1");
  // gpu0 shares psw0 with nic1: PIX, no relay (NCCL keeps a path better than PXN).
  check_path(r.path(id(t, "gpu0"), id(t, "nic1")), PathClass::PIX, 64, 1.0);
}

TEST_CASE("2 × hgx-h100-8: rail-optimized all-to-all loads no GPU uplink with two rails") {
  // Every n0 GPU sends to every n1 GPU j through nic j; with each rail's traffic relayed by its
  // own GPU, the most loaded n0 GPU → psw link carries one rail: 8 sources × 1/16 of the buffer.
  const Topology t = cluster("hgx-h100-8", 2, "rail-optimized");
  Router r(t);
  for (int j = 0; j < 8; ++j) {
    const std::string dst = "n1/gpu" + std::to_string(j);
    for (int i = 0; i < 8; ++i) {
      const Path& p = r.path(id(t, "n0/gpu" + std::to_string(i)), id(t, dst));
      // The GPU that leaves the server by PCIe is gpu j (its NIC is nic j) or gpu i when i and
      // j share a PCIe switch (PIX): never a third GPU.
      int pcie_gpu = -1;
      for (DirLink d : p.hops)
        if (t.device(t.from_device(d)).type == DeviceType::Gpu &&
            t.device(t.to_device(d)).type == DeviceType::PcieSwitch)
          pcie_gpu = t.from_device(d);
      const std::string leaves = t.device(pcie_gpu).id;
      CHECK_MESSAGE((leaves == "n0/gpu" + std::to_string(j) ||
                     (leaves == "n0/gpu" + std::to_string(i) && i / 2 == j / 2)),
                    "n0/gpu" << i << " -> " << dst << " leaves by " << leaves);
    }
  }
}

TEST_CASE("pcie-rtx4090-8: GeForce has no P2P, so GPU pairs go through host memory (issue 14)") {
  // The catalog marks RTX-4090 "p2p": false (NVIDIA: no P2P on GeForce 40-series). gpu0 and gpu1
  // share psw0, but NCCL's SHM transport stages through cpu0's memory:
  // gpu0 → psw0 → cpu0 → psw0 → gpu1, class PHB (was PIX, straight through the switch).
  const Topology t = load_topology("pcie-rtx4090-8");
  Router r(t);
  const Path& p = r.path(id(t, "gpu0"), id(t, "gpu1"));
  CHECK(to_string(p.cls) == to_string(PathClass::PHB));
  REQUIRE(p.hops.size() == 4);
  CHECK(t.device(t.to_device(p.hops[1])).id == "cpu0");
  // Across sockets the staging CPU is the sender's: gpu0 → psw0 → cpu0 → cpu1 → psw1 → gpu4, SYS.
  const Path& x = r.path(id(t, "gpu0"), id(t, "gpu4"));
  CHECK(to_string(x.cls) == to_string(PathClass::SYS));
  CHECK(x.hops.size() == 5);
  // A datacenter PCIe card keeps P2P through its switch.
  const Topology l = load_topology("pcie-l40s-8");
  Router rl(l);
  CHECK(to_string(rl.path(id(l, "gpu0"), id(l, "gpu1")).cls) == to_string(PathClass::PIX));
}

TEST_CASE("2 × gb200-nvl72 rail-optimized: cross-rail pairs relay to the destination's rail") {
  const Topology t = cluster("gb200-nvl72", 2, "rail-optimized");
  Router r(t);
  // n0/gpu0 → n1/gpu2: rail 2. gpu0 → nvswitch → gpu2|3 → cpu1 → nic2 → rail-2 leaf → n1/nic2
  // → n1/cpu1 → n1/gpu2: 1.6 + 2 × 0.35 + 0.5 + 0.5 = 3.3 µs, bottleneck the 50 GB/s port.
  const Path& p = r.path(id(t, "n0/gpu0"), id(t, "n1/gpu2"));
  check_path(p, PathClass::NET, 50, 3.3);
  REQUIRE(p.hops.size() == 8);
  CHECK(t.device(t.to_device(p.hops[3])).id == "n0/nic2");
  CHECK(t.device(t.to_device(p.hops[5])).id == "n1/nic2");
  // Same rail: no relay, gpu0 → cpu0 → nic0 → leaf → nic0 → cpu0 → gpu0 = 4 × 0.5 + 0.7 µs.
  check_path(r.path(id(t, "n0/gpu0"), id(t, "n1/gpu0")), PathClass::NET, 50, 2.7);
}

TEST_CASE("every built-in server × both fabrics × 2 nodes: every GPU pair has a route") {
  int servers = 0;
  for (const std::string& name : builtin_topology_names()) {
    const Topology server = load_topology(name);
    bool has_fabric = false;  // built-in clusters (h20-cluster-16) already have their network
    for (std::size_t d = 0; d < server.device_count(); ++d)
      has_fabric = has_fabric || server.device(static_cast<int>(d)).type == DeviceType::NetSwitch;
    if (has_fabric) continue;
    ++servers;
    for (const char* fabric : {"rail-optimized", "fat-tree"}) {
      ClusterOptions o;
      o.nodes = 2;
      o.fabric = parse_fabric_kind(fabric);
      const Topology t = make_cluster(server, o);
      Router r(t);
      int missing = 0, broken = 0;
      for (int a : t.gpus())
        for (int b : t.gpus()) {
          if (a == b) continue;
          const Path& p = r.path(a, b);
          const bool cross = t.device(a).node != t.device(b).node;
          if (p.cls == PathClass::DIS || p.hops.empty() || (p.cls == PathClass::NET) != cross) {
            if (missing++ == 0)
              MESSAGE(name << " " << std::string(fabric) << ": " << t.device(a).id << " → "
                           << t.device(b).id << " class " << to_string(p.cls));
            continue;
          }
          // A connected walk from a to b whose bottleneck is the path's bandwidth.
          double bw = 1e300;
          bool ok = t.from_device(p.hops.front()) == a && t.to_device(p.hops.back()) == b;
          for (std::size_t h = 0; h < p.hops.size(); ++h) {
            ok = ok && (h == 0 || t.from_device(p.hops[h]) == t.to_device(p.hops[h - 1]));
            bw = std::min(bw, t.bw_GBps(p.hops[h]));
          }
          broken += !ok || bw != doctest::Approx(p.bw_GBps);
        }
      INFO(name << " " << std::string(fabric));
      CHECK(missing == 0);
      CHECK(broken == 0);
    }
  }
  CHECK(servers >= 10);  // the sweep really ran over the built-in servers
}
