// TopologySummary: the figures `topoplan topo show` prints.
#include <algorithm>
#include <array>

#include "topoplan/route.hpp"

namespace topoplan {

namespace {
constexpr std::array kTypes{DeviceType::Gpu, DeviceType::NvSwitch, DeviceType::PcieSwitch,
                            DeviceType::Cpu, DeviceType::Nic,      DeviceType::NetSwitch};
}

TopologySummary summarize(const Router& router, bool with_bisection) {
  const Topology& t = router.topology();
  TopologySummary s;
  std::array<int, kTypes.size()> count{};
  for (std::size_t d = 0; d < t.device_count(); ++d) {
    const Device& dev = t.device(static_cast<int>(d));
    ++count[static_cast<std::size_t>(dev.type)];
    if (dev.type == DeviceType::NetSwitch && dev.tier >= 1) {
      if (s.switches_per_tier.size() < static_cast<std::size_t>(dev.tier))
        s.switches_per_tier.resize(static_cast<std::size_t>(dev.tier));
      ++s.switches_per_tier[static_cast<std::size_t>(dev.tier) - 1];
    }
  }
  for (std::size_t i = 0; i < kTypes.size(); ++i)
    if (count[i] > 0) s.devices.emplace_back(std::string(to_string(kTypes[i])), count[i]);
  s.gpus = static_cast<int>(t.gpus().size());
  s.nodes = t.node_count();
  if (t.gpus().empty()) return s;
  for (int g : t.gpus()) {
    const GpuSpec* spec = t.catalog().find_gpu(t.device(g).model);
    if (spec) s.gpu_memory_bytes += spec->memory_bytes;
  }
  const int first = t.gpus().front();
  s.gpu_model = t.device(first).model;
  // The NVLink domain never crosses the network, so only the first GPU's server is searched.
  s.nvlink_domain = 1;
  for (int g : t.gpus_of_node(std::max(0, t.device(first).node)))
    if (g != first && router.path(first, g).cls <= PathClass::NVB) ++s.nvlink_domain;
  s.nvlink_GBps = router.nvlink_domain_GBps(first);
  for (const Adjacent& a : t.neighbours(first))
    if (t.link(link_of(a.out)).kind == LinkKind::PCIe) s.pcie_GBps += t.bw_GBps(a.out);
  s.network_GBps = router.network_GBps(first);
  // NICs shared by several GPUs (PCIe servers: 2 NICs for 8 GPUs) split their rate.
  const int node = std::max(0, t.device(first).node);
  double ports = 0;
  for (int nic : t.nics_of_node(node)) ports += router.nic_GBps(nic);
  const std::size_t node_gpus = t.gpus_of_node(node).size();
  if (node_gpus > 0)
    s.network_share_GBps = std::min(s.network_GBps, ports / static_cast<double>(node_gpus));
  if (with_bisection) s.bisection_GBps = bisection_GBps(router);
  // With every GPU sending to the other half of the cluster, an oversubscribed fabric gives each
  // at most its share of the bisection (max-flow over the graph, so uplink ratios count).
  if (with_bisection && s.nodes > 1 && s.bisection_GBps > 0)
    s.network_share_GBps = std::min(s.network_share_GBps, s.bisection_GBps / (s.gpus / 2.0));
  return s;
}

}  // namespace topoplan
