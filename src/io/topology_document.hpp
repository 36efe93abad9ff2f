// A topology file as written, before any name in it is resolved: parsing returns this document,
// loading (topology_load.cpp) resolves a cluster's server name and generates the cluster.
#pragma once

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "topoplan/topology_io.hpp"

namespace topoplan::io {

// A cluster file: a named server, N copies of it and a fabric (docs/topology-format.md).
struct ClusterDocument {
  std::string source;  // the file, for errors located in it
  std::string name, description;
  std::string server;  // built-in name or file path, resolved by the loader
  ClusterOptions options;
  // A mixed cluster ("servers": [{"server", "count"}, ...]): each group's server name and count,
  // in node order; empty for "server"/"count".
  std::vector<std::pair<std::string, int>> groups;
};

using TopologyDocument = std::variant<Topology, ClusterDocument>;

// Parses topology JSON text: a topology (devices and links) or a cluster document. Reads no
// other file. Throws InputError with `source` and the JSON pointer of the first fatal problem.
TopologyDocument parse_topology_document(const std::string& text, const std::string& source);

}  // namespace topoplan::io
