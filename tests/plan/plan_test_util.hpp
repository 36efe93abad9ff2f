// Shared fixtures of the planner tests: a loaded topology with its router.
#pragma once

#include <memory>
#include <string>

#include "topoplan/model.hpp"
#include "topoplan/plan.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"
#include "topoplan/train.hpp"

namespace topoplan::test {

struct Machine {
  // The Router keeps a reference to `topology`: a Machine must not move (hold it by pointer).
  explicit Machine(const std::string& name, int nodes = 1,
                   FabricKind fabric = FabricKind::RailOptimized)
      : topology(load_topology(name, cluster(nodes, fabric))),
        router(std::make_unique<Router>(topology)) {}
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;
  static ClusterOptions cluster(int nodes, FabricKind fabric = FabricKind::RailOptimized) {
    ClusterOptions c;
    c.nodes = nodes;
    c.fabric = fabric;
    return c;
  }
  Topology topology;
  std::unique_ptr<Router> router;
};

inline Strategy strat(int tp, int pp = 1, int dp = 1, int ep = 1, bool adp = false) {
  return Strategy{.tp = tp, .pp = pp, .dp = dp, .ep = ep, .attention_dp = adp};
}

// A training request of `gbs` sequences of `seq` tokens with no framework reserve.
inline TrainRequest train_request(double seq, int gbs) {
  TrainRequest q;
  q.seq = seq;
  q.global_batch = gbs;
  q.reserve_bytes = 0;
  return q;
}

}  // namespace topoplan::test
