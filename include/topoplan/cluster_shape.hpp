// A generated cluster described, not built (issue 32): one server template × nodes and the fabric
// make_cluster would add. Its counts and its links (streamed, in make_cluster's numbering) come
// without a Device, a Link or a string id per GPU, so a 100,000-GPU cluster is summarised in the
// memory of its switches.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "topoplan/topology.hpp"
#include "topoplan/topology_io.hpp"

namespace topoplan {

struct ClusterShape {
  std::string name, description;  // as make_cluster names the built topology
  FabricInfo fabric;              // as make_cluster records it
  int nodes = 0;
  std::size_t devices = 0;             // = make_cluster(server, o).device_count()
  std::size_t links = 0;               // = its link_count()
  std::vector<int> switches_per_tier;  // [0] = leaves, ...
};

// The shape of make_cluster(server, o) for o.nodes ≥ 2: the same checks and InputErrors (count,
// oversubscription, tiers, a server without NICs or with switches), no devices built.
ClusterShape cluster_shape(const Topology& server, const ClusterOptions& o);

// Every link of make_cluster(server, o) in link-index order as (a, b, bw_GBps) with its device
// indices, without building the cluster (o.nodes ≥ 2); returns cluster_shape(server, o) from the
// same enumeration.
ClusterShape for_each_cluster_link(const Topology& server, const ClusterOptions& o,
                                   const std::function<void(int a, int b, double bw_GBps)>& visit);

}  // namespace topoplan
