// Helpers for comm tests: hand-built topologies and built-in clusters.
#pragma once

#include <string>
#include <vector>

#include "topoplan/collective.hpp"
#include "topoplan/topology_io.hpp"
#include "topoplan/units.hpp"

namespace topoplan::test {

// n GPUs of `model` on one NVSwitch vertex, each by one link of bw_GBps per direction and
// `efficiency`, `latency_us` per link. Server 0, no NICs.
inline Topology nvswitch_server(int n, const std::string& model, double bw_GBps, double efficiency,
                                double latency_us = 0.3) {
  Topology t;
  t.name = "test-nvswitch";
  const int sw = t.add_device({"nvswitch", "test", DeviceType::NvSwitch, 0, 0, 0});
  for (int i = 0; i < n; ++i) {
    const int g = t.add_device({"gpu" + std::to_string(i), model, DeviceType::Gpu, 0, i, 0});
    Link l;
    l.a = g, l.b = sw, l.kind = LinkKind::NVLink, l.type = "nvlink4", l.count = 18;
    l.bw_GBps = bw_GBps, l.efficiency = efficiency, l.latency_us = latency_us;
    t.add_link(l);
  }
  return t;
}

// n GPUs of `model` pairwise joined by one direct NVLink link of bw_GBps per direction (a
// switchless full mesh), efficiency 1, 0.3 µs per link. Server 0, no CPUs or NICs.
inline Topology mesh_server(int n, const std::string& model, double bw_GBps) {
  Topology t;
  t.name = "test-mesh";
  for (int i = 0; i < n; ++i)
    t.add_device({"gpu" + std::to_string(i), model, DeviceType::Gpu, 0, i, 0});
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      Link l;
      l.a = i, l.b = j, l.kind = LinkKind::NVLink, l.type = "nvlink4", l.count = 1;
      l.bw_GBps = bw_GBps, l.efficiency = 1.0, l.latency_us = 0.3;
      t.add_link(l);
    }
  return t;
}

inline Topology cluster(const std::string& server, int nodes, const std::string& link = "") {
  ClusterOptions o;
  o.nodes = nodes;
  o.link = link;
  return load_topology(server, o);
}

inline int dev(const Topology& t, const std::string& id) {
  const auto d = t.find(id);
  if (!d) throw std::runtime_error("no device " + id);
  return *d;
}

inline std::vector<int> first(const Topology& t, int n) {
  return {t.gpus().begin(), t.gpus().begin() + n};
}

inline CollectiveOptions force(Algorithm a, Protocol p = Protocol::Auto) {
  CollectiveOptions o;
  o.algorithm = a;
  o.protocol = p;
  return o;
}

}  // namespace topoplan::test
