// Output of `topoplan topo`: a readable table by default, JSON with stable keys (docs/routing.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "topoplan/cluster_shape.hpp"
#include "topoplan/route.hpp"

namespace topoplan::report {

struct TopoListEntry {
  std::string name;
  int gpus = 0;
  int nodes = 0;
  std::string gpu_model;
  int nvlink_domain = 0;
  std::string description;
};

void print_topo_list(std::ostream& os, const std::vector<TopoListEntry>& entries, bool json);
// What `topo show` prints besides the summary's figures: from a built topology, or from a
// cluster described by cluster_shape() (issue 32), whose JSON lists one server's devices and
// links instead of all of them.
struct TopoShowSource {
  std::string name, description;
  FabricInfo fabric;
  std::size_t links = 0;
  std::vector<std::pair<std::string, int>> gpu_models;  // model, count (Topology::gpu_models)
  const Catalog* catalog = nullptr;
  const Topology* all = nullptr;     // every device and link for the JSON lists, or nullptr
  const Topology* server = nullptr;  // when `all` is nullptr: the server every node copies
  std::size_t lists_limit_gpus = 0;  // why `all` is nullptr: the GPU count past which it is
};
TopoShowSource show_source(const Topology& t);
// A described cluster of `shape.nodes` copies of `server` (device lists: the server's).
TopoShowSource show_source(const ClusterShape& shape, const Topology& server,
                           std::size_t lists_limit_gpus);

void print_topo_show(std::ostream& os, const TopoShowSource& t, const TopologySummary& s,
                     bool json);
// The JSON of print_topo_show, streamed (src/report/topo_show_json.cpp).
void print_topo_show_json(std::ostream& os, const TopoShowSource& t, const TopologySummary& s);
// `nics[i]` is the NIC of matrix.gpus[i] (-1 when none).
void print_topo_paths(std::ostream& os, const Topology& t, const PathMatrix& m,
                      const std::vector<int>& nics, bool json);
void print_topo_validate(std::ostream& os, const std::string& source,
                         const std::vector<Diagnostic>& diagnostics, bool json);

}  // namespace topoplan::report
