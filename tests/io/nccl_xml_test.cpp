// NCCL topology XML import/export: the samples in topologies/samples/nccl-xml, variations written
// inline (missing attributes, NICs under a CPU, PCIe-only, NVLink bridges), round trips.
#include <doctest/doctest.h>

#include "io/io_test_util.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology_import.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using test::canonical;

namespace {

ImportedTopology import_sample(const std::string& name, const ImportOptions& opt = {}) {
  const std::string path = "topologies/samples/nccl-xml/" + name;
  return import_nccl_topology_xml(test::read_sample(path), path, opt);
}

std::string error_of(const std::string& xml, const ImportOptions& opt = {}) {
  try {
    import_nccl_topology_xml(xml, "t.xml", opt);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

int count_links(const Topology& t, const std::string& type) {
  int n = 0;
  for (std::size_t i = 0; i < t.link_count(); ++i) n += t.link(static_cast<int>(i)).type == type;
  return n;
}

Link link_between(const Topology& t, const std::string& a, const std::string& b) {
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    const std::string x = t.device(l.a).id, y = t.device(l.b).id;
    if ((x == a && y == b) || (x == b && y == a)) return l;
  }
  FAIL("no link " << a << " - " << b);
  return t.link(0);
}

}  // namespace

TEST_CASE("HGX H100 sample imports to the same graph as the built-in hgx-h100-8") {
  const ImportedTopology imp = import_sample("hgx-h100-8.xml");
  const Topology builtin = load_topology("hgx-h100-8");
  // Same ids, types, models (except the free-text switch/CPU names), links, bandwidths. The
  // 5+5+4+4 NVLink entries per GPU become one bundle of 18 (18 x 25 = 450 GB/s), the nested
  // Broadcom ports one switch per upstream port, Intel family 6 model 143 the upi link.
  Topology expected = builtin;
  std::string want = canonical(builtin), got = canonical(imp.topology);
  auto strip_models = [](const Topology& t, std::string text) {
    for (std::size_t i = 0; i < t.device_count(); ++i) {
      const Device& d = t.device(static_cast<int>(i));
      if (d.type == DeviceType::PcieSwitch || d.type == DeviceType::NvSwitch) {
        const std::size_t at = text.find(d.id + " " + std::string(to_string(d.type)) + " ");
        const std::size_t model = at + d.id.str().size() + to_string(d.type).size() + 2;
        text.erase(model, text.find(' ', text.find(d.model, model) + d.model.size()) - model);
      }
    }
    return text;
  };
  CHECK(strip_models(imp.topology, got) == strip_models(builtin, want));
  CHECK(imp.topology.device(*imp.topology.find("cpu0")).model == "Intel Xeon Sapphire Rapids");
  CHECK(imp.notes.empty());
  CHECK(imp.topology.validate().empty());
  CHECK(link_between(imp.topology, "gpu3", "nvswitch").bw_GBps == 450);
  CHECK(link_between(imp.topology, "nic5", "psw2").bw_GBps == 64);  // Gen5 x16 = 16 x 4 GB/s
}

TEST_CASE("A100 host with 4 AMD NUMA domains") {
  const Topology t = import_sample("a100-4numa.xml").topology;
  CHECK(t.gpus().size() == 8);
  CHECK(t.gpu_spec(t.gpus()[0]).name == "A100-SXM-80GB");  // PCI device 0x20b2
  // Every pair of the 4 NUMA nodes gets one inter-socket link: 4 x 3 / 2 = 6.
  CHECK(count_links(t, "xgmi") == 6);
  CHECK(t.device(*t.find("cpu2")).model == "AMD EPYC Zen 2 (Rome)");
  // 6 NVLink entries of 2 → one bundle of 12 nvlink3 = 12 x 25 = 300 GB/s.
  CHECK(link_between(t, "gpu7", "nvswitch").count == 12);
  CHECK(link_between(t, "gpu7", "nvswitch").bw_GBps == 300);
  // 200000 Mb/s / 8000 = 25 GB/s → ConnectX-6; "16 GT/s" x16 → pcie4, 16 x 2 = 32 GB/s.
  CHECK(t.device(*t.find("nic6")).model == "ConnectX-6");
  CHECK(link_between(t, "nic6", "psw3").type == "pcie4");
  CHECK(link_between(t, "psw3", "cpu3").bw_GBps == 32);
  CHECK(link_between(t, "gpu6", "psw3").type == "pcie4");
  CHECK(t.validate().empty());
}

TEST_CASE("GB200 tray: NVLink to invisible switches, C2C to Grace, no CPU link") {
  // The Blackwell PCI id of the sample is not in the catalog: the error names the GPU's line.
  const std::string path = "topologies/samples/nccl-xml/gb200-tray.xml";
  const std::string text = test::read_sample(path);
  CHECK(error_of(text) ==
        "t.xml: line 5: cannot tell the GPU model from PCI device 0x2941; pass --gpu MODEL (a "
        "catalog name such as H100-SXM)");
  ImportOptions opt;
  opt.gpu_model = "NVIDIA GB200";  // an alias resolves too
  const Topology t = import_nccl_topology_xml(text, path, opt).topology;
  CHECK(t.gpus().size() == 4);
  CHECK(link_between(t, "gpu2", "nvswitch").type == "nvlink5");
  CHECK(link_between(t, "gpu2", "nvswitch").bw_GBps == 900);  // 18 x 50
  // c2c bw 45000 MB/s x count 10 / 1000 = 450 GB/s per direction, to the GPU's own Grace.
  CHECK(link_between(t, "gpu2", "cpu1").bw_GBps == doctest::Approx(450));
  CHECK(link_between(t, "gpu2", "cpu1").kind == LinkKind::C2C);
  CHECK(count_links(t, "upi") + count_links(t, "xgmi") + count_links(t, "qpi-skl") == 0);
  CHECK(t.validate().empty());
}

TEST_CASE("missing attributes: version, CPU vendor, link speeds, GPU dev, the notes say so") {
  const std::string xml = R"(<system>
  <cpu numaid="0">
    <pci busid="0000:01:00.0" class="0x060400">
      <pci busid="0000:02:00.0" class="0x030200" device="0x2330"><gpu sm="90"/></pci>
      <pci busid="0000:03:00.0" class="0x030200" device="0x2330"><gpu sm="90"/></pci>
    </pci>
  </cpu>
  <cpu numaid="1"/>
</system>)";
  const ImportedTopology imp = import_nccl_topology_xml(xml, "t.xml");
  const Topology& t = imp.topology;
  CHECK(t.gpus().size() == 2);
  // GPUs take the catalog host interface (H100-SXM: pcie5 x16), the switch its fastest child.
  CHECK(link_between(t, "gpu0", "psw0").type == "pcie5");
  CHECK(link_between(t, "psw0", "cpu0").type == "pcie5");
  CHECK(link_between(t, "cpu0", "cpu1").type == "upi");
  REQUIRE(imp.notes.size() == 6);  // version, 2 CPUs' vendor, 2 GPUs and the switch's speed
  CHECK(imp.notes[0] == "t.xml: line 1: <system> has no version; NCCL's version 1 assumed");
}

TEST_CASE("a NIC under a CPU, a two-port NIC, a PCIe-only box and an NVLink bridge pair") {
  const std::string xml = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="207">
    <nic><net name="mlx5_0" dev="0" speed="400000"/></nic>
    <pci busid="0000:10:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x030000" device="0x2684" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="89"/>
      </pci>
      <pci busid="0000:12:00.0" class="0x030000" device="0x2684" link_speed="16.0 GT/s PCIe" link_width="8">
        <gpu dev="0" sm="89"/>
      </pci>
      <pci busid="0000:13:00.0" class="0x020000" link_speed="16.0 GT/s PCIe" link_width="16">
        <nic><net name="eth0" dev="1" speed="100000"/><net name="eth1" dev="2" speed="100000"/></nic>
      </pci>
      <pci busid="0000:14:00.0" class="0x010802"/>
    </pci>
  </cpu>
</system>)";
  const ImportedTopology imp = import_nccl_topology_xml(xml, "t.xml");
  const Topology& t = imp.topology;
  CHECK(t.gpu_spec(t.gpus()[0]).name == "RTX-4090");
  // gpu0 is CUDA dev 0, the x8 card: 8 lanes x 2 GB/s = 16 GB/s.
  CHECK(link_between(t, "gpu0", "psw0").bw_GBps == 16);
  // NIC directly under the CPU: its catalog host interface (ConnectX-7: pcie5 x16 = 64 GB/s).
  CHECK(link_between(t, "nic0", "cpu0").bw_GBps == 64);
  // Two 100G ports share one Gen4 x16 link: 32 / 2 = 16 GB/s each. The catalog has no NIC at
  // 100000 / 8000 = 12.5 GB/s, so the model is left empty (and noted).
  CHECK(link_between(t, "nic1", "psw0").bw_GBps == 16);
  CHECK(t.device(*t.find("nic2")).model.empty());
  CHECK(count_links(t, "nvlink4") == 0);
  // Notes: 2 ports of unknown speed, the 2-port NIC once, the NVMe drive ignored, the NIC under
  // the CPU without PCIe attributes.
  CHECK(imp.notes.size() == 5);
  CHECK(imp.notes.back() ==
        "t.xml: line 3: no link_speed/link_width: pcie5 x16 assumed for nic mlx5_0");
  CHECK(t.device(*t.find("cpu0")).model == "Intel Xeon Emerald Rapids");  // model 207 = 0xCF
}

TEST_CASE("NVLink between GPUs (bridge pairs): one link per pair, listed by both GPUs") {
  const std::string xml = R"(<system version="1">
  <cpu numaid="0" arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="17">
    <pci busid="0000:01:00.0" class="0x030200" device="0x20b2" link_speed="16 GT/s" link_width="16">
      <gpu dev="0" sm="80"><nvlink target="0000:02:00.0" count="4" tclass="0x030200"/></gpu>
    </pci>
    <pci busid="0000:02:00.0" class="0x030200" device="0x20b2" link_speed="16 GT/s" link_width="16">
      <gpu dev="1" sm="80"><nvlink target="0000:01:00.0" count="4" tclass="0x030200"/>
        <nvlink target="0000:09:00.0" count="2" tclass="0x030200"/></gpu>
    </pci>
  </cpu>
</system>)";
  const ImportedTopology imp = import_nccl_topology_xml(xml, "t.xml");
  const Topology& t = imp.topology;
  CHECK(count_links(t, "nvlink3") == 1);
  CHECK(link_between(t, "gpu0", "gpu1").bw_GBps == 100);  // NV4: 4 x 25 GB/s
  CHECK_FALSE(t.find("nvswitch"));
  REQUIRE(imp.notes.size() == 1);  // the link to a GPU that is not in the file
  CHECK(imp.notes[0].find("line 8: <nvlink target=\"0000:09:00.0\"> is not a GPU") !=
        std::string::npos);
}

TEST_CASE("bad files: errors name the line") {
  CHECK(error_of("<system version=\"2\"/>") ==
        "t.xml: line 1: <system version=\"2\">: only version 1 is known");
  CHECK(error_of("<topology/>") == "t.xml: line 1: root element is <topology>, expected <system>");
  CHECK(error_of("<system>\n<cpu familyid=\"six\"/></system>") ==
        "t.xml: line 2: <cpu> attribute familyid=\"six\" is not a number");
  CHECK(error_of("<system><cpu>\n<pci class=\"0x0302\" device=\"0x2330\"><gpu/></pci>\n"
                 "<pci class=\"0x0302\" device=\"0x2684\"><gpu><nvlink count=\"2\" "
                 "tclass=\"0x068000\"/></gpu></pci>"
                 "</cpu></system>") ==
        "t.xml: line 3: <nvlink> on a RTX-4090, which has no NVLink in the catalog");
  ImportOptions opt;
  opt.gpu_model = "H2O";
  CHECK_THROWS_WITH_AS(import_sample("hgx-h100-8.xml", opt),
                       doctest::Contains("did you mean 'H20'"), UnknownNameError);
}

// Counts, widths and CPU numbers are bounded where the file states them (docs/limits.md): a
// count of 2^31-1 twice overflowed the per-GPU sum, 3,000 CPUs were 4.5 million all-pairs links.
TEST_CASE("hostile counts and sizes are refused at their line") {
  const std::string gpu = "<system><cpu>\n<pci class=\"0x0302\" device=\"0x2330\"><gpu>\n";
  const std::string end = "</gpu></pci></cpu></system>";
  CHECK(error_of(gpu + "<nvlink count=\"2147483647\" tclass=\"0x068000\"/>\n" +
                 "<nvlink count=\"2147483647\" tclass=\"0x068000\"/>" + end) ==
        "t.xml: line 3: <nvlink> attribute count=\"2147483647\" must be 1 to 64");
  CHECK(error_of(gpu + "<nvlink count=\"-4\" tclass=\"0x068000\"/>" + end) ==
        "t.xml: line 3: <nvlink> attribute count=\"-4\" must be 1 to 64");
  std::string many;
  for (int i = 0; i < 5; ++i) many += "<nvlink count=\"18\" tclass=\"0x068000\"/>\n";
  CHECK(error_of(gpu + many + end) ==
        "t.xml: line 6: more than 64 NVLinks from one GPU to NVSwitches");
  CHECK(error_of("<system><cpu>\n<pci class=\"0x0302\" device=\"0x2330\" "
                 "link_width=\"2147483647\"><gpu/></pci></cpu></system>") ==
        "t.xml: line 2: <pci> attribute link_width=\"2147483647\" must be 0 to 32");
  std::string cpus = "<system>";
  for (int i = 0; i < 3000; ++i) cpus += "\n<cpu/>";
  CHECK(error_of(cpus + "</system>") ==
        "t.xml: line 66: more than 64 <cpu> elements (CPU sockets / NUMA nodes) in one server");
  cpus = "<system>";
  for (int i = 0; i < 64; ++i) cpus += "\n<cpu arch=\"x86_64\" vendor=\"GenuineIntel\"/>";
  CHECK(import_nccl_topology_xml(cpus + "</system>", "t.xml", {}).topology.device_count() == 64);
}

TEST_CASE("round trips: built-in → XML → topology, and imported → XML → topology") {
  // NCCL XML has no text for switch or CPU names, and a CPU's model is re-derived from its
  // vendor/family/model, so the comparison is on the imported form of both sides.
  for (const char* name : {"hgx-h100-8", "dgx-a100-8", "pcie-l40s-8"}) {
    CAPTURE(name);
    const Topology builtin = load_topology(name);
    ImportOptions opt;
    opt.gpu_model = builtin.gpu_spec(builtin.gpus()[0]).name;  // L40S has no PCI id listed
    const ImportedTopology once =
        import_nccl_topology_xml(export_nccl_topology_xml(builtin), "a.xml", opt);
    const ImportedTopology twice =
        import_nccl_topology_xml(export_nccl_topology_xml(once.topology), "b.xml", opt);
    CHECK(canonical(once.topology) == canonical(twice.topology));
    CHECK(once.topology.link_count() == builtin.link_count());
    CHECK(once.topology.device_count() == builtin.device_count());
  }
  for (const char* sample : {"hgx-h100-8.xml", "a100-4numa.xml"}) {
    CAPTURE(sample);
    const Topology t = import_sample(sample).topology;
    const Topology back = import_nccl_topology_xml(export_nccl_topology_xml(t), "x.xml").topology;
    CHECK(canonical(back) == canonical(t));
  }
}

TEST_CASE("topology JSON out reads back to the same graph") {
  for (const char* name : {"hgx-h100-8", "gb200-nvl72", "dgx-a100-8"}) {
    CAPTURE(name);
    const Topology t = load_topology(name);
    CHECK(canonical(parse_topology_json(write_topology_json(t), "w.json")) == canonical(t));
  }
  ImportOptions opt;
  opt.gpu_model = "GB200";
  const Topology tray = import_sample("gb200-tray.xml", opt).topology;  // C2C with bw_GBps
  CHECK(canonical(parse_topology_json(write_topology_json(tray), "w.json")) == canonical(tray));
}

TEST_CASE("export refuses a multi-server topology") {
  CHECK_THROWS_WITH_AS(export_nccl_topology_xml(load_topology("h20-cluster-16")),
                       doctest::Contains("NCCL topology XML describes one server"), InputError);
}
