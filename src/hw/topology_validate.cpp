// Topology::validate(): every structural problem at once, so a user fixing a hand-written file
// sees the whole list instead of one error per run.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>
#include <cmath>
#include <compare>
#include <cstdio>
#include <unordered_map>

#include "hw/topology_impl.hpp"
#include "topoplan/error.hpp"

namespace topoplan {
namespace {

std::string gbps(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g GB/s", x);
  return buf;
}

// One key per (device pair, link type) for the duplicate check. Link types are a handful of
// names, so each gets a small number; comparing three ints instead of ordering tuples holding a
// string copy per link made this check a sixth of `topo show` on 100,000 GPUs (770,000 links).
struct PairKey {
  int a, b, type;
  auto operator<=>(const PairKey&) const = default;
};

// duplicate[i]: link i repeats the device pair and type of an earlier link. Sorted (key, link)
// entries: the first of each run of equal keys is the original, the rest repeat it (one vector
// instead of a hash-set node per link).
std::vector<char> duplicate_links(const Topology& t) {
  std::unordered_map<std::string, int> type_ids;
  std::vector<std::pair<PairKey, int>> keys;
  keys.reserve(t.link_count());
  for (int i = 0; i < static_cast<int>(t.link_count()); ++i) {
    const Link& l = t.link(i);
    auto it = type_ids.find(l.type);
    if (it == type_ids.end())
      it = type_ids.emplace(l.type, static_cast<int>(type_ids.size())).first;
    keys.push_back({{std::min(l.a, l.b), std::max(l.a, l.b), it->second}, i});
  }
  std::sort(keys.begin(), keys.end());
  std::vector<char> duplicate(t.link_count(), 0);
  for (std::size_t j = 1; j < keys.size(); ++j)
    if (keys[j].first == keys[j - 1].first) duplicate[static_cast<std::size_t>(keys[j].second)] = 1;
  return duplicate;
}

void check_links(const Topology& t, std::vector<Diagnostic>& out) {
  const std::vector<char> duplicate = duplicate_links(t);
  for (int i = 0; i < static_cast<int>(t.link_count()); ++i) {
    const Link& l = t.link(i);
    // Built only for a link with a problem: two id copies per link add up on large clusters.
    const auto where = [&] { return t.device(l.a).id + " -- " + t.device(l.b).id; };
    if (l.a == l.b) out.push_back({where(), "self-link on device '" + t.device(l.a).id + "'"});
    if (!(l.bw_GBps > 0) || !std::isfinite(l.bw_GBps)) {
      out.push_back({where(), "link " + std::to_string(i) + " (" + l.type + ") has bandwidth " +
                                  gbps(l.bw_GBps) + "; it must be > 0"});
    }
    if (!(l.efficiency > 0) || l.efficiency > 1) {
      out.push_back({where(), "link " + std::to_string(i) + " has efficiency outside (0, 1]"});
    }
    if (l.latency_us < 0)
      out.push_back({where(), "link " + std::to_string(i) + " has negative latency"});
    if (duplicate[static_cast<std::size_t>(i)]) {
      out.push_back(
          {where(), "duplicate " + l.type +
                        " link (bundle them with \"count\" instead of repeating the link)"});
    }
  }
}

void check_devices(const Topology& t, std::vector<Diagnostic>& out) {
  for (int d = 0; d < static_cast<int>(t.device_count()); ++d) {
    const Device& dev = t.device(d);
    const auto& adj = t.neighbours(d);
    if (adj.empty()) {
      out.push_back({dev.id, std::string(to_string(dev.type)) + " is not connected to anything"});
    }
    if (dev.type == DeviceType::NvSwitch) {
      bool has_gpu = false;
      for (const Adjacent& a : adj) has_gpu = has_gpu || t.device(a.device).type == DeviceType::Gpu;
      if (!has_gpu) out.push_back({dev.id, "NVSwitch has no GPU attached"});
    }
  }
}

// GPUs that cannot reach the first GPU, by connected components of the device graph.
void check_gpu_connectivity(const Topology& t, std::vector<Diagnostic>& out) {
  const auto& gpus = t.gpus();
  if (gpus.size() < 2) return;
  boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS> g(t.device_count());
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    boost::add_edge(static_cast<std::size_t>(l.a), static_cast<std::size_t>(l.b), g);
  }
  std::vector<int> component(boost::num_vertices(g));
  boost::connected_components(g, component.data());
  const int first = gpus.front();
  for (int gpu : gpus) {
    if (component[gpu] != component[first]) {
      out.push_back({t.device(gpu).id, "GPU has no path to GPU '" + t.device(first).id + "'"});
    }
  }
}

// Within each server that has NICs, every GPU needs a path to one of them over the server's own
// devices (a path through another server's network would not be a real route).
void check_gpu_to_nic(const Topology& t, std::vector<Diagnostic>& out) {
  std::vector<char> reached(t.device_count(), 0);
  for (int node = 0; node < t.node_count(); ++node) {
    std::vector<int> frontier = t.nics_of_node(node);
    if (frontier.empty()) continue;
    for (int n : frontier) reached[n] = 1;
    while (!frontier.empty()) {
      const int d = frontier.back();
      frontier.pop_back();
      for (const Adjacent& a : t.neighbours(d)) {
        if (!reached[a.device] && t.device(a.device).node == node) {
          reached[a.device] = 1;
          frontier.push_back(a.device);
        }
      }
    }
    for (int gpu : t.gpus_of_node(node)) {
      if (!reached[gpu])
        out.push_back({t.device(gpu).id, "GPU has no path to a NIC of its server"});
    }
  }
}

// GPU models must be in the catalog, and a GPU's NVLink bundle cannot exceed what the part has
// (catches "count": 36 for an 18-link GPU, or NVLink on a PCIe-only card).
void check_gpu_specs(const Topology& t, std::vector<Diagnostic>& out) {
  const Catalog& cat = t.catalog();
  for (int gpu : t.gpus()) {
    const Device& d = t.device(gpu);
    const GpuSpec* spec = cat.find_gpu(d.model);
    if (!spec) {
      std::vector<std::string> names;
      for (const GpuSpec& g : cat.gpus()) names.push_back(g.name);
      out.push_back({d.id, UnknownNameError("GPU model", d.model, names).what()});
      continue;
    }
    double nvlink_GBps = 0;
    for (const Adjacent& a : t.neighbours(gpu)) {
      const Link& l = t.link(link_of(a.out));
      if (l.kind == LinkKind::NVLink) nvlink_GBps += l.bw_GBps;
    }
    if (nvlink_GBps > spec->nvlink_GBps * (1 + 1e-9)) {
      out.push_back({d.id, "GPU has " + gbps(nvlink_GBps) + " of NVLink per direction; a " +
                               spec->name + " has " + gbps(spec->nvlink_GBps)});
    }
  }
}

}  // namespace

std::vector<Diagnostic> Topology::validate() const {
  std::vector<Diagnostic> out;
  check_links(*this, out);
  check_devices(*this, out);
  check_gpu_connectivity(*this, out);
  check_gpu_to_nic(*this, out);
  check_gpu_specs(*this, out);
  return out;
}

}  // namespace topoplan
