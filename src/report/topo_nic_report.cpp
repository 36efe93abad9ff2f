#include "report/topo_nic_report.hpp"

#include <algorithm>
#include <string>

#include "report/table.hpp"
#include "topoplan/topology.hpp"

namespace topoplan::report {

std::string smi_class(PathClass c, int nvlinks) {
  switch (c) {
    case PathClass::NVL:
    case PathClass::NVB:
      return nvlinks > 0 ? "NV" + std::to_string(nvlinks) : std::string(to_string(c));
    case PathClass::PHB:
      return "NODE";
    default:
      return std::string(to_string(c));
  }
}

int nvlink_count(const Topology& t, int a, int b) {
  int to_switch = 0;
  for (const Adjacent& n : t.neighbours(a)) {
    const Link& l = t.link(link_of(n.out));
    if (l.kind != LinkKind::NVLink) continue;
    if (n.device == b) return l.count;
    if (t.device(n.device).type == DeviceType::NvSwitch) to_switch += l.count;
  }
  return to_switch;
}

namespace {

// PCIe switches above `dev` (nearest first), then its CPU: walks PCIe links up through switches
// (nvidia-smi classifies by the PCIe tree, not by NCCL's PXN relays over NVLink).
std::vector<int> pcie_ancestors(const Topology& t, int dev) {
  std::vector<int> up;
  int at = dev;
  for (int guard = 0; guard < 16; ++guard) {
    int next = -1;
    for (const Adjacent& n : t.neighbours(at)) {
      const DeviceType type = t.device(n.device).type;
      const bool upward =
          type == DeviceType::Cpu ||
          (type == DeviceType::PcieSwitch && std::find(up.begin(), up.end(), n.device) == up.end());
      if (t.link(link_of(n.out)).kind == LinkKind::PCIe && upward && n.device != dev) {
        next = n.device;
        if (type == DeviceType::Cpu) break;
      }
    }
    if (next < 0) break;
    up.push_back(next);
    if (t.device(next).type == DeviceType::Cpu) break;
    at = next;
  }
  return up;
}

// PIX: the same first switch; PXB: a shared switch higher up; NODE: the same CPU; SYS: else.
std::string pcie_class(const Topology& t, int a, int b) {
  const std::vector<int> ua = pcie_ancestors(t, a), ub = pcie_ancestors(t, b);
  if (!ua.empty() && !ub.empty() && ua.front() == ub.front() &&
      t.device(ua.front()).type == DeviceType::PcieSwitch)
    return "PIX";
  for (int x : ua)
    if (std::find(ub.begin(), ub.end(), x) != ub.end())
      return t.device(x).type == DeviceType::Cpu ? "NODE" : "PXB";
  return "SYS";
}

}  // namespace

void print_smi_matrix(std::ostream& os, const Router& router, const std::vector<int>& gpus) {
  const Topology& t = router.topology();
  if (gpus.empty()) return;
  const int node = std::max(0, t.device(gpus.front()).node);
  const std::vector<int>& nics = t.nics_of_node(node);
  std::vector<std::string> head{""};
  for (int g : gpus) head.push_back(t.device(g).id);
  for (int n : nics) head.push_back(t.device(n).id);
  Table table(head);
  for (int a : gpus) {
    std::vector<std::string> row{t.device(a).id};
    for (int b : gpus)
      row.push_back(a == b ? "X" : smi_class(router.path(a, b).cls, nvlink_count(t, a, b)));
    for (int n : nics) row.push_back(pcie_class(t, a, n));
    table.add_row(row);
  }
  os << "\nnvidia-smi topo -m view (NV# = bonded NVLinks, PIX one PCIe switch, PXB several, NODE "
        "through the CPU's host bridges, SYS across CPUs; NICs of "
     << (node == 0 ? "the first server" : "its server") << ")\n";
  table.print(os, "  ");
}

}  // namespace topoplan::report
