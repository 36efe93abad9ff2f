// Topology graph: construction, adjacency, rank order, copies and validate().
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "hw/topology_builder.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology.hpp"
#include "topoplan/units.hpp"

using namespace topoplan;

namespace {

Device dev(const std::string& id, DeviceType type, int node = 0, int local = 0,
           std::string model = "") {
  return test::make_device(id, type, node, local, std::move(model));
}

Link lnk(int a, int b, double bw, const std::string& type = "pcie5") {
  return test::make_link(a, b, bw, type);
}

bool has_message(const std::vector<Diagnostic>& diags, const std::string& location,
                 const std::string& part) {
  return std::any_of(diags.begin(), diags.end(), [&](const Diagnostic& d) {
    return d.location == location && d.message.find(part) != std::string::npos;
  });
}

// gpu0 -- sw -- gpu1, the smallest valid topology.
Topology two_gpus() {
  Topology t;
  t.add_device(dev("gpu0", DeviceType::Gpu, 0, 0, "H20"));
  t.add_device(dev("gpu1", DeviceType::Gpu, 0, 1, "H20"));
  t.add_device(dev("sw", DeviceType::PcieSwitch));
  t.add_link(lnk(0, 2, 64));
  t.add_link(lnk(2, 1, 32));
  return t;
}

}  // namespace

TEST_CASE("devices and links are indexed and found by id") {
  Topology t = two_gpus();
  CHECK(t.device_count() == 3);
  CHECK(t.link_count() == 2);
  CHECK(t.find("sw") == 2);
  CHECK_FALSE(t.find("gpu9").has_value());
  CHECK(t.device(1).id == "gpu1");
  CHECK_THROWS_AS(t.device(3), InternalError);
  CHECK_THROWS_AS(t.add_device(dev("gpu0", DeviceType::Gpu)), InternalError);
  CHECK_THROWS_AS(t.add_link(lnk(0, 7, 1)), InternalError);
}

TEST_CASE("directed links: forward is 2i, reverse 2i+1") {
  Topology t = two_gpus();
  // Link 1 joins sw (a=2) to gpu1 (b=1); leaving gpu1 it is used in reverse: DirLink 3.
  const auto& out = t.neighbours(1);
  REQUIRE(out.size() == 1);
  CHECK(out[0].out == 3);
  CHECK(out[0].device == 2);
  CHECK(is_reverse(out[0].out));
  CHECK(link_of(out[0].out) == 1);
  CHECK(t.from_device(3) == 1);
  CHECK(t.to_device(3) == 2);
  CHECK(t.from_device(2) == 2);
  CHECK(t.bw_GBps(3) == 32);
  CHECK(t.neighbours(2).size() == 2);
}

TEST_CASE("links read back whole: shared property sets keep every field apart (issue 32)") {
  // Links are stored as ends + a shared property set; each field that tells sets apart is
  // changed once between neighbours (the last set is tried before the hash) and in a later
  // repeat (found through the hash), and every link must read back exactly as it was added.
  Topology t;
  for (int i = 0; i < 4; ++i) t.add_device(dev("d" + std::to_string(i), DeviceType::Gpu, 0, i));
  std::vector<Link> added;
  const auto add = [&](Link l) {
    added.push_back(l);
    t.add_link(std::move(l));
  };
  Link base = lnk(0, 1, 32);
  base.count = 16;
  base.efficiency = 0.8;
  base.latency_us = 1.5;
  base.kind = LinkKind::PCIe;
  add(base);
  Link other = base;
  other.a = 1, other.b = 2;
  add(other);  // same set, other ends
  for (int field = 0; field < 6; ++field) {
    Link l = base;
    l.a = 2, l.b = 3;
    if (field == 0) l.bw_GBps = 64;
    if (field == 1) l.efficiency = 0.9;
    if (field == 2) l.latency_us = 2.5;
    if (field == 3) l.count = 8;
    if (field == 4) l.type = "nvlink4";
    if (field == 5) l.kind = LinkKind::NVLink;
    add(l);
    add(base);  // back to the first set: found through the hash, not the last one
  }
  REQUIRE(t.link_count() == added.size());
  for (std::size_t i = 0; i < added.size(); ++i) {
    CAPTURE(i);
    const Link l = t.link(static_cast<int>(i));
    CHECK(l.a == added[i].a);
    CHECK(l.b == added[i].b);
    CHECK(l.kind == added[i].kind);
    CHECK(l.count == added[i].count);
    CHECK(l.type == added[i].type);
    CHECK(l.bw_GBps == added[i].bw_GBps);
    CHECK(l.efficiency == added[i].efficiency);
    CHECK(l.latency_us == added[i].latency_us);
    CHECK(t.bw_GBps(2 * static_cast<int>(i)) == added[i].bw_GBps);
    CHECK(t.from_device(2 * static_cast<int>(i) + 1) == added[i].b);
  }
  // Copies and moves carry the records and the sets.
  const Topology copy = t;
  Topology moved = Topology(t);
  for (const Topology* x : std::vector<const Topology*>{&copy, &moved})
    for (std::size_t i = 0; i < added.size(); ++i)
      CHECK(x->link(static_cast<int>(i)).latency_us == added[i].latency_us);
}

TEST_CASE("neighbours follow links added after a read, copies and threads see the same lists") {
  Topology t = two_gpus();
  REQUIRE(t.neighbours(0).size() == 1);  // builds the flat index
  t.add_device(dev("gpu2", DeviceType::Gpu, 0, 2, "H20"));
  t.add_link(lnk(2, 3, 16));  // link 2: sw -> gpu2
  t.add_link(lnk(0, 2, 64));  // link 3: a second gpu0 -- sw link
  // In link-index order: sw has links 0 (reverse), 1, 2 and 3 (reverse).
  const auto sw = t.neighbours(2);
  REQUIRE(sw.size() == 4);
  CHECK(sw[0].out == 1);
  CHECK(sw[1].out == 2);
  CHECK(sw[2].out == 4);
  CHECK(sw[3].out == 7);
  CHECK(t.neighbours(3).size() == 1);
  CHECK(t.neighbours(3)[0].device == 2);
  CHECK(t.neighbours(0).size() == 2);
  const Topology copy = t;
  for (int d = 0; d < 4; ++d) {
    const auto a = t.neighbours(d), b = copy.neighbours(d);
    CHECK(std::equal(a.begin(), a.end(), b.begin(), b.end(),
                     [](const Adjacent& x, const Adjacent& y) {
                       return x.out == y.out && x.device == y.device;
                     }));
  }
  // A fresh copy read by several threads at once: one of them builds, all see the same lists.
  const Topology fresh = t;
  std::vector<std::size_t> sizes(4);
  std::vector<std::thread> readers;
  for (std::size_t i = 0; i < sizes.size(); ++i)
    readers.emplace_back([&, i] { sizes[i] = fresh.neighbours(2).size(); });
  for (std::thread& r : readers) r.join();
  CHECK(std::all_of(sizes.begin(), sizes.end(), [](std::size_t n) { return n == 4; }));
}

TEST_CASE("gpus() is node-major then local_index whatever the insertion order") {
  Topology t;
  t.add_device(dev("n1/gpu1", DeviceType::Gpu, 1, 1));
  t.add_device(dev("n0/gpu1", DeviceType::Gpu, 0, 1));
  t.add_device(dev("n1/gpu0", DeviceType::Gpu, 1, 0));
  t.add_device(dev("n0/gpu0", DeviceType::Gpu, 0, 0));
  t.add_device(dev("n1/nic0", DeviceType::Nic, 1, 0));
  t.add_device(dev("leaf0", DeviceType::NetSwitch, -1, 0));
  std::vector<std::string> ids;
  for (int g : t.gpus()) ids.push_back(t.device(g).id);
  CHECK(ids == std::vector<std::string>{"n0/gpu0", "n0/gpu1", "n1/gpu0", "n1/gpu1"});
  CHECK(t.node_count() == 2);
  CHECK(t.gpus_of_node(1) == std::vector<int>{2, 0});
  CHECK(t.nics_of_node(1) == std::vector<int>{4});
  CHECK(t.nics_of_node(0).empty());
  CHECK(t.gpus_of_node(5).empty());
}

TEST_CASE("copies are deep and moves keep the data") {
  Topology t = two_gpus();
  t.name = "x";
  Topology c = t;
  c.add_device(dev("gpu2", DeviceType::Gpu, 0, 2));
  c.add_link(lnk(2, 3, 16));
  CHECK(t.device_count() == 3);
  CHECK(c.device_count() == 4);
  CHECK(c.gpus().size() == 3);
  CHECK(t.gpus().size() == 2);
  CHECK(c.name == "x");
  Topology m = std::move(c);
  CHECK(m.find("gpu2") == 3);
  CHECK(m.neighbours(3).size() == 1);
  t = m;
  CHECK(t.link_count() == 3);
}

TEST_CASE("gpu_spec reads the catalog") {
  Topology t = two_gpus();
  CHECK(t.gpu_spec(0).memory_bytes == doctest::Approx(96 * kGiB));
  CHECK_THROWS_AS(t.gpu_spec(2), InternalError);
  Topology u;
  u.add_device(dev("g", DeviceType::Gpu, 0, 0, "H2O"));
  CHECK_THROWS_AS(u.gpu_spec(0), UnknownNameError);
}

TEST_CASE("to_string of device types and link kinds") {
  CHECK(to_string(DeviceType::PcieSwitch) == "pcie-switch");
  CHECK(to_string(DeviceType::NetSwitch) == "net-switch");
  CHECK(to_string(LinkKind::NVLink) == "nvlink");
  CHECK(to_string(LinkKind::Network) == "network");
}

TEST_CASE("validate: a well-formed topology has no diagnostics") {
  CHECK(two_gpus().validate().empty());
}

TEST_CASE("validate reports every problem at once") {
  Topology t = two_gpus();
  t.add_device(dev("gpu2", DeviceType::Gpu, 0, 2, "H20"));  // 3: isolated GPU
  t.add_device(dev("nvs", DeviceType::NvSwitch));           // 4: switch without GPUs
  t.add_device(dev("cpu0", DeviceType::Cpu));               // 5
  t.add_link(lnk(4, 5, 10));
  t.add_link(lnk(5, 5, 10));           // self-link
  t.add_link(lnk(2, 5, 0));            // zero bandwidth
  t.add_link(lnk(0, 2, 64));           // duplicate of link 0 (same pair, same type)
  t.add_link(lnk(2, 0, 64, "pcie4"));  // same pair, another type: not a duplicate
  const auto diags = t.validate();
  CHECK(has_message(diags, "cpu0 -- cpu0", "self-link"));
  CHECK(has_message(diags, "sw -- cpu0", "must be > 0"));
  CHECK(has_message(diags, "gpu0 -- sw", "duplicate pcie5"));
  CHECK_FALSE(has_message(diags, "sw -- gpu0", "duplicate"));
  CHECK(has_message(diags, "gpu2", "no path to GPU 'gpu0'"));
  CHECK(has_message(diags, "gpu2", "not connected to anything"));
  CHECK(has_message(diags, "nvs", "NVSwitch has no GPU"));
  CHECK(diags.size() == 6);
}

TEST_CASE("validate: GPUs need a path to a NIC of their own server") {
  Topology t = two_gpus();
  t.add_device(dev("nic0", DeviceType::Nic, 0, 0, "ConnectX-7"));  // 3
  t.add_device(dev("gpu2", DeviceType::Gpu, 0, 2, "H20"));         // 4
  t.add_device(dev("nvs", DeviceType::NvSwitch, -1));              // 5: outside any server
  t.add_link(lnk(3, 0, 64));                                       // nic0 hangs off gpu0 only
  t.add_link(lnk(4, 5, 450, "nvlink4"));
  t.add_link(lnk(0, 5, 450, "nvlink4"));
  // gpu2 reaches nic0 only through nvs, which belongs to no server (node -1): not a server path.
  const auto diags = t.validate();
  CHECK(has_message(diags, "gpu2", "no path to a NIC"));
  CHECK_FALSE(has_message(diags, "gpu1", "no path to a NIC"));
  CHECK(diags.size() == 1);
}

TEST_CASE("validate: GPU models must be known and NVLink cannot exceed the part's") {
  Topology t = two_gpus();
  t.add_device(dev("nvs", DeviceType::NvSwitch));  // 3
  Link nv = lnk(0, 3, 900, "nvlink4");             // 36 links' worth on an 18-link H20
  nv.kind = LinkKind::NVLink;
  nv.count = 36;
  t.add_link(nv);
  nv.a = 1;
  nv.count = 18;
  nv.bw_GBps = 450;  // exactly the H20's 18 x 25 GB/s: fine
  t.add_link(nv);
  t.add_device(dev("gpu2", DeviceType::Gpu, 0, 2, "H2O"));  // 4
  t.add_link(lnk(4, 2, 64));
  const auto diags = t.validate();
  CHECK(has_message(diags, "gpu0", "900 GB/s of NVLink per direction; a H20 has 450 GB/s"));
  CHECK_FALSE(has_message(diags, "gpu1", "NVLink"));
  CHECK(has_message(diags, "gpu2", "unknown GPU model 'H2O'; did you mean 'H20'"));
  CHECK(diags.size() == 2);
}

// The id index is built on the first find() (issue 32: a generated cluster never needs it):
// devices added before it are found and checked for duplicates then, devices added after it
// are indexed (and checked) as they come; copies keep what they index.
TEST_CASE("find: the lazy id index finds every device and refuses duplicate ids") {
  Topology t = two_gpus();
  CHECK(t.find("sw") == 2);
  CHECK(t.find("gpu1") == 1);
  CHECK_FALSE(t.find("gpu2").has_value());
  t.add_device(dev("gpu2", DeviceType::Gpu, 0, 2, "H20"));
  CHECK(t.find("gpu2") == 3);
  CHECK_THROWS_AS(t.add_device(dev("gpu2", DeviceType::Gpu, 0, 3, "H20")), InternalError);
  CHECK(t.device_count() == 4);  // the refused device was not added
  const Topology copy = t;
  CHECK(copy.find("gpu2") == 3);

  Topology late = two_gpus();  // no find() yet: the duplicate is caught when the index is built
  late.add_device(dev("gpu0", DeviceType::Gpu, 0, 2, "H20"));
  CHECK_THROWS_AS(late.find("gpu0"), InternalError);
}
