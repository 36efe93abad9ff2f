// Hand-checked paths on built-in servers. Catalog figures: nvlink4 25 GB/s and 0.3 µs per link,
// pcie4 2 GB/s per lane, pcie5 4 GB/s per lane (x16: 32 / 64 GB/s), 0.5 µs per PCIe hop,
// upi 22 GB/s and 1.0 µs (topologies/catalog/links.json).
#include <doctest/doctest.h>

#include "route/route_helpers.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using topoplan::test::check_path;
using topoplan::test::id;

namespace {
bool uses_kind(const Topology& t, const Path& p, LinkKind kind) {
  for (DirLink d : p.hops)
    if (t.link(link_of(d)).kind == kind) return true;
  return false;
}
}  // namespace

TEST_CASE("hgx-h100-8: NVSwitch paths are NVL at 18 x 25 = 450 GB/s and never use PCIe") {
  const Topology t = load_topology("hgx-h100-8");
  Router r(t);
  const Path& p = r.path(id(t, "gpu0"), id(t, "gpu7"));
  CHECK(p.cls == PathClass::NVL);
  CHECK(p.bw_GBps == doctest::Approx(450));
  CHECK(p.latency_us == doctest::Approx(0.6));  // gpu→nvswitch→gpu, 0.3 µs each
  CHECK(p.hops.size() == 2);
  CHECK_FALSE(uses_kind(t, p, LinkKind::PCIe));
  for (int a : t.gpus())
    for (int b : t.gpus())
      if (a != b) CHECK(r.path(a, b).cls == PathClass::NVL);
  CHECK(r.nvlink_domain_GBps(id(t, "gpu3")) == doctest::Approx(450));
}

TEST_CASE("hgx-h100-8: GPU to NIC") {
  const Topology t = load_topology("hgx-h100-8");
  Router r(t);
  // gpu0 and nic0 share psw0: PIX, bottleneck PCIe Gen5 x16 = 64 GB/s, 2 hops of 0.5 µs.
  const Path& p = r.path(id(t, "gpu0"), id(t, "nic0"));
  check_path(p, PathClass::PIX, 64, 1.0);
  // nic4 hangs off the other socket: the direct path is SYS, but NCCL's PXN relays through
  // gpu4 (NVLink to gpu4, then its PCIe switch): gpu0→nvswitch→gpu4→psw2→nic4.
  const Path& q = r.path(id(t, "gpu0"), id(t, "nic4"));
  check_path(q, PathClass::PXN, 64, 0.3 + 0.3 + 0.5 + 0.5);
  // Two GPUs and two NICs share each switch; the tie goes to the NIC of the same local index.
  for (int g = 0; g < 8; ++g)
    CHECK(t.device(r.nic_of_gpu(id(t, "gpu" + std::to_string(g)))).id == "nic" + std::to_string(g));
  // Network bandwidth: ConnectX-7 at 400 Gb/s = 50 GB/s, below the 64 GB/s PCIe path.
  CHECK(r.network_GBps(id(t, "gpu2")) == doctest::Approx(50));
}

TEST_CASE("pcie-l40s-8: PIX under one switch, PHB through a CPU, SYS across UPI") {
  const Topology t = load_topology("pcie-l40s-8");
  Router r(t);
  const int g0 = id(t, "gpu0");
  // gpu0, gpu1 on psw0: gpu0→psw0→gpu1, PCIe Gen4 x16 = 32 GB/s, 1.0 µs.
  const Path& pix = r.path(g0, id(t, "gpu1"));
  check_path(pix, PathClass::PIX, 32, 1.0);
  // gpu2 on psw1, same socket: gpu0→psw0→cpu0→psw1→gpu2: PHB, 32 GB/s, 4 × 0.5 µs.
  const Path& phb = r.path(g0, id(t, "gpu2"));
  check_path(phb, PathClass::PHB, 32, 2.0);
  // gpu4 on the other socket: + cpu0→cpu1 over UPI (22 GB/s, 1 µs): SYS, bottleneck UPI.
  const Path& sys = r.path(g0, id(t, "gpu4"));
  check_path(sys, PathClass::SYS, 22, 3.0);
  CHECK(sys.hops.size() == 5);
  CHECK(r.nvlink_domain_GBps(g0) == 0);
  // NICs sit on the CPUs: gpu0→psw0→cpu0→nic0 is PHB; gpu6's closest NIC is nic1 (cpu1).
  CHECK(r.path(g0, id(t, "nic0")).cls == PathClass::PHB);
  CHECK(t.device(r.nic_of_gpu(g0)).id == "nic0");
  CHECK(t.device(r.nic_of_gpu(id(t, "gpu6"))).id == "nic1");
  // gpu0's NIC runs at 50 GB/s but the GPU's PCIe Gen4 x16 caps it at 32; with all 8 GPUs
  // sending, the 2 NICs give 2 × 50 / 8 = 12.5 GB/s each.
  CHECK(r.network_GBps(g0) == doctest::Approx(32));
  CHECK(summarize(r, false).network_share_GBps == doctest::Approx(12.5));
}

TEST_CASE("every built-in server: paths are symmetric in class and bandwidth") {
  for (const std::string& name : builtin_topology_names()) {
    const Topology t = load_topology(name);
    if (t.gpus().size() > 16) continue;  // gb200-nvl72 checked below on a sample
    Router r(t);
    for (int a : t.gpus())
      for (int b : t.gpus()) {
        if (a == b) continue;
        INFO(name << " " << t.device(a).id << " " << t.device(b).id);
        CHECK(r.path(a, b).cls == r.path(b, a).cls);
        CHECK(r.path(a, b).bw_GBps == doctest::Approx(r.path(b, a).bw_GBps));
        CHECK(r.path(a, b).cls < PathClass::NET);
      }
  }
}

TEST_CASE("gb200-nvl72: one NVLink domain of 72 GPUs") {
  const Topology t = load_topology("gb200-nvl72");
  Router r(t);
  REQUIRE(t.gpus().size() == 72);
  const int first = t.gpus().front();
  for (int b : t.gpus())
    if (b != first) CHECK(r.path(first, b).cls == PathClass::NVL);
}

// Router::sole_nvswitch: the one NVSwitch next to a device (the collective engine's direct
// GPU -> switch -> GPU hop), -1 without one; cached, so asking twice gives the same answer.
TEST_CASE("sole_nvswitch: HGX GPUs share one switch vertex, PCIe GPUs have none") {
  const Topology hgx = load_topology("hgx-h100-8");
  const Router r(hgx);
  const int sw = r.sole_nvswitch(id(hgx, "gpu0"));
  REQUIRE(sw >= 0);
  CHECK(hgx.device(sw).type == DeviceType::NvSwitch);
  CHECK(r.sole_nvswitch(id(hgx, "gpu7")) == sw);
  CHECK(r.sole_nvswitch(id(hgx, "gpu0")) == sw);  // cached
  const Topology pcie = load_topology("pcie-l40s-8");
  CHECK(Router(pcie).sole_nvswitch(id(pcie, "gpu0")) == -1);
}
