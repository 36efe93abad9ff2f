// Hardware catalog: built-in figures, identities between fields, lookups and parse errors.
#include <doctest/doctest.h>

#include "topoplan/error.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/units.hpp"

using namespace topoplan;

namespace {
const char* kLinks = R"({"links": [
  {"name": "nvlink4", "kind": "nvlink", "GBps": 25, "efficiency": 0.8, "latency_us": 0.3, "source": "s"},
  {"name": "pcie5", "kind": "pcie", "GBps": 4, "latency_us": 0.5, "source": "s"},
  {"name": "ib-ndr400", "kind": "network", "GBps": 50, "source": "s"}]})";
const char* kGpus = R"({"gpus": [
  {"name": "G", "vendor_name": "g", "sm_version": 90, "memory_GiB": 2, "hbm_GBps": 1, "bf16_TFLOPS": 1,
   "fp16_TFLOPS": 1, "nvlink_type": "nvlink4", "nvlink_count": 2, "nvlink_GBps": 50,
   "pcie_type": "pcie5", "pcie_lanes": 16, "power_W": 1, "source": "s"}]})";
const char* kNics = R"({"nics": [{"name": "N", "GBps": 50, "port_link": "ib-ndr400",
  "pcie_type": "pcie5", "pcie_lanes": 16, "source": "s"}]})";

std::string error_of(const std::string& gpus, const std::string& links, const std::string& nics) {
  try {
    Catalog::parse(gpus, links, nics, "cat");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// `text` with the first `from` replaced by `to` (the length comes from `from`, never by hand).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  return text.replace(text.find(from), from.size(), to);
}
}  // namespace

TEST_CASE("built-in GPUs carry the reference figures") {
  const Catalog& c = Catalog::builtin();
  const GpuSpec& h20 = c.gpu("H20");
  // "96GB" on the datasheet is 96 GiB of HBM3; nvidia-smi shows 97871 MiB of it usable.
  CHECK(h20.memory_bytes == doctest::Approx(96 * kGiB));
  CHECK(h20.usable_memory_bytes() == doctest::Approx(97871 * kMiB));
  CHECK(h20.hbm_GBps == 4000);
  CHECK(h20.bf16_TFLOPS == 148);
  CHECK(h20.sm_version == 90);
  CHECK(c.gpu("H20-141GB").memory_bytes == doctest::Approx(141 * kGiB));
  CHECK(c.gpu("H800-SXM").nvlink_GBps == 200);
  CHECK(c.gpu("A800-SXM").nvlink_GBps == 200);
  CHECK(c.gpu("B200").fp4_TFLOPS == 9000);
  CHECK(c.gpu("L40S").nvlink_type.empty());
  CHECK(c.gpus().size() >= 24);
}

// The 2026 entries (issue 30): each figure below is the entry's cited datasheet value or the
// derivation its "source" spells out; a change to one of them must change its source too.
TEST_CASE("2026 catalog entries: datasheet figures, derived dense rates and link totals") {
  const Catalog& c = Catalog::builtin();
  // HGX B300: 108 PFLOPS dense FP4 / 8 GPUs = 13.5 PF; 36 PFLOPS sparse BF16 / 8 / 2 = 2.25 PF;
  // 2 POPS sparse INT8 / 8 / 2 = 125 TOPS. 18 NVLink5 x 50 = 900 GB/s. nvidia-smi 275040 MiB.
  const GpuSpec& b300 = c.gpu("B300");
  CHECK(b300.fp4_TFLOPS == 13500);
  CHECK(b300.bf16_TFLOPS == 2250);
  CHECK(b300.int8_TOPS == 125);
  CHECK(b300.memory_bytes == doctest::Approx(288 * kGiB));
  CHECK(b300.usable_memory_bytes() == doctest::Approx(275040 * kMiB));
  CHECK(b300.nvlink_GBps == 900);
  CHECK(b300.pcie_type == "pcie6");
  CHECK(b300.power_W == 1100);
  // GB300 NVL72: 1,080 PF dense FP4 / 72 = 15 PF; 720 PF sparse FP8 / 72 / 2 = 5 PF;
  // 576 TB/s / 72 = 8 TB/s.
  const GpuSpec& gb300 = c.gpu("GB300");
  CHECK(gb300.fp4_TFLOPS == 15000);
  CHECK(gb300.fp8_TFLOPS == 5000);
  CHECK(gb300.hbm_GBps == 8000);
  CHECK(gb300.power_W == 1400);
  // H100 PCIe / NVL, H200 NVL: datasheet sparse figures halved; bridges 600 / 900 GB/s
  // bidirectional = 12 / 18 NVLink4 links of 25 GB/s per direction.
  CHECK(c.gpu("H100-PCIe").bf16_TFLOPS == 756);
  CHECK(c.gpu("H100-PCIe").nvlink_GBps == 300);
  CHECK(c.gpu("H100-NVL").memory_bytes == doctest::Approx(94 * kGiB));
  CHECK(c.gpu("H100-NVL").nvlink_count == 12);
  CHECK(c.gpu("H200-NVL").nvlink_GBps == 450);
  CHECK(c.gpu("H200-NVL").power_W == 600);
  // RTX PRO 6000 Server: 4 PFLOPS sparse FP4 -> 2,000 dense; no NVLink; GDDR7 1,597 GB/s.
  const GpuSpec& rtx = c.gpu("RTX-PRO-6000-Server");
  CHECK(rtx.fp4_TFLOPS == 2000);
  CHECK(rtx.nvlink_type.empty());
  CHECK(rtx.hbm_GBps == 1597);
  CHECK(rtx.p2p);
  // AMD: 7 xGMI links per GPU, 128 GB/s bidirectional (64 per direction) on MI300X/MI325X,
  // 153.6 (76.8) on MI355X: 7 x 64 = 448, 7 x 76.8 = 537.6 GB/s per direction.
  CHECK(c.gpu("MI300X").nvlink_count == 7);
  CHECK(c.gpu("MI300X").nvlink_GBps == doctest::Approx(448));
  CHECK(c.gpu("MI325X").memory_bytes == doctest::Approx(256 * kGiB));
  CHECK(c.gpu("MI355X").nvlink_GBps == doctest::Approx(537.6));
  CHECK(c.gpu("MI355X").fp4_TFLOPS == doctest::Approx(10066.3));
  CHECK(c.link("xgmi-mi300").kind == LinkKind::NVLink);  // GPU-to-GPU, unlike the CPU's xgmi
  CHECK(c.link("xgmi").kind == LinkKind::CpuLink);
  // Ascend 910C = two 376-TFLOPS dies: 752; 2 x 7 UB links of 224 Gb/s = 14 x 28 = 392 GB/s.
  const GpuSpec& a910c = c.gpu("Ascend-910C");
  CHECK(a910c.bf16_TFLOPS == 752);
  CHECK(a910c.memory_bytes == doctest::Approx(128 * kGiB));
  CHECK(a910c.nvlink_count * c.link("ub").GBps == doctest::Approx(392));
  CHECK(a910c.fp8_TFLOPS == 0);
  CHECK(c.gpu("Ascend-910B").nvlink_GBps == 196);  // 7 HCCS x 28
  // Figures that are not public say so in their source.
  for (const char* name : {"Ascend-910B", "Ascend-910C"})
    CHECK(c.gpu(name).source.find("not public") != std::string::npos);
  CHECK(c.gpu("Ascend-910C").source.find("assumed 800 W") != std::string::npos);
  // NICs: ConnectX-8 800 Gb/s on PCIe Gen6 x16 (128 GB/s >= 100); Spectrum-X beside InfiniBand.
  CHECK(c.nic("ConnectX-8").GBps == 100);
  CHECK(c.nic("ConnectX-8").pcie_type == "pcie6");
  CHECK(c.link("spectrum-x-800g").kind == LinkKind::Network);
  CHECK(c.link("spectrum-x-800g").GBps == c.link("ib-xdr800").GBps);
  CHECK(c.nic("Pollara-400").port_link == "roce-400g");
}

TEST_CASE(
    "catalog identities: NVLink total = links x per-link bandwidth, every entry has a source") {
  const Catalog& c = Catalog::builtin();
  for (const GpuSpec& g : c.gpus()) {
    CAPTURE(g.name);
    CHECK_FALSE(g.source.empty());
    CHECK(g.memory_bytes > 0);
    CHECK(g.fp16_TFLOPS >= g.bf16_TFLOPS * 0.99);
    if (!g.nvlink_type.empty()) {
      CHECK(c.link(g.nvlink_type).kind == LinkKind::NVLink);
      CHECK(g.nvlink_count * c.link(g.nvlink_type).GBps == doctest::Approx(g.nvlink_GBps));
    } else {
      CHECK(g.nvlink_GBps == 0);
    }
    CHECK(c.link(g.pcie_type).kind == LinkKind::PCIe);
  }
  for (const LinkSpec& l : c.links()) {
    CAPTURE(l.name);
    CHECK_FALSE(l.source.empty());
    CHECK(l.efficiency > 0);
    CHECK(l.efficiency <= 1);
  }
  for (const NicSpec& n : c.nics()) {
    CAPTURE(n.name);
    // A NIC's line rate is its port's rate, and its PCIe host link can carry it (nominal).
    CHECK(c.link(n.port_link).GBps == doctest::Approx(n.GBps));
    CHECK(c.link(n.pcie_type).GBps * n.pcie_lanes >= n.GBps);
  }
}

TEST_CASE("link units: PCIe per lane, Gen5 x16 = 64 GB/s, NDR400 = 400 Gb/s / 8 = 50 GB/s") {
  const Catalog& c = Catalog::builtin();
  CHECK(c.link("pcie5").GBps * 16 == doctest::Approx(64));
  CHECK(c.link("pcie4").GBps * 16 == doctest::Approx(32));
  CHECK(c.link("ib-ndr400").GBps == doctest::Approx(50));
  CHECK(c.link("ib-ndr400").efficiency == doctest::Approx(48.0 / 50));  // nccl-tests #290/#319
  CHECK(c.link("nvlink4").GBps * 18 == doctest::Approx(450));
  CHECK(c.link("nvlink5").GBps * 18 == doctest::Approx(900));
  CHECK(c.link("upi").kind == LinkKind::CpuLink);
  CHECK(c.nic("ConnectX-7").GBps == 50);
  CHECK(c.nic("ConnectX-6").port_link == "ib-hdr");
}

TEST_CASE("lookups: find_* returns nullptr, the throwing form suggests close names") {
  const Catalog& c = Catalog::builtin();
  CHECK(c.find_gpu("H2O") == nullptr);
  CHECK(c.find_link("nvlink9") == nullptr);
  CHECK(c.find_nic("ConnectX-7") != nullptr);
  CHECK_THROWS_WITH_AS(c.gpu("H2O"), doctest::Contains("did you mean 'H20'"), UnknownNameError);
  CHECK_THROWS_WITH_AS(c.link("nvlnk4"), doctest::Contains("'nvlink4'"), UnknownNameError);
  CHECK_THROWS_WITH_AS(c.nic("ConnectX7"), doctest::Contains("'ConnectX-7'"), UnknownNameError);
}

TEST_CASE("Catalog::parse accepts a minimal catalog") {
  Catalog c = Catalog::parse(kGpus, kLinks, kNics, "cat");
  CHECK(c.gpu("G").memory_bytes == doctest::Approx(2 * kGiB));
  CHECK(c.link("pcie5").efficiency == 1.0);  // no efficiency given
  CHECK(c.link("nvlink4").efficiency == doctest::Approx(0.8));
}

TEST_CASE("Catalog::parse errors name the file and the JSON pointer") {
  const std::string bad_kind = replaced(kLinks, "\"pcie\"", "\"pci\"");
  CHECK(error_of(kGpus, bad_kind, kNics)
            .find("cat/links.json: /links/1/kind: unknown link kind 'pci'") == 0);
  const std::string neg = replaced(kGpus, "\"hbm_GBps\": 1", "\"hbm_GBps\": -1");
  CHECK(error_of(neg, kLinks, kNics)
            .find("cat/gpus.json: /gpus/0/hbm_GBps: must be 1 to 1000000 GB/s") == 0);
  const std::string dangling = replaced(kNics, "ib-ndr400", "ib-ndr4000");
  CHECK(error_of(kGpus, kLinks, dangling)
            .find("cat/nics.json: /nics/0/port_link: unknown link type") == 0);
  const std::string missing = replaced(kGpus, "\"source\": \"s\"", "\"x\": 1");
  CHECK(error_of(missing, kLinks, kNics) == "cat/gpus.json: /gpus/0/source: missing field");
  CHECK(error_of(kGpus, "{\"links\": [", kNics).find("cat/links.json: line 1") == 0);
}

TEST_CASE("GPU aliases: short names and the names tools print resolve to catalog entries") {
  const Catalog& c = Catalog::builtin();
  // Exact catalog names first; then aliases, ignoring case and repeated spaces.
  CHECK(c.gpu("H100").name == "H100-SXM");
  CHECK(c.gpu("NVIDIA H100 80GB HBM3").name == "H100-SXM");  // nvidia-smi --query-gpu=name
  CHECK(c.gpu("nvidia  h100 80gb hbm3 ").name == "H100-SXM");
  CHECK(c.gpu("NVIDIA H20").name == "H20");
  CHECK(c.gpu("NVIDIA A100-SXM4-80GB").name == "A100-SXM-80GB");
  CHECK(c.gpu("NVIDIA A100-SXM4-40GB").name == "A100-SXM-40GB");
  CHECK(c.gpu("NVIDIA H200").name == "H200-SXM");
  CHECK(c.gpu("NVIDIA H200 141GB HBM3e").name == "H200-SXM");
  CHECK(c.gpu("NVIDIA GeForce RTX 4090").name == "RTX-4090");
  CHECK(c.gpu("h20").name == "H20");  // the name itself, case-folded
  // A PCIe H100 is a different part (lower clocks, no NVSwitch): it has its own entry and never
  // becomes the SXM one; so do the NVL boards (nvidia-smi names, public outputs).
  CHECK(c.gpu("NVIDIA H100 PCIe").name == "H100-PCIe");
  CHECK(c.gpu("NVIDIA H100 NVL").name == "H100-NVL");
  CHECK(c.gpu("NVIDIA H200 NVL").name == "H200-NVL");
  CHECK(c.gpu("NVIDIA B300 SXM6 AC").name == "B300");
  CHECK(c.gpu("NVIDIA RTX PRO 6000 Blackwell Server Edition").name == "RTX-PRO-6000-Server");
  CHECK(c.gpu("AMD Instinct MI300X").name == "MI300X");
  CHECK(c.gpu("ascend 910c").name == "Ascend-910C");
  CHECK_THROWS_WITH_AS(c.gpu("NVIDIA H100 SXM4"), doctest::Contains("unknown GPU model"),
                       UnknownNameError);
}

TEST_CASE("Catalog::parse rejects an alias that another entry already owns") {
  const std::string two =
      replaced(kGpus, "\"source\": \"s\"}]}",
               "\"source\": \"s\", \"aliases\": [\"X\"]}, {\"name\": \"G2\", "
               "\"aliases\": [\"x\"], " +
                   std::string(kGpus).substr(std::string(kGpus).find("\"vendor_name\"")));
  CHECK(error_of(two, kLinks, kNics)
            .find("cat/gpus.json: /gpus/1/aliases: name 'x' already belongs to 'G'") == 0);
  const std::string bad =
      replaced(kGpus, "\"source\": \"s\"", "\"source\": \"s\", \"aliases\": [1]");
  CHECK(error_of(bad, kLinks, kNics).find("/gpus/0/aliases/0: an alias must be") !=
        std::string::npos);
}

TEST_CASE("assumed: an entry names its figures that are not public, and outputs say so") {
  const Catalog& c = Catalog::builtin();
  CHECK(assumed_figures_note(c.gpu("Ascend-910C")) ==
        "Ascend-910C: int8_TOPS, pcie_type, power_W not public (assumed; the catalog source says "
        "why)");
  CHECK(assumed_figures_note(c.gpu("H100-SXM")).empty());   // every figure published
  CHECK(c.gpu("RTX-PRO-6000-Server").assumed.size() == 4);  // dense rates derived from FP4
  const std::string with_assumed =
      replaced(kGpus, "\"power_W\": 1,", "\"power_W\": 1, \"assumed\": [\"power_W\"],");
  CHECK(Catalog::parse(with_assumed, kLinks, kNics, "cat").gpu("G").assumed ==
        std::vector<std::string>{"power_W"});
  CHECK(error_of(replaced(kGpus, "\"power_W\": 1,", "\"power_W\": 1, \"assumed\": [\"powr_W\"],"),
                 kLinks, kNics) ==
        "cat/gpus.json: /gpus/0/assumed/0: expected the name of one of this entry's figures");
}
