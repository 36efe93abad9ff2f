// Paths and bisection on small hand-built graphs (derivations in the comments).
#include <doctest/doctest.h>

#include "hw/topology_builder.hpp"
#include "topoplan/route.hpp"

using namespace topoplan;

namespace {
int dev(Topology& t, const std::string& id, DeviceType type, int local = 0) {
  return t.add_device(
      test::make_device(id, type, 0, local, type == DeviceType::Gpu ? "H100-SXM" : "x"));
}
void link(Topology& t, int a, int b, LinkKind kind, double bw, double lat = 1.0) {
  t.add_link(test::make_link(a, b, bw, "test", kind, lat));
}
}  // namespace

TEST_CASE("NVLink through one intermediate GPU is NVB, a second relay is not allowed") {
  // g0 -NVL- g1 -NVL- g2 -NVL- g3 in a chain, plus g0 and g3 on one PCIe switch.
  Topology t;
  int g0 = dev(t, "g0", DeviceType::Gpu, 0), g1 = dev(t, "g1", DeviceType::Gpu, 1);
  int g2 = dev(t, "g2", DeviceType::Gpu, 2), g3 = dev(t, "g3", DeviceType::Gpu, 3);
  int sw = dev(t, "sw", DeviceType::PcieSwitch);
  link(t, g0, g1, LinkKind::NVLink, 100);
  link(t, g1, g2, LinkKind::NVLink, 50);
  link(t, g2, g3, LinkKind::NVLink, 100);
  link(t, g0, sw, LinkKind::PCIe, 32);
  link(t, g3, sw, LinkKind::PCIe, 16);
  Router r(t);
  CHECK(r.path(g0, g1).cls == PathClass::NVL);
  const Path& p = r.path(g0, g2);  // g0→g1→g2: NVB, bottleneck the 50 GB/s link, 2 µs
  CHECK(p.cls == PathClass::NVB);
  CHECK(p.bw_GBps == 50);
  CHECK(p.latency_us == 2.0);
  CHECK(p.hops.size() == 2);
  // g0→g3 over NVLink needs two relays; the PCIe switch gives PIX at min(32, 16) = 16.
  const Path& q = r.path(g0, g3);
  CHECK(q.cls == PathClass::PIX);
  CHECK(q.bw_GBps == 16);
  CHECK(r.path(g0, g0).cls == PathClass::LOC);
  CHECK(r.nvlink_domain_GBps(g1) == 150);  // 100 + 50
}

TEST_CASE("ties: same class prefers bandwidth, then fewer hops") {
  // a and b under PCIe switches: a-s1-b (2 hops, 10 GB/s) and a-s2-s3-b (3 hops, 20 GB/s, PXB),
  // a-s4-b (2 hops, 20 GB/s). Best: PIX beats PXB; among PIX, 20 beats 10.
  Topology t;
  int a = dev(t, "a", DeviceType::Gpu, 0), b = dev(t, "b", DeviceType::Gpu, 1);
  int s1 = dev(t, "s1", DeviceType::PcieSwitch), s2 = dev(t, "s2", DeviceType::PcieSwitch);
  int s3 = dev(t, "s3", DeviceType::PcieSwitch), s4 = dev(t, "s4", DeviceType::PcieSwitch);
  link(t, a, s1, LinkKind::PCIe, 10);
  link(t, s1, b, LinkKind::PCIe, 10);
  link(t, a, s2, LinkKind::PCIe, 20);
  link(t, s2, s3, LinkKind::PCIe, 20);
  link(t, s3, b, LinkKind::PCIe, 20);
  Router r1(t);
  CHECK(r1.path(a, b).cls == PathClass::PIX);  // PIX at 10 beats PXB at 20
  CHECK(r1.path(a, b).bw_GBps == 10);
  link(t, a, s4, LinkKind::PCIe, 20);
  link(t, s4, b, LinkKind::PCIe, 20);
  Router r2(t);
  CHECK(r2.path(a, b).cls == PathClass::PIX);
  CHECK(r2.path(a, b).bw_GBps == 20);
  CHECK(r2.topology().device(r2.topology().to_device(r2.path(a, b).hops[0])).id == "s4");
}

TEST_CASE("unreachable devices give DIS") {
  Topology t;
  int a = dev(t, "a", DeviceType::Gpu, 0), b = dev(t, "b", DeviceType::Gpu, 1);
  Router r(t);
  CHECK(r.path(a, b).cls == PathClass::DIS);
  CHECK(r.path(a, b).hops.empty());
  CHECK(r.nic_of_gpu(a) == -1);
  CHECK(r.network_GBps(a) == 0);
}

TEST_CASE("bisection of a 4-GPU NVLink ring") {
  // Ring g0-g1-g2-g3-g0, 10 GB/s per direction per link. Balanced halves: {0,1}|{2,3} and
  // {0,3}|{1,2} cut 2 links = 20 GB/s; {0,2}|{1,3} cuts all 4 = 40. Minimum: 20.
  Topology t;
  std::vector<int> g;
  for (int i = 0; i < 4; ++i) g.push_back(dev(t, "g" + std::to_string(i), DeviceType::Gpu, i));
  for (int i = 0; i < 4; ++i) link(t, g[i], g[(i + 1) % 4], LinkKind::NVLink, 10);
  Router r(t);
  CHECK(bisection_GBps(r) == doctest::Approx(20));
  // A chord g0-g2 of 5 GB/s adds 5 to every balanced cut that separates 0 and 2: still 20 for
  // {0,1}|{2,3}? It separates 0 and 2, so 25; {0,3}|{1,2} also 25; {0,2}|{1,3}: 40. Min 25.
  link(t, g[0], g[2], LinkKind::NVLink, 5);
  Router r2(t);
  CHECK(bisection_GBps(r2) == doctest::Approx(25));
}

TEST_CASE("path matrix has the diagonal empty and matches path()") {
  Topology t;
  int a = dev(t, "a", DeviceType::Gpu, 0), b = dev(t, "b", DeviceType::Gpu, 1);
  int n = dev(t, "n", DeviceType::NvSwitch);
  link(t, a, n, LinkKind::NVLink, 450, 0.3);
  link(t, b, n, LinkKind::NVLink, 450, 0.3);
  Router r(t);
  PathMatrix m = gpu_path_matrix(r, t.gpus());
  REQUIRE(m.cells.size() == 2);
  CHECK(m.cells[0][0] == nullptr);
  CHECK(m.cells[0][1] == &r.path(a, b));
  CHECK(m.cells[1][0]->cls == PathClass::NVL);
  CHECK(m.cells[1][0]->latency_us == doctest::Approx(0.6));
}

TEST_CASE("nic_of_gpu: ties are broken rail-aligned by local index") {
  // 4 GPUs and 2 NICs under one PCIe switch: every GPU→NIC path is PIX at 64 GB/s. gpu0 and
  // gpu1 take the NIC with their own index; gpu2 and gpu3 take NIC (2 mod 2) = 0 and (3 mod 2) = 1.
  Topology t;
  int sw = dev(t, "sw", DeviceType::PcieSwitch);
  std::vector<int> g, n;
  for (int i = 0; i < 4; ++i) g.push_back(dev(t, "gpu" + std::to_string(i), DeviceType::Gpu, i));
  for (int i = 0; i < 2; ++i) n.push_back(dev(t, "nic" + std::to_string(i), DeviceType::Nic, i));
  for (int x : g) link(t, x, sw, LinkKind::PCIe, 64);
  for (int x : n) link(t, x, sw, LinkKind::PCIe, 64);
  Router r(t);
  CHECK(r.nic_of_gpu(g[0]) == n[0]);
  CHECK(r.nic_of_gpu(g[1]) == n[1]);
  CHECK(r.nic_of_gpu(g[2]) == n[0]);
  CHECK(r.nic_of_gpu(g[3]) == n[1]);
  // A NIC on a second switch behind a switch-to-switch hop (PXB) never wins over PIX.
  int sw2 = dev(t, "sw2", DeviceType::PcieSwitch);
  int far = dev(t, "nic2", DeviceType::Nic, 2);
  link(t, sw, sw2, LinkKind::PCIe, 64);
  link(t, far, sw2, LinkKind::PCIe, 64);
  Router r2(t);
  CHECK(r2.path(g[2], far).cls == PathClass::PXB);
  CHECK(r2.nic_of_gpu(g[2]) == n[0]);
}
