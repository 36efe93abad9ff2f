// NCCL topology XML → Topology (docs/importers.md). The tree is read in one walk into records
// (CPUs, PCIe switches, GPUs, NICs with their parent record and PCIe link); devices are then
// created in a fixed order (GPUs by CUDA index, NVSwitch, switches, NICs by net index, CPUs) so
// that ids and ranks match what NCCL and nvidia-smi call them.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "io/import_common.hpp"
#include "io/xml_tree.hpp"
#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/topology_import.hpp"

namespace topoplan {
namespace {

using detail::XmlElement;

// Bounds on what one element may claim (docs/limits.md): PCIe links are at most x32; a GPU has at
// most 18 NVLinks (B200, GB200), so 64 in one <nvlink>/<c2c> or in total per GPU is a bad file.
constexpr int kMaxPcieLanes = 32;
constexpr int kMaxNvlinks = 64;

struct Pcie {
  std::string type;  // empty: not given in the file (filled from the child or the catalog)
  int lanes = 16;
  double bw_GBps = 0;
};

struct Record {
  DeviceType type = DeviceType::Cpu;
  int parent = -1;  // record index; -1 for CPUs
  int line = 0;
  int order = 0;  // CUDA index (gpu dev) or net dev; appearance order otherwise
  std::string model, busid;
  Pcie pcie;
  int ports = 1;                    // NIC: <net> ports sharing the PCIe link
  const XmlElement* gpu = nullptr;  // the <gpu> element
  std::string bridge_id;            // "vendor:device" of a bridge, to merge the ports of a switch
  int device = -1;                  // Topology index once created
};

class Importer {
 public:
  Importer(const std::string& source, const ImportOptions& opt) : source_(source), opt_(opt) {}

  ImportedTopology run(const XmlElement& root);

 private:
  const std::string& source_;
  const ImportOptions& opt_;
  std::vector<Record> recs_;
  std::vector<std::string> notes_;
  detail::CpuChoice cpu_;
  bool cpu_set_ = false;
  int cpus_ = 0;

  [[noreturn]] void fail(const XmlElement& e, const std::string& what) const {
    throw InputError(source_, "line " + std::to_string(e.line), what);
  }
  void note(int line, const std::string& what) {
    notes_.push_back(source_ + ": line " + std::to_string(line) + ": " + what);
  }
  void note(const XmlElement& e, const std::string& what) { note(e.line, what); }
  static const std::vector<XmlElement>& gpu_children(const Record& r) {
    static const std::vector<XmlElement> kNone;
    return r.gpu ? r.gpu->children : kNone;
  }
  std::string attr(const XmlElement& e, const char* key) const {
    const std::string* v = e.attribute(key);
    return v ? *v : "";
  }
  int int_attr(const XmlElement& e, const char* key, int fallback, int base = 10) const;
  // An integer attribute that must lie in [lo, hi] (fallback when absent).
  int bounded_attr(const XmlElement& e, const char* key, int fallback, int lo, int hi) const;
  double real_attr(const XmlElement& e, const char* key) const;

  Pcie pcie_of(const XmlElement& pci);
  void walk_cpu(const XmlElement& cpu);
  void walk_children(const XmlElement& e, int parent);
  void walk_pci(const XmlElement& pci, int parent);
  void add_nic(const XmlElement& nic, int parent, const Pcie& pcie);
  std::string gpu_model(const XmlElement& pci) const;
  void resolve_pcie();
  void add_nvlinks(Topology& t, int nvswitch);
  int cpu_of(int rec) const;
  void build_links(Topology& t, int nvswitch);
};

int Importer::int_attr(const XmlElement& e, const char* key, int fallback, int base) const {
  const std::string v = attr(e, key);
  if (v.empty()) return fallback;
  std::size_t used = 0;
  try {
    const int x = std::stoi(v, &used, base);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  fail(e, "<" + e.name + "> attribute " + key + "=\"" + v + "\" is not a number");
}

int Importer::bounded_attr(const XmlElement& e, const char* key, int fallback, int lo,
                           int hi) const {
  const int x = int_attr(e, key, fallback);
  if (x < lo || x > hi)
    fail(e, "<" + e.name + "> attribute " + key + "=\"" + attr(e, key) + "\" must be " +
                std::to_string(lo) + " to " + std::to_string(hi));
  return x;
}

double Importer::real_attr(const XmlElement& e, const char* key) const {
  const std::string v = attr(e, key);
  std::size_t used = 0;
  try {
    const double x = std::stod(v, &used);
    if (used > 0) return x;
  } catch (const std::exception&) {
  }
  fail(e, "<" + e.name + "> attribute " + key + "=\"" + v + "\" is not a number");
}

// link_speed "32.0 GT/s PCIe" or "16 GT/s" and link_width → a catalog PCIe type.
Pcie Importer::pcie_of(const XmlElement& pci) {
  Pcie p;
  p.lanes = bounded_attr(pci, "link_width", 16, 0, kMaxPcieLanes);
  if (p.lanes == 0) p.lanes = 16;  // NCCL: width 0 means x16
  if (attr(pci, "link_speed").empty()) return p;
  const auto choice = detail::pcie_for_rate(real_attr(pci, "link_speed"), p.lanes);
  if (choice.type.empty()) {
    note(pci,
         "link_speed \"" + attr(pci, "link_speed") + "\" is no PCIe rate; Gen3 assumed (as NCCL)");
    p.type = "pcie3";
    return p;
  }
  p.type = choice.type;
  p.bw_GBps = choice.bw_GBps;
  return p;
}

std::string Importer::gpu_model(const XmlElement& pci) const {
  if (!opt_.gpu_model.empty()) return Catalog::builtin().gpu(opt_.gpu_model).name;
  const int device = int_attr(pci, "device", -1, 16);
  if (const GpuSpec* g = Catalog::builtin().find_gpu_by_pci_id(device)) return g->name;
  fail(pci, "cannot tell the GPU model from PCI device " +
                (device < 0 ? std::string("(none given)") : attr(pci, "device")) +
                "; pass --gpu MODEL (a catalog name such as H100-SXM)");
}

void Importer::walk_cpu(const XmlElement& cpu) {
  if (++cpus_ > limits::kMaxImportCpus)
    fail(cpu, "more than " + std::to_string(limits::kMaxImportCpus) +
                  " <cpu> elements (CPU sockets / NUMA nodes) in one server");
  const auto choice = detail::cpu_for(attr(cpu, "arch"), attr(cpu, "vendor"),
                                      int_attr(cpu, "familyid", -1), int_attr(cpu, "modelid", -1));
  if (!choice.note.empty()) note(cpu, choice.note);
  if (!cpu_set_) cpu_ = choice;
  cpu_set_ = true;
  Record r;
  r.type = DeviceType::Cpu;
  r.line = cpu.line;
  r.model = choice.model;
  recs_.push_back(r);
  walk_children(cpu, static_cast<int>(recs_.size()) - 1);
}

void Importer::walk_children(const XmlElement& e, int parent) {
  for (const XmlElement& c : e.children) {
    if (c.name == "pci") {
      walk_pci(c, parent);
    } else if (c.name == "nic") {  // a NIC without a PCI path (directly under a CPU)
      add_nic(c, parent, Pcie{});
    } else if (c.name != "pcilink") {
      note(c, "<" + c.name + "> inside <" + e.name + "> ignored");
    }
  }
}

void Importer::walk_pci(const XmlElement& pci, int parent) {
  const int cls = int_attr(pci, "class", -1, 16);
  const Pcie pcie = pcie_of(pci);
  const XmlElement* gpu = nullptr;
  const XmlElement* nic = nullptr;
  for (const XmlElement& c : pci.children) {
    if (c.name == "gpu") gpu = &c;
    if (c.name == "nic") nic = &c;
  }
  if (gpu) {
    Record r;
    r.type = DeviceType::Gpu;
    r.parent = parent;
    r.line = pci.line;
    r.order = int_attr(*gpu, "dev", 1000 + static_cast<int>(recs_.size()));
    r.model = gpu_model(pci);
    r.busid = attr(pci, "busid");
    r.pcie = pcie;
    r.gpu = gpu;
    recs_.push_back(r);
  } else if (nic) {
    add_nic(*nic, parent, pcie);
  } else if ((cls >> 8) == 0x0604) {  // PCI-to-PCI bridge: a switch port or a host bridge port
    const std::string id = attr(pci, "vendor") + ":" + attr(pci, "device");
    const bool same_switch =
        parent >= 0 && recs_[static_cast<std::size_t>(parent)].type == DeviceType::PcieSwitch &&
        id.size() > 1 && recs_[static_cast<std::size_t>(parent)].bridge_id == id;
    if (same_switch) {  // a downstream port of its parent switch: one switch vertex
      walk_children(pci, parent);
      return;
    }
    Record r;
    r.type = DeviceType::PcieSwitch;
    r.parent = parent;
    r.line = pci.line;
    r.busid = attr(pci, "busid");
    r.pcie = pcie;
    r.bridge_id = id.size() > 1 ? id : "";
    r.model = "PCIe switch";
    recs_.push_back(r);
    walk_children(pci, static_cast<int>(recs_.size()) - 1);
  } else if ((cls >> 8) != 0x0680) {  // NVSwitch PCI functions are reached through <nvlink>
    note(pci, "PCI device " + attr(pci, "busid") + " (class " + attr(pci, "class") + ") ignored");
  }
}

void Importer::add_nic(const XmlElement& nic, int parent, const Pcie& pcie) {
  std::vector<const XmlElement*> nets;
  for (const XmlElement& c : nic.children)
    if (c.name == "net") nets.push_back(&c);
  if (nets.empty()) {
    note(nic, "<nic> without <net> ignored");
    return;
  }
  for (const XmlElement* net : nets) {
    Record r;
    r.type = DeviceType::Nic;
    r.parent = parent;
    r.line = net->line;
    r.order = int_attr(*net, "dev", 1000 + static_cast<int>(recs_.size()));
    r.pcie = pcie;
    r.ports = static_cast<int>(nets.size());
    r.busid = attr(*net, "name");
    const double GBps = attr(*net, "speed").empty() ? 0 : real_attr(*net, "speed") / 8000;  // Mb/s
    r.model = opt_.nic_model.empty() ? detail::nic_for_speed(GBps) : opt_.nic_model;
    if (r.model.empty())
      note(*net, "no catalog NIC runs at speed=\"" + attr(*net, "speed") +
                     "\" Mb/s; NIC model left empty");
    if (nets.size() > 1 && net == nets.front())
      note(nic, std::to_string(nets.size()) + "-port NIC: its ports share one PCIe link");
    recs_.push_back(r);
  }
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Missing PCIe attributes: an endpoint takes its catalog host interface, a switch the fastest
// link below it (children come after their parent in recs_, so a reverse pass sees them first
// and hands each its parent's fastest child: one pass, not a scan of every record per switch).
void Importer::resolve_pcie() {
  const Catalog& cat = Catalog::builtin();
  std::vector<std::string> fastest_child(recs_.size());
  for (std::size_t i = recs_.size(); i-- > 0;) {
    Record& r = recs_[i];
    if (r.type == DeviceType::Cpu) continue;
    if (r.pcie.type.empty()) {
      if (r.type == DeviceType::Gpu) {
        r.pcie.type = cat.gpu(r.model).pcie_type;
        r.pcie.lanes = cat.gpu(r.model).pcie_lanes;
      } else if (r.type == DeviceType::Nic) {
        const NicSpec* n = cat.find_nic(r.model);
        r.pcie.type = n ? n->pcie_type : "pcie4";
        r.pcie.lanes = n ? n->pcie_lanes : 16;
      } else {
        r.pcie.type = fastest_child[i].empty() ? "pcie4" : fastest_child[i];
      }
      note(r.line, "no link_speed/link_width: " + r.pcie.type + " x" +
                       std::to_string(r.pcie.lanes) + " assumed for " +
                       std::string(to_string(r.type)) + " " + r.busid);
    }
    std::string& best = fastest_child[static_cast<std::size_t>(r.parent)];
    if (detail::pcie_rate_of(r.pcie.type) > detail::pcie_rate_of(best)) best = r.pcie.type;
  }
}

void Importer::add_nvlinks(Topology& t, int nvswitch) {
  const Catalog& cat = Catalog::builtin();
  std::map<std::string, int> gpu_by_bus;
  for (const Record& r : recs_)
    if (r.type == DeviceType::Gpu) gpu_by_bus[lower(r.busid)] = r.device;
  std::map<std::pair<int, int>, bool> done;
  for (int g : t.gpus()) {
    const Record& r =
        *std::find_if(recs_.begin(), recs_.end(), [&](const Record& x) { return x.device == g; });
    const std::string& type = cat.gpu(r.model).nvlink_type;
    int to_switch = 0;
    for (const XmlElement& l : r.gpu->children) {
      if (l.name != "nvlink") continue;
      const int count = bounded_attr(l, "count", 1, 1, kMaxNvlinks);
      const int tclass = int_attr(l, "tclass", 0, 16);
      if (type.empty())
        fail(l, "<nvlink> on a " + r.model + ", which has no NVLink in the catalog");
      if ((tclass >> 8) == 0x0680) {
        to_switch += count;  // at most kMaxNvlinks more than the bound: no overflow
        if (to_switch > kMaxNvlinks)
          fail(l,
               "more than " + std::to_string(kMaxNvlinks) + " NVLinks from one GPU to NVSwitches");
        continue;
      }
      auto peer = gpu_by_bus.find(lower(attr(l, "target")));
      if ((tclass >> 16) != 0x03 || peer == gpu_by_bus.end()) {
        note(l, "<nvlink target=\"" + attr(l, "target") + "\"> is not a GPU in this file; ignored");
        continue;
      }
      const auto key = std::minmax(g, peer->second);
      if (!done[key]) detail::add_catalog_link(t, g, peer->second, type, count);
      done[key] = true;
    }
    if (to_switch > 0) detail::add_catalog_link(t, g, nvswitch, type, to_switch);
  }
}

int Importer::cpu_of(int rec) const {
  while (recs_[static_cast<std::size_t>(rec)].parent >= 0)
    rec = recs_[static_cast<std::size_t>(rec)].parent;
  return recs_[static_cast<std::size_t>(rec)].device;
}

void Importer::build_links(Topology& t, int nvswitch) {
  resolve_pcie();
  add_nvlinks(t, nvswitch);
  for (std::size_t i = 0; i < recs_.size(); ++i) {  // C2C: GPU ↔ its CPU (Grace)
    for (const XmlElement& c : gpu_children(recs_[i])) {
      if (c.name != "c2c") continue;
      const int count = bounded_attr(c, "count", 1, 1, kMaxNvlinks);
      const double bw_GBps = real_attr(c, "bw") * count / 1000;  // bw: MB/s per link (NVML)
      detail::add_catalog_link(t, recs_[i].device, cpu_of(static_cast<int>(i)), "nvlink-c2c", count,
                               bw_GBps);
    }
  }
  for (DeviceType type : {DeviceType::Gpu, DeviceType::Nic, DeviceType::PcieSwitch}) {
    std::vector<const Record*> order;
    for (const Record& r : recs_)
      if (r.type == type) order.push_back(&r);
    std::sort(order.begin(), order.end(),
              [](const Record* a, const Record* b) { return a->device < b->device; });
    for (const Record* r : order) {
      const Record& parent = recs_[static_cast<std::size_t>(r->parent)];
      const double full = r->pcie.bw_GBps > 0
                              ? r->pcie.bw_GBps
                              : r->pcie.lanes * Catalog::builtin().link(r->pcie.type).GBps;
      detail::add_catalog_link(t, r->device, parent.device, r->pcie.type, r->pcie.lanes,
                               r->ports > 1 || r->pcie.bw_GBps > 0 ? full / r->ports : 0);
    }
  }
  std::vector<int> cpus;
  for (const Record& r : recs_)
    if (r.type == DeviceType::Cpu) cpus.push_back(r.device);
  std::sort(cpus.begin(), cpus.end());
  detail::connect_cpus(t, cpus, cpu_);
}

ImportedTopology Importer::run(const XmlElement& root) {
  if (root.name != "system") fail(root, "root element is <" + root.name + ">, expected <system>");
  const std::string version = attr(root, "version");
  if (version.empty())
    note(root, "<system> has no version; NCCL's version 1 assumed");
  else if (version != "1")
    fail(root, "<system version=\"" + version + "\">: only version 1 is known");
  for (const XmlElement& c : root.children) {
    if (c.name == "cpu")
      walk_cpu(c);
    else
      note(c, "<" + c.name + "> inside <system> ignored");
  }
  Topology t;
  t.name = detail::imported_name(opt_.name, source_);
  t.description = detail::imported_description("NCCL topology XML", source_);
  auto by_order = [&](DeviceType type) {
    std::vector<int> ids;
    for (std::size_t i = 0; i < recs_.size(); ++i)
      if (recs_[i].type == type) ids.push_back(static_cast<int>(i));
    std::stable_sort(ids.begin(), ids.end(), [&](int a, int b) {
      return recs_[static_cast<std::size_t>(a)].order < recs_[static_cast<std::size_t>(b)].order;
    });
    return ids;
  };
  const char* prefix[] = {"gpu", "", "psw", "cpu", "nic"};
  int nvswitch = -1;
  for (DeviceType type : {DeviceType::Gpu, DeviceType::NvSwitch, DeviceType::PcieSwitch,
                          DeviceType::Nic, DeviceType::Cpu}) {
    if (type == DeviceType::NvSwitch) {
      for (const Record& r : recs_)
        for (const XmlElement& l : gpu_children(r))
          if (nvswitch < 0 && l.name == "nvlink" && (int_attr(l, "tclass", 0, 16) >> 8) == 0x0680)
            nvswitch = detail::add_server_device(t, DeviceType::NvSwitch, "nvswitch", "NVSwitch");
      continue;
    }
    int k = 0;
    for (int i : by_order(type)) {
      Record& r = recs_[static_cast<std::size_t>(i)];
      r.device = detail::add_server_device(
          t, type, prefix[static_cast<int>(type)] + std::to_string(k++), r.model);
    }
  }
  build_links(t, nvswitch);
  return {std::move(t), std::move(notes_)};
}

}  // namespace

ImportedTopology import_nccl_topology_xml(const std::string& text, const std::string& source,
                                          const ImportOptions& options) {
  const detail::XmlElement root = detail::parse_xml(text, source);
  return Importer(source, options).run(root);
}

}  // namespace topoplan
