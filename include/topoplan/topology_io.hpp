// Loading topologies: built-in names, JSON files, and clusters generated from a server.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topoplan/topology.hpp"

namespace topoplan {

// How a generated cluster joins its servers: one network plane per rail (NIC local index), or
// one fat tree over every NIC (docs/topology-format.md).
enum class FabricKind { RailOptimized, FatTree };
std::string_view to_string(FabricKind k);  // "rail-optimized", "fat-tree"
// The kind named by `text`; UnknownNameError("fabric", ...) for anything else.
FabricKind parse_fabric_kind(std::string_view text);

struct ClusterOptions {
  int nodes = 1;  // servers; 1 means the server alone (no fabric)
  FabricKind fabric = FabricKind::RailOptimized;
  std::string link;               // fabric link type; empty = the server's NIC port type
  int tiers = 0;                  // fat-tree tiers (2 or 3); 0 = smallest that fits
  double oversubscription = 1.0;  // leaf down:up bandwidth ratio (fat-tree)
};

// Built-in topology names (servers and clusters), sorted.
std::vector<std::string> builtin_topology_names();

// Parses topology JSON text (format in docs/topology-format.md); a cluster file's server is then
// loaded by name (load_topology) and the cluster generated. Throws InputError with `source` and
// the JSON pointer of the first fatal problem; structural problems that do not stop parsing are
// left to Topology::validate().
Topology parse_topology_json(const std::string& text, const std::string& source);

// Loads a built-in name or a file path (a file path always wins). A cluster file, or
// options.nodes > 1, generates the cluster from its server. Throws InputError/UnknownNameError.
Topology load_topology(const std::string& name_or_path, const ClusterOptions& options = {});
// The server a cluster of `options.nodes` ≥ 2 copies would be made of, with every check and
// located error load_topology(name_or_path, options) gives, but no cluster built: for callers
// that describe the cluster instead (cluster_shape.hpp, summarize_cluster).
Topology load_cluster_server(const std::string& name_or_path, const ClusterOptions& options);

// Generates `options.nodes` copies of `server` joined by the fabric (InputError for
// options.nodes < 1, the one check of the count). Device ids become
// "n<k>/<id>"; node indices are 0..nodes-1; switches have node -1 and tier 1..3.
Topology make_cluster(const Topology& server, const ClusterOptions& options);

// A server kind and how many of it, for make_mixed_cluster.
struct ServerGroup {
  const Topology* server = nullptr;
  int nodes = 1;
};
// Server groups of different kinds on one generated fabric (options.nodes is ignored: the
// groups' counts add up): group g's servers are numbered after group g-1's, device ids
// "n<k>/<id>" as make_cluster's. Rail-optimized rail r joins NIC r of every server that has one.
// The fabric link is options.link or the first group's NIC port. fabric.groups lists the groups.
Topology make_mixed_cluster(const std::vector<ServerGroup>& groups, const ClusterOptions& options);

// `nodes` servers like server `first_node` of `cluster` on a fabric of the cluster's kind, link
// and oversubscription: one pool of a (mixed) cluster priced alone. The server is rebuilt from
// the cluster's devices of that node (ids without the "n<k>/" prefix).
Topology pool_cluster(const Topology& cluster, int first_node, int nodes);

}  // namespace topoplan
