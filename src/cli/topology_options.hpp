// The topology argument and cluster flags shared by every command that takes a topology
// (topo, collective, plan): TOPO (built-in name or file) plus --nodes, --fabric,
// --fabric-link, --oversubscription and --tiers.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "topoplan/topology_io.hpp"

namespace topoplan::cli {

struct TopologyOptions {
  std::string topology;                   // built-in name or JSON file path
  ClusterOptions cluster;                 // nodes == 1: the topology as given
  std::string fabric = "rail-optimized";  // --fabric as typed, parsed by cluster_options()
};

// o.cluster with the --fabric text parsed into its kind (UnknownNameError otherwise).
ClusterOptions cluster_options(const TopologyOptions& o);

// Adds the cluster flags to `cmd` (values land in `o.cluster`).
void add_cluster_flags(CLI::App& cmd, TopologyOptions& o);
// Adds a required positional TOPO argument and the cluster flags.
void add_topology_options(CLI::App& cmd, TopologyOptions& o,
                          const std::string& help = "built-in topology name or JSON file");
// Loads the topology (a cluster when --nodes > 1) and checks it with Topology::validate().
// Throws InputError (naming the file and the first problem's device or link) or
// UnknownNameError.
Topology load_topology(const TopologyOptions& o);
// For --nodes ≥ 2: the server the cluster copies, with load_topology's checks and errors, the
// cluster described (cluster_shape.hpp) rather than built.
Topology load_cluster_server(const TopologyOptions& o);
// `first_nodes` servers of o.topology and `second_nodes` of `second_server` on one fabric (the
// cluster flags of `o`): a mixed cluster for `plan --disagg --decode-server`.
Topology load_mixed_topology(const TopologyOptions& o, const std::string& second_server,
                             int first_nodes, int second_nodes);

}  // namespace topoplan::cli
