// What a design needs, counted from its topology graph: switches per fabric level (the
// vertices' `tier`), cables per level (the fabric links' bundled `count`), one transceiver per
// cable end, NICs, and the NVLink switch trays of rack-scale systems.
#include <algorithm>

#include "topoplan/bom.hpp"
#include "topoplan/topology.hpp"

namespace topoplan::report {

namespace {

const char* const kSwitchName[] = {"", "leaf", "spine", "core", "supercore"};
const char* const kCableName[] = {"", "nic-leaf", "leaf-spine", "spine-core", "core-supercore"};
constexpr int kMaxLevel = 4;

// Fabric level of a link end: a network switch's tier, 0 for a NIC (or anything else).
int level_of(const Device& d) {
  return d.type == DeviceType::NetSwitch ? std::clamp(d.tier, 1, kMaxLevel) : 0;
}

BomLevel& level(BomCounts& c, int lv) {
  while (static_cast<int>(c.levels.size()) < lv) {
    const int n = static_cast<int>(c.levels.size()) + 1;
    c.levels.push_back({n, kSwitchName[n], kCableName[n], "", 0, 0, 0, 0});
  }
  return c.levels[static_cast<std::size_t>(lv - 1)];
}

void count_fabric_link(const Topology& t, const Link& l, BomCounts& c) {
  const int la = level_of(t.device(l.a)), lb = level_of(t.device(l.b));
  const int upper = std::max(la, lb);
  if (upper < 1) return;  // NIC to NIC: no switch between them
  BomLevel& lv = level(c, upper);
  lv.link = l.type;
  lv.cables += l.count;
  lv.optics += 2LL * l.count;  // one transceiver at each end of each cable
  if (la > 0) level(c, la).switch_ports_used += l.count;
  if (lb > 0) level(c, lb).switch_ports_used += l.count;
}

// NVLinks from GPUs into an NVLink switch: the ports rack-scale switch trays must provide.
long long nvlink_switch_ports(const Topology& t) {
  long long ports = 0;
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    if (l.kind != LinkKind::NVLink) continue;
    const DeviceType a = t.device(l.a).type, b = t.device(l.b).type;
    if ((a == DeviceType::Gpu && b == DeviceType::NvSwitch) ||
        (a == DeviceType::NvSwitch && b == DeviceType::Gpu))
      ports += l.count;
  }
  return ports;
}

}  // namespace

long long BomCounts::switches() const {
  long long n = 0;
  for (const BomLevel& l : levels) n += l.switches;
  return n;
}
long long BomCounts::cables() const {
  long long n = 0;
  for (const BomLevel& l : levels) n += l.cables;
  return n;
}
long long BomCounts::optics() const {
  long long n = 0;
  for (const BomLevel& l : levels) n += l.optics;
  return n;
}

BomCounts count_bom(const Topology& t, const PriceTable& prices) {
  BomCounts c;
  c.servers = t.node_count();
  c.gpus = static_cast<int>(t.gpus().size());
  if (!t.gpus().empty()) c.gpu_model = t.device(t.gpus().front()).model;
  for (std::size_t i = 0; i < t.device_count(); ++i) {
    const Device& d = t.device(static_cast<int>(i));
    if (d.type == DeviceType::Nic && c.nics++ == 0) c.nic_model = d.model;
    if (d.type == DeviceType::NetSwitch) ++level(c, level_of(d)).switches;
  }
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    if (l.kind == LinkKind::Network) count_fabric_link(t, l, c);
  }
  if (const BomFigure* tray = prices.find("nvlink_switch_tray", c.gpu_model);
      tray && tray->ports > 0) {
    c.nvlink_tray_ports = nvlink_switch_ports(t);
    c.nvlink_switch_trays = (c.nvlink_tray_ports + tray->ports - 1) / tray->ports;
  }
  return c;
}

}  // namespace topoplan::report
