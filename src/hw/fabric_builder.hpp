// The generated fabric's one enumeration (docs/topology-format.md, "Clusters"): make_cluster builds
// it into a Topology, cluster_shape() only counts it or streams its links, so a described cluster
// and a built one cannot disagree on a switch or a link.
#pragma once

#include <string>
#include <vector>

#include "topoplan/topology.hpp"
#include "topoplan/topology_io.hpp"

namespace topoplan::detail {

// Where the fabric's switches and links go, in the order make_cluster adds them.
class FabricSink {
 public:
  virtual ~FabricSink() = default;
  // A switch named prefix + tier name + index (tier 1 = leaf); returns its device index.
  virtual int add_switch(const std::string& prefix, int tier, int index) = 0;
  // `count` bundled fabric links between devices a and b.
  virtual void connect(int a, int b, int count) = 0;
};

// Throws InputError for a bad count, ratio or tier number, or a server that holds switches.
void check_cluster_options(const Topology& server, const ClusterOptions& o);
// Server-local NIC device indices by local index (InputError when the server has none).
std::vector<int> server_nics(const Topology& server);
// The fabric's link: o.link, or the first NIC's port link (InputError when neither exists).
const LinkSpec& fabric_link(const Topology& server, const std::vector<int>& nics,
                            const ClusterOptions& o);
// The fabric over every server's NICs (server_nic[node][local NIC], device indices) into `sink`,
// plane by plane as o.fabric says; returns the tier count.
int build_fabric(FabricSink& sink, const std::vector<std::vector<int>>& server_nic,
                 const ClusterOptions& o);
// Switches and links build_fabric would add for these servers, without adding them (make_cluster
// reserves exactly this much).
struct FabricCount {
  std::size_t switches = 0, links = 0;
};
FabricCount count_fabric(const std::vector<std::vector<int>>& server_nic, const ClusterOptions& o);
// A generated cluster's name ("hgx-h100-8-x4"), description and fabric record.
struct ClusterNames {
  std::string name, description;
  FabricInfo fabric;
};
ClusterNames cluster_names(const std::vector<ServerGroup>& groups, const ClusterOptions& o,
                           const std::string& link, int tiers);
// "leaf", "spine", "core", "supercore" for tiers 1 to 4.
const char* tier_name(int tier);

}  // namespace topoplan::detail
