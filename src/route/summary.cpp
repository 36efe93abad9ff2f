// TopologySummary: the figures `topoplan topo show` prints.
#include <algorithm>
#include <array>
#include <vector>

#include "route/bisection.hpp"
#include "topoplan/cluster_shape.hpp"
#include "topoplan/route.hpp"

namespace topoplan {

namespace {
constexpr std::array kTypes{DeviceType::Gpu, DeviceType::NvSwitch, DeviceType::PcieSwitch,
                            DeviceType::Cpu, DeviceType::Nic,      DeviceType::NetSwitch};

// GPUs of `first`'s server reachable at class NVL or NVB, itself included: NVLink hops only,
// through NVSwitches and at most one relay GPU (NCCL's NVB, the rule of path_search.hpp). One BFS
// over (device, relays used) instead of a path search per GPU, which was quadratic on a 20,000-GPU
// NVLink domain.
// GPUs without peer-to-peer (GeForce) talk through host memory (Router::path), never at NVL.
int nvlink_domain_size(const Topology& t, int first) {
  if (!t.gpu_spec(first).p2p) return 1;
  const int node = t.device(first).node;
  std::vector<std::array<char, 2>> seen(t.device_count(), {0, 0});
  std::vector<char> counted(t.device_count(), 0);
  std::vector<std::pair<int, int>> frontier{{first, 0}};
  seen[static_cast<std::size_t>(first)][0] = 1;
  counted[static_cast<std::size_t>(first)] = 1;
  int domain = 1;
  while (!frontier.empty()) {
    const auto [dev, relays] = frontier.back();
    frontier.pop_back();
    for (const Adjacent& a : t.neighbours(dev)) {
      if (t.link(link_of(a.out)).kind != LinkKind::NVLink) continue;
      const Device& to = t.device(a.device);
      if (to.node != node || a.device == first) continue;
      int next = relays;
      if (to.type == DeviceType::Gpu) {
        if (!counted[static_cast<std::size_t>(a.device)] && t.gpu_spec(a.device).p2p) ++domain;
        counted[static_cast<std::size_t>(a.device)] = 1;
        if (relays > 0) continue;  // a second relay GPU would be beyond NVB
        next = 1;
      }
      if (seen[static_cast<std::size_t>(a.device)][static_cast<std::size_t>(next)]) continue;
      seen[static_cast<std::size_t>(a.device)][static_cast<std::size_t>(next)] = 1;
      frontier.emplace_back(a.device, next);
    }
  }
  return domain;
}
// With every GPU sending to the other half of the cluster, an oversubscribed fabric gives each at
// most its share of the bisection (max-flow over the graph, so uplink ratios count).
void set_bisection(TopologySummary& s, double bisection_GBps) {
  s.bisection_GBps = bisection_GBps;
  if (s.nodes > 1 && s.bisection_GBps > 0)
    s.network_share_GBps = std::min(s.network_share_GBps, s.bisection_GBps / (s.gpus / 2.0));
}

}  // namespace

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
  s.nvlink_domain = nvlink_domain_size(t, first);
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
  if (with_bisection) set_bisection(s, bisection_GBps(router));
  return s;
}

TopologySummary summarize_cluster(const Topology& server, const ClusterOptions& o) {
  // One enumeration gives the links for the bisection and the counts (cluster_shape's checks).
  std::vector<route::FlowLink> links;
  const ClusterShape shape = for_each_cluster_link(server, o, [&](int a, int b, double bw) {
    links.push_back({a, b, bw});
  });
  // The per-GPU figures are the first GPU's: its server and its NIC's port (one fabric link to a
  // leaf) are the same in two servers as in any number of them.
  ClusterOptions pair_options = o;
  pair_options.nodes = 2;
  const Topology pair = make_cluster(server, pair_options);
  TopologySummary s = summarize(Router(pair), false);
  const auto nodes = static_cast<std::size_t>(o.nodes);
  std::array<std::size_t, kTypes.size()> count{};
  for (std::size_t d = 0; d < server.device_count(); ++d)
    count[static_cast<std::size_t>(server.device(static_cast<int>(d)).type)] += nodes;
  for (int n : shape.switches_per_tier)
    count[static_cast<std::size_t>(DeviceType::NetSwitch)] += static_cast<std::size_t>(n);
  s.devices.clear();
  for (std::size_t i = 0; i < kTypes.size(); ++i)
    if (count[i] > 0)
      s.devices.emplace_back(std::string(to_string(kTypes[i])), static_cast<int>(count[i]));
  s.switches_per_tier = shape.switches_per_tier;
  s.nodes = o.nodes;
  s.gpus = static_cast<int>(server.gpus().size() * nodes);
  // Each server GPU's catalog memory looked up once; summed GPU by GPU in rank order, as
  // summarize() does, so the double is the same.
  std::vector<double> memory;
  for (int g : server.gpus()) {
    const GpuSpec* spec = server.catalog().find_gpu(server.device(g).model);
    memory.push_back(spec ? spec->memory_bytes : 0.0);
  }
  s.gpu_memory_bytes = 0;
  std::vector<int> gpus;
  gpus.reserve(static_cast<std::size_t>(s.gpus));
  const int per_server = static_cast<int>(server.device_count());
  for (int k = 0; k < o.nodes; ++k)
    for (std::size_t i = 0; i < server.gpus().size(); ++i) {
      s.gpu_memory_bytes += memory[i];
      gpus.push_back(k * per_server + server.gpus()[i]);
    }
  if (gpus.empty()) return s;
  set_bisection(s, route::bisection_GBps(shape.devices, links, gpus));
  return s;
}

}  // namespace topoplan
