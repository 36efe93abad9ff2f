// Output of `topoplan topo`: a readable table by default, JSON with stable keys (docs/routing.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

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
void print_topo_show(std::ostream& os, const Topology& t, const TopologySummary& s, bool json);
// The JSON of print_topo_show, streamed (src/report/topo_show_json.cpp).
void print_topo_show_json(std::ostream& os, const Topology& t, const TopologySummary& s);
// `nics[i]` is the NIC of matrix.gpus[i] (-1 when none).
void print_topo_paths(std::ostream& os, const Topology& t, const PathMatrix& m,
                      const std::vector<int>& nics, bool json);
void print_topo_validate(std::ostream& os, const std::string& source,
                         const std::vector<Diagnostic>& diagnostics, bool json);

}  // namespace topoplan::report
