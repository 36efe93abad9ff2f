#include "cli/topology_options.hpp"

#include "cli/commands.hpp"
#include "topoplan/error.hpp"

namespace topoplan::cli {

void add_cluster_flags(CLI::App& cmd, TopologyOptions& o) {
  cmd.add_option("--nodes", o.cluster.nodes, "servers in the cluster (default 1: the server alone)")
      ->check(positive_count());
  cmd.add_option("--fabric", o.fabric, "network between servers: rail-optimized | fat-tree")
      ->default_str("rail-optimized");
  cmd.add_option("--fabric-link", o.cluster.link,
                 "fabric link type from the catalog (default: the NIC's port, e.g. ib-ndr400)");
  cmd.add_option("--oversubscription", o.cluster.oversubscription,
                 "leaf down:up bandwidth ratio (default 1 = non-blocking)");
  cmd.add_option("--tiers", o.cluster.tiers, "switch tiers (default: the fewest that fit)");
}

void add_topology_options(CLI::App& cmd, TopologyOptions& o, const std::string& help) {
  cmd.add_option("TOPO", o.topology, help)->required();
  add_cluster_flags(cmd, o);
}

ClusterOptions cluster_options(const TopologyOptions& o) {
  ClusterOptions c = o.cluster;
  c.fabric = parse_fabric_kind(o.fabric);
  return c;
}

namespace {
// Routing a structurally broken topology (a GPU with no path, a zero-bandwidth link) gives
// "no path" deep inside a collective or a silently wrong figure; stop at the first problem.
void require_valid(const Topology& t, const std::string& source) {
  const std::vector<Diagnostic> problems = t.validate();
  if (!problems.empty()) {
    std::string what = problems.front().message;
    if (problems.size() > 1) {
      what += " (" + std::to_string(problems.size()) +
              " problems; `topoplan topo validate` lists them all)";
    }
    throw InputError(source, problems.front().location, what);
  }
}
}  // namespace

Topology load_mixed_topology(const TopologyOptions& o, const std::string& second_server,
                             int first_nodes, int second_nodes) {
  if (first_nodes < 1 || second_nodes < 1)
    throw InputError("--decode-server", "",
                     "needs --prefill-nodes and --decode-nodes (servers of each kind)");
  const Topology first = topoplan::load_topology(o.topology);
  const Topology second = topoplan::load_topology(second_server);
  for (const auto* t : {&first, &second})
    if (!t->fabric.kind.empty())
      throw InputError(t == &first ? o.topology : second_server, "",
                       "is a cluster; --decode-server joins two servers' kinds");
  Topology t =
      make_mixed_cluster({{&first, first_nodes}, {&second, second_nodes}}, cluster_options(o));
  require_valid(t, t.name);
  return t;
}

Topology load_cluster_server(const TopologyOptions& o) {
  const ClusterOptions c = cluster_options(o);
  Topology server = topoplan::load_cluster_server(o.topology, c);
  // Every server is a copy of this one, with the same links, and the generated fabric is a tree
  // of catalog links over every NIC: a problem anywhere in the cluster is a problem of server n0
  // or of its fabric links, which two servers hold too. Valid there, valid everywhere; otherwise
  // the whole cluster is checked so the message (first problem, count) is the one it gives.
  ClusterOptions two = c;
  two.nodes = 2;
  if (!make_cluster(server, two).validate().empty())
    require_valid(make_cluster(server, c), o.topology);
  return server;
}

Topology load_topology(const TopologyOptions& o) {
  // A generated cluster is checked on two servers (load_cluster_server), not 300,000 devices.
  if (o.cluster.nodes > 1) return make_cluster(load_cluster_server(o), cluster_options(o));
  Topology t = topoplan::load_topology(o.topology, cluster_options(o));
  require_valid(t, o.topology);
  return t;
}

}  // namespace topoplan::cli
