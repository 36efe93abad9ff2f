// analyse_group: node layout, compute capability and path classes of a group of GPUs.
#include <algorithm>
#include <set>
#include <unordered_map>

#include "comm/pattern.hpp"
#include "topoplan/error.hpp"

namespace topoplan::comm {

namespace {
// NCCL's compute-capability index of its bandwidth tables (tuning.cc; reference/nccl-model.md
// 3.1): Volta 0 (cc < 80), Ampere 1, Hopper 2, Blackwell 3 (cc >= 100).
int arch_index(int sm) {
  return sm < 80 ? 0 : sm < 90 ? 1 : sm < 100 ? 2 : 3;
}
// NCCL's scale index `index2` of the same tables (tuning.cc, `nNodes <= 2 ? nNodes - 1 : 2`;
// reference/nccl-model.md 3.1): one node "N1", two "N2", more "N4".
int scale_index(int nodes) {
  return nodes <= 2 ? nodes - 1 : 2;
}

// Throws, for the first rank in group order that is one, on a rank that is not a GPU or that
// repeats an earlier rank. A sorted copy finds that all is well without a set node per rank.
void check_ranks(const Topology& t, const std::vector<int>& gpus) {
  std::vector<int> sorted(gpus);
  std::sort(sorted.begin(), sorted.end());
  const bool valid = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end() &&
                     std::all_of(gpus.begin(), gpus.end(), [&](int d) {
                       return d >= 0 && d < static_cast<int>(t.device_count()) &&
                              t.device(d).type == DeviceType::Gpu;
                     });
  if (valid) return;
  std::set<int> seen;
  for (int d : gpus) {
    if (d < 0 || d >= static_cast<int>(t.device_count()) || t.device(d).type != DeviceType::Gpu)
      throw InputError("collective: rank device " + std::to_string(d) + " is not a GPU");
    if (!seen.insert(d).second)
      throw InputError("collective: GPU " + t.device(d).id + " appears twice in the group");
  }
}

// !nvswitches_of(t, gpu).empty() without building the list.
bool has_nvswitch(const Topology& t, int gpu) {
  const auto& adj = t.neighbours(gpu);
  return std::any_of(adj.begin(), adj.end(), [&](const Adjacent& a) {
    return t.device(a.device).type == DeviceType::NvSwitch;
  });
}
}  // namespace

std::vector<std::pair<int, double>> nvswitches_of(const Topology& t, int gpu) {
  std::vector<std::pair<int, double>> out;
  double total = 0;
  for (const Adjacent& a : t.neighbours(gpu)) {
    if (t.device(a.device).type != DeviceType::NvSwitch) continue;
    const double bw = t.bw_GBps(a.out);
    out.emplace_back(a.device, bw);
    total += bw;
  }
  for (auto& [dev, share] : out) share = total > 0 ? share / total : 0;
  return out;
}

// Every ordered pair of `node` is one direct NVLink hop (a switchless mesh such as DGX-1's or an
// xGMI-style full mesh).
bool direct_nvlink_mesh(const Router& router, const std::vector<int>& node) {
  if (node.size() < 3) return false;
  const Topology& t = router.topology();
  for (int a : node)
    for (int b : node) {
      if (a == b) continue;
      const Path& p = router.path(a, b);
      if (p.hops.size() != 1 || t.link(link_of(p.hops.front())).kind != LinkKind::NVLink)
        return false;
    }
  return true;
}

GroupInfo analyse_group(const Router& router, const std::vector<int>& gpus, bool servers_alike) {
  const Topology& t = router.topology();
  GroupInfo g;
  g.gpus = gpus;
  g.n = static_cast<int>(gpus.size());
  if (gpus.empty()) throw InputError("collective: the group of ranks is empty");
  check_ranks(t, gpus);
  std::unordered_map<int, std::size_t> slot;  // server → index in by_node
  for (int d : gpus) {
    auto [it, fresh] = slot.try_emplace(t.device(d).node, g.by_node.size());
    if (fresh) g.by_node.emplace_back();
    g.by_node[it->second].push_back(d);
  }
  g.nodes = static_cast<int>(g.by_node.size());
  g.scale = scale_index(g.nodes);
  // The communicator's minimum cc picks the tables (NCCL takes the minimum over its ranks).
  g.min_sm = t.gpu_spec(gpus.front()).sm_version;
  int max_sm = g.min_sm;
  for (int d : gpus) {
    const int sm = t.gpu_spec(d).sm_version;
    g.min_sm = std::min(g.min_sm, sm);
    max_sm = std::max(max_sm, sm);
  }
  g.same_sm = g.min_sm == max_sm;
  g.arch = arch_index(g.min_sm);
  g.amd_cpu = router.amd_cpu_server(gpus.front());
  g.nvswitch = true;
  std::set<std::vector<int>> walked;  // slot sets already checked pair by pair
  for (const auto& node : g.by_node) {
    g.ppn = std::max(g.ppn, static_cast<int>(node.size()));
    g.min_ppn = g.min_ppn == 0 ? static_cast<int>(node.size())
                               : std::min(g.min_ppn, static_cast<int>(node.size()));
    g.nic_of.emplace_back();
    // One NVSwitch under every GPU of the server: every pair is GPU → NVSwitch → GPU, NVL,
    // without looking at n² pairs (a 20,000-GPU NVLink domain).
    std::vector<int> sole(node.size());
    for (std::size_t i = 0; i < node.size(); ++i) sole[i] = router.sole_nvswitch(node[i]);
    const bool one_switch =
        node.size() > 1 && sole[0] >= 0 &&
        std::all_of(sole.begin(), sole.end(), [&](int s) { return s == sole[0]; });
    if (one_switch) g.intra_class = std::max(g.intra_class, PathClass::NVL);
    // Every pair where the server's slot set is new (or servers differ); elsewhere the pairs
    // repeat a walked server's classes, so ring neighbours suffice and 16k-GPU groups stay cheap.
    std::vector<int> slots;
    for (int d : node) slots.push_back(router.server_slot(d));
    const bool all_pairs = !servers_alike || walked.insert(std::move(slots)).second;
    for (std::size_t i = 0; i < node.size(); ++i) {
      if (!has_nvswitch(t, node[i])) g.nvswitch = false;
      const int sw = sole[i];
      for (std::size_t j = 0; j < node.size() && !one_switch; ++j) {
        if (i == j || (!all_pairs && j != (i + 1) % node.size())) continue;
        if (sw >= 0 && sole[j] == sw) {  // GPU → NVSwitch → GPU: NVL
          g.intra_class = std::max(g.intra_class, PathClass::NVL);
          continue;
        }
        const Path& p = router.transient_path(node[i], node[j]);
        if (p.cls == PathClass::DIS)
          throw InputError("collective: no path from " + t.device(node[i]).id + " to " +
                           t.device(node[j]).id);
        g.intra_class = std::max(g.intra_class, p.cls);
      }
      if (g.by_node.size() > 1) {
        const int nic = router.nic_of_gpu(node[i]);
        if (nic < 0)
          throw InputError("collective: " + t.device(node[i]).id +
                           " has no NIC but the group spans several servers");
        g.nic_of.back().push_back(nic);
        if (all_pairs) g.net_class = std::max(g.net_class, router.transient_path(node[i], nic).cls);
      }
    }
    std::vector<int> nics = g.nic_of.back();  // the distinct NICs are the channels
    std::sort(nics.begin(), nics.end());
    const auto distinct = std::unique(nics.begin(), nics.end()) - nics.begin();
    g.channels = std::max(g.channels, static_cast<int>(distinct));
  }
  g.direct_mesh = g.nodes == 1 && !g.nvswitch && direct_nvlink_mesh(router, g.by_node[0]);
  return g;
}

}  // namespace topoplan::comm
