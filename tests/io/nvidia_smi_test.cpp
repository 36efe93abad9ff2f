// `nvidia-smi topo -m` import: the samples in topologies/samples/nvidia-smi (written from the
// format as nvidia-smi prints it, NVIDIA/nccl#1357 and #1617 quote real ones) and bad matrices.
#include <doctest/doctest.h>

#include "io/io_test_util.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology_import.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using test::canonical;

namespace {

ImportedTopology import_sample(const std::string& name, const ImportOptions& opt = {}) {
  const std::string path = "topologies/samples/nvidia-smi/" + name;
  return import_nvidia_smi_topo(test::read_sample(path), path, opt);
}

std::string error_of(const std::string& text, const ImportOptions& opt = {}) {
  try {
    import_nvidia_smi_topo(text, "t.txt", opt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Canonical text with the free-text model of switches and CPUs dropped (the matrix names neither).
std::string shape(const Topology& t) {
  Topology copy;
  for (std::size_t i = 0; i < t.device_count(); ++i) {
    Device d = t.device(static_cast<int>(i));
    if (d.type == DeviceType::PcieSwitch || d.type == DeviceType::Cpu ||
        d.type == DeviceType::NvSwitch)
      d.model = "";
    copy.add_device(d);
  }
  for (std::size_t i = 0; i < t.link_count(); ++i) copy.add_link(t.link(static_cast<int>(i)));
  return canonical(copy);
}

const std::string kFourGpuMesh =
    "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV6\tNV6\tNV6\t0-31\t0\n"
    "GPU1\tNV6\t X \tNV6\tNV6\t0-31\t0\n"
    "GPU2\tNV6\tNV6\t X \tNV6\t0-31\t0\n"
    "GPU3\tNV6\tNV6\tNV6\t X \t0-31\t0\n";

}  // namespace

TEST_CASE("HGX H100 matrix imports to the same graph as the built-in hgx-h100-8") {
  ImportOptions opt;
  opt.gpu_model = "NVIDIA H100 80GB HBM3";
  opt.nic_model = "ConnectX-7";
  const ImportedTopology imp = import_sample("hgx-h100-8.txt", opt);
  // NV18 to 7 peers = 126 links > the 18 an H100 has: an NVSwitch, one bundle of 18 per GPU.
  // GPU i, NIC i with PIX to GPU/NIC 2(i/2)..2(i/2)+1: 4 switches; NODE/SYS: NUMA 0 and 1.
  CHECK(shape(imp.topology) == shape(load_topology("hgx-h100-8")));
  REQUIRE(imp.notes.size() == 1);
  CHECK(imp.notes[0].find("inter-socket link assumed Intel UPI") != std::string::npos);
  CHECK(imp.topology.description.find("NIC7 = mlx5_7") != std::string::npos);
}

TEST_CASE("PCIe-only box: PIX leaf switches under a PXB switch per CPU, the model from -L lines") {
  const ImportedTopology imp = import_sample("pcie-l40s-8.txt");
  const Topology& t = imp.topology;
  CHECK(t.gpu_spec(t.gpus()[0]).name == "L40S");  // "GPU 0: NVIDIA L40S (UUID: ...)"
  int switches = 0, nvlinks = 0;
  for (std::size_t i = 0; i < t.device_count(); ++i)
    switches += t.device(static_cast<int>(i)).type == DeviceType::PcieSwitch;
  for (std::size_t i = 0; i < t.link_count(); ++i)
    nvlinks += t.link(static_cast<int>(i)).kind == LinkKind::NVLink;
  // 4 PIX pairs → 4 leaf switches; per CPU the two leaves and the NIC are PXB → one upper switch.
  CHECK(switches == 6);
  CHECK(nvlinks == 0);
  // 8 GPU and 2 NIC links to switches, 4 leaf→upper, 2 upper→CPU, 1 CPU-CPU = 17.
  CHECK(t.link_count() == 17);
  CHECK(t.validate().empty());
  CHECK(imp.notes.size() == 2);  // NIC model unknown, CPU link assumed
}

TEST_CASE("a 4-GPU NV6 board is a direct mesh, not a switch") {
  ImportOptions opt;
  opt.gpu_model = "H100";
  const Topology t = import_nvidia_smi_topo(kFourGpuMesh, "t.txt", opt).topology;
  // 6 x 3 peers = 18 = the H100's NVLink count: direct bundles of 6 (150 GB/s) per pair.
  CHECK_FALSE(t.find("nvswitch"));
  int pairs = 0;
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    if (l.kind != LinkKind::NVLink) continue;
    ++pairs;
    CHECK(l.bw_GBps == 150);
  }
  CHECK(pairs == 6);  // 4 x 3 / 2
}

TEST_CASE("bad matrices: errors name the line") {
  ImportOptions opt;
  opt.gpu_model = "H100";
  CHECK(error_of(kFourGpuMesh) ==
        "t.txt: line 1: nvidia-smi topo -m does not name the GPU model; pass --gpu MODEL or put "
        "the `nvidia-smi -L` lines before the matrix");
  std::string asym = kFourGpuMesh;
  asym.replace(asym.find("NV6"), 3, "PIX");
  CHECK(error_of(asym, opt) == "t.txt: line 2: GPU0-GPU1 is PIX but GPU1-GPU0 is NV6");
  std::string bad = kFourGpuMesh;
  bad.replace(bad.rfind("NV6"), 3, "NVX");
  CHECK(error_of(bad, opt) ==
        "t.txt: line 5: unknown connection 'NVX' in column GPU2 (expected X, NV#, PIX, PXB, PHB, "
        "NODE or SYS)");
  CHECK(error_of("\tGPU0\tGPU1\nGPU0\t X \n", opt) ==
        "t.txt: line 2: row GPU0 has 1 cells, the header 2 device columns");
  CHECK(error_of("hello\n", opt) ==
        "t.txt: line 1: no matrix header (a line starting with GPU0) found");
}

TEST_CASE("an imported topology's name is UTF-8 text: --name or the file name, else refused") {
  // Bytes that are not UTF-8 made write_topology_json throw nlohmann's type_error 316 (exit 1).
  const std::string text = test::read_sample("topologies/samples/nvidia-smi/hgx-h100-8.txt");
  ImportOptions bad;
  bad.gpu_model = "H100";
  bad.name = "srv\xff";
  try {
    import_nvidia_smi_topo(text, "t.txt", bad);
    FAIL("accepted");
  } catch (const FieldError& e) {
    CHECK(e.field() == "name");
    CHECK(std::string(e.what()) == "name: 'srv?' is not UTF-8 text");
  }
  try {
    ImportOptions unnamed;
    unnamed.gpu_model = "H100";
    import_nvidia_smi_topo(text, "dir/h100\xfe.txt", unnamed);
    FAIL("accepted");
  } catch (const FieldError& e) {
    CHECK(std::string(e.what()) ==
          "name: not given, and the file name 'h100?' that would name the topology is not UTF-8 "
          "text");
  }
  // --name wins over the file's name; the description shows the path with '?'.
  ImportOptions named = bad;
  named.name = "srv";
  const ImportedTopology ok = import_nvidia_smi_topo(text, "dir\xfe/h100.txt", named);
  CHECK(ok.topology.name == "srv");
  CHECK(ok.topology.description.find("dir?/h100.txt") != std::string::npos);
  CHECK(!write_topology_json(ok.topology).empty());
}
