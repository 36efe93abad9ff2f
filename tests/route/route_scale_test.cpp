// Routing shortcuts for large NVLink domains (issue 16): each must give exactly what the full
// search gives (identities against route::best_path), on graphs small enough to derive by hand.
#include <doctest/doctest.h>

#include "hw/topology_builder.hpp"
#include "route/path_search.hpp"
#include "topoplan/route.hpp"

using namespace topoplan;

namespace {
int dev(Topology& t, const std::string& id, DeviceType type, int local = 0) {
  return t.add_device(
      test::make_device(id, type, 0, local, type == DeviceType::Gpu ? "H100-SXM" : "x"));
}
void link(Topology& t, int a, int b, LinkKind kind, double bw, double lat) {
  t.add_link(test::make_link(a, b, bw, "test", kind, lat));
}

// n GPUs on one NVSwitch (900 GB/s, 0.3 us), each with its own CPU over C2C (450 GB/s, 0.2 us)
// and its own NIC on that CPU's PCIe (50 GB/s, 0.5 us): the NVL72 shape, scaled.
struct Domain {
  Topology t;
  std::vector<int> gpu, cpu, nic;
  int sw = -1;
};
Domain nvl_domain(int n) {
  Domain d;
  d.sw = dev(d.t, "nvswitch", DeviceType::NvSwitch);
  for (int i = 0; i < n; ++i) {
    d.gpu.push_back(dev(d.t, "gpu" + std::to_string(i), DeviceType::Gpu, i));
    d.cpu.push_back(dev(d.t, "cpu" + std::to_string(i), DeviceType::Cpu, i));
    d.nic.push_back(dev(d.t, "nic" + std::to_string(i), DeviceType::Nic, i));
    link(d.t, d.gpu.back(), d.sw, LinkKind::NVLink, 900, 0.3);
    link(d.t, d.gpu.back(), d.cpu.back(), LinkKind::C2C, 450, 0.2);
    link(d.t, d.nic.back(), d.cpu.back(), LinkKind::PCIe, 50, 0.5);
  }
  return d;
}
void check_same(const Path& a, const Path& b) {
  CHECK(a.cls == b.cls);
  CHECK(a.bw_GBps == b.bw_GBps);
  CHECK(a.latency_us == doctest::Approx(b.latency_us));
  CHECK(a.hops == b.hops);
}
}  // namespace

TEST_CASE("one NVSwitch: GPU -> switch -> GPU without a search, the same as the search") {
  Domain d = nvl_domain(6);
  Router r(d.t);
  const route::SearchScope all{{}, nullptr, false};
  for (int a : d.gpu)
    for (int b : d.gpu) {
      if (a == b) continue;
      const Path& p = r.path(a, b);
      // NVL, min(900, 900) GB/s, 0.3 + 0.3 us, two hops through the switch.
      CHECK(p.cls == PathClass::NVL);
      CHECK(p.bw_GBps == 900);
      CHECK(p.latency_us == doctest::Approx(0.6));
      check_same(p, route::best_path(d.t, a, b, all));
    }
}

TEST_CASE("one NVSwitch and a direct NVLink: the shortcut steps aside, the direct link wins") {
  Domain d = nvl_domain(3);
  // gpu0 -- gpu1 directly at 1000 GB/s: NVL either way, 1000 > 900, so the one-hop path.
  link(d.t, d.gpu[0], d.gpu[1], LinkKind::NVLink, 1000, 0.1);
  Router r(d.t);
  const Path& p = r.path(d.gpu[0], d.gpu[1]);
  CHECK(p.cls == PathClass::NVL);
  CHECK(p.bw_GBps == 1000);
  CHECK(p.hops.size() == 1);
  check_same(p, route::best_path(d.t, d.gpu[0], d.gpu[1], {{}, nullptr, false}));
}

TEST_CASE("NIC choice in an NVLink domain: the GPU's own NIC through its CPU, as the search says") {
  Domain d = nvl_domain(5);
  Router r(d.t);
  const route::SearchScope all{{}, nullptr, false};
  for (std::size_t i = 0; i < d.gpu.size(); ++i) {
    // gpu_i -C2C-> cpu_i -PCIe-> nic_i: P2C (PCIe behind a C2C CPU), min(450, 50) = 50 GB/s,
    // 0.2 + 0.5 = 0.7 us. Every other NIC needs an NVLink relay first: PXN, worse.
    CHECK(r.nic_of_gpu(d.gpu[i]) == d.nic[i]);
    const Path& p = r.path(d.gpu[i], d.nic[i]);
    CHECK(p.cls == PathClass::P2C);
    CHECK(p.bw_GBps == 50);
    CHECK(p.latency_us == doctest::Approx(0.7));
    check_same(p, route::best_path(d.t, d.gpu[i], d.nic[i], all));
    CHECK(route::best_path(d.t, d.gpu[i], d.nic[(i + 1) % 5], all).cls == PathClass::PXN);
  }
  // The multi-target first pass gives each NIC the class the full search ends with.
  const std::vector<PathClass> cls = route::min_classes_to_nics(d.t, d.gpu[0], all);
  for (int n : d.nic)
    CHECK(cls[static_cast<std::size_t>(n)] == route::best_path(d.t, d.gpu[0], n, all).cls);
}

TEST_CASE("NVLink domain size by BFS: NVL and one NVB relay, not two") {
  // A chain g0 - g1 - g2 - g3 over NVLink: from g0, g1 is NVL, g2 NVB (one relay), g3 would
  // need two relays, so the domain is {g0, g1, g2} = 3 (the rule of route_graph_test's chain).
  Topology t;
  const int g0 = dev(t, "g0", DeviceType::Gpu, 0), g1 = dev(t, "g1", DeviceType::Gpu, 1);
  const int g2 = dev(t, "g2", DeviceType::Gpu, 2), g3 = dev(t, "g3", DeviceType::Gpu, 3);
  link(t, g0, g1, LinkKind::NVLink, 100, 1);
  link(t, g1, g2, LinkKind::NVLink, 100, 1);
  link(t, g2, g3, LinkKind::NVLink, 100, 1);
  CHECK(summarize(Router(t), false).nvlink_domain == 3);
  // Six GPUs on one switch: all six, and the same count as asking the router pair by pair.
  Domain d = nvl_domain(6);
  Router r(d.t);
  int by_paths = 1;
  for (int g : d.gpu)
    if (g != d.gpu[0] && r.path(d.gpu[0], g).cls <= PathClass::NVB) ++by_paths;
  CHECK(summarize(r, false).nvlink_domain == 6);
  CHECK(by_paths == 6);
}
