// Built-in servers: each validates, has the datasheet GPU count and memory, and its wiring.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "topoplan/error.hpp"
#include "topoplan/topology_import.hpp"
#include "topoplan/topology_io.hpp"
#include "topoplan/units.hpp"

using namespace topoplan;

namespace {

double total_memory_bytes(const Topology& t) {
  double sum = 0;
  for (int g : t.gpus()) sum += t.gpu_spec(g).memory_bytes;
  return sum;
}

// Sum of per-direction bandwidth of `kind` links leaving `device`.
double bw_of_kind(const Topology& t, int device, LinkKind kind) {
  double sum = 0;
  for (const Adjacent& a : t.neighbours(device)) {
    if (t.link(link_of(a.out)).kind == kind) sum += t.bw_GBps(a.out);
  }
  return sum;
}

int neighbour(const Topology& t, int device, DeviceType type) {
  for (const Adjacent& a : t.neighbours(device)) {
    if (t.device(a.device).type == type) return a.device;
  }
  return -1;
}

}  // namespace

TEST_CASE("every built-in topology validates, servers are one node, clusters have a fabric") {
  const auto names = builtin_topology_names();
  CHECK(names.size() >= 11);
  CHECK(std::is_sorted(names.begin(), names.end()));
  for (const std::string& name : names) {
    CAPTURE(name);
    Topology t = load_topology(name);
    CHECK(t.name == name);
    CHECK_FALSE(t.description.empty());
    for (const auto& d : t.validate()) FAIL_CHECK(d.location << ": " << d.message);
    if (t.fabric.kind.empty()) {
      CHECK(t.node_count() == 1);
      CHECK(t.nics_of_node(0).size() >= 2);
    } else {
      CHECK(t.node_count() == t.fabric.nodes);
      CHECK(t.node_count() > 1);
    }
  }
}

TEST_CASE("GPU counts, memory and NVLink bandwidth per server") {
  struct Expect {
    const char* name;
    std::size_t gpus;
    double memory_GiB;   // gpus x catalog memory (datasheet capacities are binary)
    double nvlink_GBps;  // per GPU, per direction
  };
  // hgx-h20-8: 8 x 96 GiB = 768 GiB; 18 x 25 = 450 GB/s. H800: 8 x 25 = 200. A100: 12 x 25 =
  // 300. A800: 8 x 25 = 200. B200: 18 x 50 = 900. GB200 NVL72: 72 x 186 GiB = 13,392 GiB (NVIDIA:
  // "13.4 TB" of HBM3e).
  const Expect cases[] = {{"hgx-h20-8", 8, 768, 450},
                          {"hgx-h100-8", 8, 640, 450},
                          {"hgx-h200-8", 8, 1128, 450},
                          {"hgx-h800-8", 8, 640, 200},
                          {"dgx-a100-8", 8, 640, 300},
                          {"hgx-a800-8", 8, 640, 200},
                          {"hgx-b200-8", 8, 1440, 900},
                          {"gb200-nvl72", 72, 13392, 900},
                          {"pcie-l40s-8", 8, 384, 0},
                          {"pcie-rtx4090-8", 8, 192, 0},
                          // Issue 30. B300: 8 x 288 = 2,304 GiB ("2.3 TB"); GB300 NVL72: 72 x 288
                          // = 20,736 GiB ("20 TB"); H100 NVL pairs 12 x 25 = 300; H200 NVL 4-way
                          // groups 3 peers x 6 x 25 = 450; AMD meshes 7 x 64 = 448, 7 x 76.8 =
                          // 537.6; HCCS 7 x 28 = 196; UB 14 x 28 = 392 (CloudMatrix384: 384 x 128
                          // = 49,152 GiB, "48 TB").
                          {"hgx-b300-8", 8, 2304, 900},
                          {"gb300-nvl72", 72, 20736, 900},
                          {"pcie-h100nvl-8", 8, 752, 300},
                          {"pcie-h200nvl-8", 8, 1128, 450},
                          {"pcie-rtxpro6000-8", 8, 768, 0},
                          {"amd-mi300x-8", 8, 1536, 448},
                          {"amd-mi325x-8", 8, 2048, 448},
                          {"amd-mi355x-8", 8, 2304, 537.6},
                          {"ascend-910b-8", 8, 512, 196},
                          {"ascend-910c-8", 8, 1024, 392},
                          {"cloudmatrix-384", 384, 49152, 392}};
  for (const Expect& e : cases) {
    CAPTURE(e.name);
    Topology t = load_topology(e.name);
    CHECK(t.gpus().size() == e.gpus);
    CHECK(total_memory_bytes(t) == doctest::Approx(e.memory_GiB * kGiB));
    for (int g : t.gpus())
      CHECK(bw_of_kind(t, g, LinkKind::NVLink) == doctest::Approx(e.nvlink_GBps));
    for (int g : t.gpus())
      CHECK(bw_of_kind(t, g, LinkKind::NVLink) == doctest::Approx(t.gpu_spec(g).nvlink_GBps));
  }
}

TEST_CASE("hgx-h20-8 wiring: GPU i and NIC i share a PCIe switch, 2 switches per CPU, UPI") {
  Topology t = load_topology("hgx-h20-8");
  CHECK(t.device_count() == 8 + 1 + 4 + 8 + 2);
  for (int i = 0; i < 8; ++i) {
    const int gpu = *t.find("gpu" + std::to_string(i));
    const int nic = *t.find("nic" + std::to_string(i));
    CHECK(t.device(gpu).local_index == i);
    CHECK(t.gpus()[i] == gpu);
    const int sw = neighbour(t, gpu, DeviceType::PcieSwitch);
    CHECK(t.device(sw).id == "psw" + std::to_string(i / 2));
    CHECK(neighbour(t, nic, DeviceType::PcieSwitch) == sw);
    CHECK(bw_of_kind(t, gpu, LinkKind::PCIe) == doctest::Approx(64));  // Gen5 x16
    CHECK(t.device(neighbour(t, sw, DeviceType::Cpu)).id == (i < 4 ? "cpu0" : "cpu1"));
  }
  CHECK(bw_of_kind(t, *t.find("cpu0"), LinkKind::CpuLink) ==
        doctest::Approx(22));  // NCCL SRP_QPI_BW
  CHECK(t.nics_of_node(0).size() == 8);
  CHECK(t.gpus_of_node(0) == t.gpus());
}

TEST_CASE("PCIe-only servers: no NVLink, GPUs meet through switches and CPUs") {
  Topology t = load_topology("pcie-l40s-8");
  const int g0 = *t.find("gpu0"), g7 = *t.find("gpu7");
  CHECK(bw_of_kind(t, g0, LinkKind::NVLink) == 0);
  CHECK(neighbour(t, g0, DeviceType::PcieSwitch) != neighbour(t, g7, DeviceType::PcieSwitch));
  CHECK(bw_of_kind(t, g0, LinkKind::PCIe) == doctest::Approx(32));  // Gen4 x16
  CHECK(load_topology("pcie-rtx4090-8").device(*t.find("gpu0")).model == "RTX-4090");
}

TEST_CASE("gb200-nvl72: every GPU has NVLink-C2C to a Grace shared with one other GPU") {
  Topology t = load_topology("gb200-nvl72");
  for (int g : t.gpus()) {
    const int cpu = neighbour(t, g, DeviceType::Cpu);
    REQUIRE(cpu >= 0);
    CHECK(t.device(cpu).local_index == t.device(g).local_index / 2);
    CHECK(bw_of_kind(t, g, LinkKind::C2C) == doctest::Approx(450));
  }
  CHECK(t.nics_of_node(0).size() == 72);
}

TEST_CASE("load_topology: unknown names suggest built-ins, a file path wins") {
  CHECK_THROWS_WITH_AS(load_topology("hgx-h20"), doctest::Contains("did you mean 'hgx-h20-8'"),
                       UnknownNameError);
  CHECK_THROWS_AS(load_topology("/nonexistent/dir/x.json"), InputError);
  // A file named like a built-in wins over the built-in.
  const auto dir = std::filesystem::temp_directory_path() / "topoplan_test_hw";
  std::filesystem::create_directories(dir);
  const auto path = dir / "hgx-h20-8";
  {
    std::ofstream out(path);
    out << R"({"name": "mine", "devices": [{"id": "g[0-1]", "type": "gpu", "model": "L20"}],
              "links": [{"from": "g0", "to": "g1", "type": "pcie4", "count": 16}]})";
  }
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  Topology t = load_topology("hgx-h20-8");
  std::filesystem::current_path(cwd);
  CHECK(t.name == "mine");
  CHECK(t.gpus().size() == 2);
  // Errors in a file name the file.
  {
    std::ofstream out(dir / "bad.json");
    out << "{\"name\": \"b\", \"devices\": [{\"id\": \"g\", \"type\": \"gpu\", \"model\": \"X\"}], "
           "\"links\": []}";
  }
  const std::string bad = (dir / "bad.json").string();
  const std::string expected = bad + ": /devices/0/model: unknown GPU model 'X'";
  CHECK_THROWS_WITH(load_topology(bad), doctest::Contains(expected.c_str()));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a node count on a server generates a cluster, on a cluster it is an error") {
  ClusterOptions opts;
  opts.nodes = 2;
  Topology c = load_topology("hgx-h20-8", opts);
  CHECK(c.gpus().size() == 16);
  CHECK(c.node_count() == 2);
  CHECK(c.gpus_of_node(1).size() == 8);
  CHECK(c.validate().empty());
  CHECK_THROWS_WITH_AS(load_topology("h20-cluster-16", opts),
                       doctest::Contains("already a cluster"), InputError);
}

TEST_CASE("built-in cluster file: 16 x hgx-h20-8 on rail-optimized NDR400") {
  Topology c = load_topology("h20-cluster-16");
  CHECK(c.name == "h20-cluster-16");
  CHECK(c.gpus().size() == 16 * 8);
  CHECK(c.node_count() == 16);
  CHECK(c.fabric.server == "hgx-h20-8");
  CHECK(c.fabric.kind == "rail-optimized");
  CHECK(c.fabric.link == "ib-ndr400");
  CHECK(c.nics_of_node(15).size() == 8);
  for (const auto& d : c.validate()) FAIL_CHECK(d.location << ": " << d.message);
}

TEST_CASE("a cluster file's server path is relative to the cluster file, not the working folder") {
  // dir/cluster.json names "servers/s.json" and "../top.json"; the test runs in the build folder,
  // where neither exists, so only resolution against dir/ finds them. The server is hgx-h20-8's
  // built-in text written out, so 2 copies have 16 GPUs.
  const auto dir = std::filesystem::temp_directory_path() / "topoplan_test_relative" / "c";
  std::filesystem::create_directories(dir / "servers");
  const Topology builtin = load_topology("hgx-h20-8");
  std::ofstream(dir / "servers" / "s.json") << write_topology_json(builtin);
  std::ofstream(dir.parent_path() / "top.json") << write_topology_json(builtin);
  auto cluster_file = [&](const std::string& file, const std::string& server) {
    std::ofstream(dir / file) << R"({"name": "c", "cluster": {"server": ")" + server +
                                     R"(", "count": 2}})";
    return (dir / file).string();
  };
  CHECK(!std::filesystem::exists("servers/s.json"));
  CHECK(load_topology(cluster_file("down.json", "servers/s.json")).gpus().size() == 16);
  CHECK(load_topology(cluster_file("up.json", "../top.json")).gpus().size() == 16);
  // A built-in name is still the built-in; a missing path says where it looked.
  CHECK(load_topology(cluster_file("builtin.json", "hgx-h20-8")).gpus().size() == 16);
  const std::string missing = cluster_file("missing.json", "servers/none.json");
  CHECK_THROWS_WITH_AS(load_topology(missing),
                       doctest::Contains(("looked for " + (dir / "servers/none.json").string() +
                                          " (a relative path is relative to the folder")
                                             .c_str()),
                       InputError);
  std::filesystem::remove_all(dir.parent_path());
}

TEST_CASE("cluster files that name themselves or each other are a named cycle, not a crash") {
  // Both used to recurse parse_cluster -> load_topology until the stack overflowed.
  const auto dir = std::filesystem::temp_directory_path() / "topoplan_test_cycle";
  std::filesystem::create_directories(dir);
  const std::string self = (dir / "self.json").string(), a = (dir / "a.json").string(),
                    b = (dir / "b.json").string();
  auto cluster_file = [](const std::string& path, const std::string& server) {
    std::ofstream(path) << R"({"name": "c", "cluster": {"server": ")" + server +
                               R"(", "count": 2}})";
  };
  cluster_file(self, self);
  cluster_file(a, b);
  cluster_file(b, a);
  CHECK_THROWS_WITH_AS(
      load_topology(self),
      doctest::Contains(("cluster files form a cycle: " + self + " -> " + self).c_str()),
      InputError);
  CHECK_THROWS_WITH_AS(
      load_topology(a),
      doctest::Contains(("cluster files form a cycle: " + a + " -> " + b + " -> " + a).c_str()),
      InputError);
  // A cluster's own errors name the file and the pointer (was "cluster: fabric.tiers: ...").
  std::ofstream(a) << R"({"name": "c", "cluster": {"server": "hgx-h100-8", "count": 2,
                         "fabric": {"tiers": 5}}})";
  CHECK_THROWS_WITH_AS(
      load_topology(a),
      doctest::Contains((a + ": /cluster/fabric/tiers: must be 1 to 4, got 5").c_str()),
      InputError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("pcie-h100-8: plain PCIe, the optional NVLink bridge is not fitted") {
  // The H100 PCIe entry records the bridge's 300 GB/s (what the card can take); this server has
  // none, so every GPU pair meets through a PCIe Gen5 switch or the CPUs.
  Topology t = load_topology("pcie-h100-8");
  REQUIRE(t.gpus().size() == 8);
  for (int g : t.gpus()) {
    CHECK(bw_of_kind(t, g, LinkKind::NVLink) == 0);
    CHECK(bw_of_kind(t, g, LinkKind::PCIe) == doctest::Approx(64));  // Gen5 x16
    CHECK(t.gpu_spec(g).name == "H100-PCIe");
  }
  CHECK(t.gpu_spec(t.gpus()[0]).nvlink_GBps == 300);
  CHECK(t.nics_of_node(0).size() == 4);
}

TEST_CASE("xGMI and HCCS meshes: every GPU pair has its own link, 7 per GPU") {
  for (const char* name : {"amd-mi300x-8", "amd-mi325x-8", "amd-mi355x-8", "ascend-910b-8"}) {
    CAPTURE(name);
    Topology t = load_topology(name);
    for (int g : t.gpus()) {
      int peers = 0;
      for (const Adjacent& a : t.neighbours(g))
        peers += t.device(a.device).type == DeviceType::Gpu &&
                 t.link(link_of(a.out)).kind == LinkKind::NVLink;
      CHECK(peers == 7);
    }
  }
}

TEST_CASE("rack-scale domains: GB300 NVL72 and CloudMatrix384 are one switch vertex each") {
  for (const char* name : {"gb300-nvl72", "cloudmatrix-384", "ascend-910c-8"}) {
    CAPTURE(name);
    Topology t = load_topology(name);
    CHECK(t.node_count() == 1);
    int switches = 0;
    for (std::size_t d = 0; d < t.device_count(); ++d)
      switches += t.device(static_cast<int>(d)).type == DeviceType::NvSwitch;
    CHECK(switches == 1);
    CHECK(t.nics_of_node(0).size() == t.gpus().size());  // one NIC (or RDMA port) per GPU
  }
}
