// Helpers for the importer tests: sample files and a canonical text of a topology's graph.
#pragma once

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "topoplan/topology.hpp"

namespace topoplan::test {

inline std::string read_sample(const std::string& relative) {
  std::ifstream in(std::string(TOPOPLAN_SOURCE_DIR) + "/" + relative);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Devices in order ("id type model node") and links as a sorted list ("a-b type xcount bw"),
// so two graphs built in different link orders compare equal when they are the same graph.
inline std::string canonical(const Topology& t) {
  std::string out;
  for (std::size_t i = 0; i < t.device_count(); ++i) {
    const Device& d = t.device(static_cast<int>(i));
    out += d.id + " " + std::string(to_string(d.type)) + " " + d.model + " " +
           std::to_string(d.node) + " " + std::to_string(d.local_index) + "\n";
  }
  std::vector<std::string> links;
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    std::string a = t.device(l.a).id, b = t.device(l.b).id;
    if (b < a) std::swap(a, b);
    char bw[64];
    std::snprintf(bw, sizeof bw, " %.4f %.4f %.4f", l.bw_GBps, l.efficiency, l.latency_us);
    links.push_back(a + "-" + b + " " + l.type + " x" + std::to_string(l.count) + bw);
  }
  std::sort(links.begin(), links.end());
  for (const std::string& l : links) out += l + "\n";
  return out;
}

}  // namespace topoplan::test
