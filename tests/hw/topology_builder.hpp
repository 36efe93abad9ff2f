// Devices and links for topologies built by hand in tests (hw, route): one place for the fields
// a test usually sets, so a test states only its graph.
#pragma once

#include <string>
#include <utility>

#include "topoplan/topology.hpp"

namespace topoplan::test {

inline Device make_device(std::string id, DeviceType type, int node = 0, int local = 0,
                          std::string model = "") {
  Device d;
  d.id = std::move(id);
  d.type = type;
  d.node = node;
  d.local_index = local;
  d.model = std::move(model);
  return d;
}

// `bw_GBps` per direction for the whole link; efficiency 1, count 1.
inline Link make_link(int a, int b, double bw_GBps, std::string type = "pcie5",
                      LinkKind kind = LinkKind::PCIe, double latency_us = 0) {
  Link l;
  l.a = a;
  l.b = b;
  l.kind = kind;
  l.type = std::move(type);
  l.bw_GBps = bw_GBps;
  l.latency_us = latency_us;
  return l;
}

}  // namespace topoplan::test
