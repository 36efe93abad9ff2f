// Placeholder until the cluster generator lands.
#include "topoplan/error.hpp"
#include "topoplan/topology_io.hpp"

namespace topoplan {
Topology make_cluster(const Topology&, const ClusterOptions&) {
  throw InternalError("cluster generation is not implemented yet");
}
}  // namespace topoplan
