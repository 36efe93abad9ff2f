// Topology → NCCL topology XML (docs/importers.md). The PCIe tree is a depth-first walk from each
// CPU over PCIe links; bus ids are synthetic (domain:bus:00.0 in walk order); NVLinks to the
// NVSwitch vertex use NCCL's "invisible switch" target with the NVSwitch class.
#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

#include "io/import_common.hpp"
#include "io/xml_tree.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology_import.hpp"

namespace topoplan {
namespace {

using detail::xml_escape;

// CPU identity for <cpu>, from the model text the importer and the built-in servers write, else
// from the inter-socket link type (the inverse of detail::cpu_for).
std::string cpu_attributes(const Topology& t, int cpu) {
  const std::string& m = t.device(cpu).model;
  std::string link;
  for (const Adjacent& a : t.neighbours(cpu))
    if (t.link(link_of(a.out)).kind == LinkKind::CpuLink) link = t.link(link_of(a.out)).type;
  auto has = [&](const char* s) { return m.find(s) != std::string::npos; };
  const char* intel = R"(arch="x86_64" vendor="GenuineIntel" familyid="6" modelid=")";
  if (has("Grace") || has("Arm")) return R"(arch="arm64")";
  if (has("AMD") || link == "xgmi")
    return has("Milan") || has("Genoa")
               ? R"(arch="x86_64" vendor="AuthenticAMD" familyid="25" modelid="1")"
               : R"(arch="x86_64" vendor="AuthenticAMD" familyid="23" modelid="49")";
  if (has("Emerald") || link == "upi-emr") return std::string(intel) + "207\"";
  if (has("Skylake") || link == "qpi-skl") return std::string(intel) + "85\"";
  if (has("Sapphire") || link == "upi") return std::string(intel) + "143\"";
  return R"(arch="x86_64")";
}

std::string pcie_attributes(const Link& l) {
  const double rate = detail::pcie_rate_of(l.type);
  char buf[64];
  std::snprintf(buf, sizeof buf, R"(link_speed="%.1f GT/s PCIe" link_width="%d")", rate, l.count);
  return buf;
}

class Exporter {
 public:
  explicit Exporter(const Topology& t) : t_(t), parent_link_(t.device_count(), -1) {}

  std::string run() {
    out_ << "<system version=\"1\">\n";
    for (std::size_t d = 0; d < t_.device_count(); ++d) {
      if (t_.device(static_cast<int>(d)).type != DeviceType::Cpu) continue;
      const int cpu = static_cast<int>(d);
      out_ << "  <cpu numaid=\"" << t_.device(cpu).local_index << "\" " << cpu_attributes(t_, cpu)
           << ">\n";
      seen_[cpu] = true;
      children(cpu, 2);
      for (int g : orphans_of(cpu)) endpoint(g, -1, 2);
      out_ << "  </cpu>\n";
    }
    out_ << "</system>\n";
    return out_.str();
  }

 private:
  const Topology& t_;
  std::vector<int> parent_link_;
  std::map<int, bool> seen_;
  std::map<int, std::string> bus_;
  std::ostringstream out_;
  int next_bus_ = 0x10;

  std::string busid(int device) {
    auto it = bus_.find(device);
    if (it != bus_.end()) return it->second;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04x:%02x:00.0", next_bus_ / 256, next_bus_ % 256);
    ++next_bus_;
    return bus_[device] = buf;
  }
  // GPUs with no PCIe path to any CPU (Grace-attached over C2C only) go under that CPU.
  std::vector<int> orphans_of(int cpu) {
    std::vector<int> out;
    for (const Adjacent& a : t_.neighbours(cpu))
      if (t_.link(link_of(a.out)).kind == LinkKind::C2C && !seen_[a.device]) {
        seen_[a.device] = true;
        out.push_back(a.device);
      }
    return out;
  }
  void children(int device, int depth) {
    for (const Adjacent& a : t_.neighbours(device)) {
      const Link& l = t_.link(link_of(a.out));
      const DeviceType type = t_.device(a.device).type;
      if (l.kind != LinkKind::PCIe || seen_[a.device] || type == DeviceType::Cpu) continue;
      seen_[a.device] = true;
      if (type == DeviceType::PcieSwitch) {
        indent(depth) << "<pci busid=\"" << busid(a.device) << "\" class=\"0x060400\" "
                      << pcie_attributes(l) << ">\n";
        children(a.device, depth + 1);
        indent(depth) << "</pci>\n";
      } else {
        endpoint(a.device, link_of(a.out), depth);
      }
    }
  }
  std::ostream& indent(int depth) {
    return out_ << std::string(static_cast<std::size_t>(depth) * 2, ' ');
  }
  void endpoint(int device, int link, int depth) {
    const Device& d = t_.device(device);
    std::string attrs = link >= 0 ? " " + pcie_attributes(t_.link(link)) : "";
    if (d.type == DeviceType::Gpu) {
      gpu(device, attrs, depth);
    } else if (d.type == DeviceType::Nic) {
      nic(device, attrs, depth);
    }
  }
  void gpu(int device, const std::string& pcie, int depth);
  void nic(int device, const std::string& pcie, int depth);
};

void Exporter::gpu(int device, const std::string& pcie, int depth) {
  const GpuSpec& spec = t_.gpu_spec(device);
  const auto& gpus = t_.gpus();
  const int dev = static_cast<int>(std::find(gpus.begin(), gpus.end(), device) - gpus.begin());
  std::string id;
  if (!spec.pci_device_ids.empty()) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%04x", spec.pci_device_ids.front());
    id = std::string(" device=\"") + buf + "\"";
  }
  indent(depth) << "<pci busid=\"" << busid(device) << "\" class=\"0x030200\" vendor=\"0x10de\""
                << id << pcie << ">\n";
  indent(depth + 1) << "<gpu dev=\"" << dev << "\" sm=\"" << spec.sm_version << "\" rank=\"" << dev
                    << "\" gdr=\"1\">\n";
  for (const Adjacent& a : t_.neighbours(device)) {
    const Link& l = t_.link(link_of(a.out));
    const DeviceType peer = t_.device(a.device).type;
    if (l.kind == LinkKind::NVLink && peer == DeviceType::NvSwitch) {
      indent(depth + 2) << "<nvlink target=\"fffffff:ffff:ff\" count=\"" << l.count
                        << "\" tclass=\"0x068000\"/>\n";
    } else if (l.kind == LinkKind::NVLink && peer == DeviceType::Gpu) {
      indent(depth + 2) << "<nvlink target=\"" << busid(a.device) << "\" count=\"" << l.count
                        << "\" tclass=\"0x030200\"/>\n";
    } else if (l.kind == LinkKind::C2C) {
      indent(depth + 2) << "<c2c bw=\"" << l.bw_GBps * 1000 / l.count << "\" count=\"" << l.count
                        << "\"/>\n";
    }
  }
  indent(depth + 1) << "</gpu>\n";
  indent(depth) << "</pci>\n";
}

void Exporter::nic(int device, const std::string& pcie, int depth) {
  const Device& d = t_.device(device);
  const NicSpec* spec = Catalog::builtin().find_nic(d.model);
  indent(depth) << "<pci busid=\"" << busid(device) << "\" class=\"0x020700\"" << pcie << ">\n";
  indent(depth + 1) << "<nic>\n";
  indent(depth + 2) << "<net name=\"mlx5_" << d.local_index << "\" dev=\"" << d.local_index << "\"";
  if (spec) out_ << " speed=\"" << spec->GBps * 8000 << "\"";  // Mb/s = GB/s × 8000
  out_ << " port=\"1\" latency=\"0\" gdr=\"1\" maxconn=\"131072\"/>\n";
  indent(depth + 1) << "</nic>\n";
  indent(depth) << "</pci>\n";
}

}  // namespace

std::string export_nccl_topology_xml(const Topology& topology) {
  if (topology.node_count() > 1)
    throw InputError(topology.name, "",
                     "has " + std::to_string(topology.node_count()) +
                         " servers; NCCL topology XML describes one server (export the server)");
  return Exporter(topology).run();
}

}  // namespace topoplan
