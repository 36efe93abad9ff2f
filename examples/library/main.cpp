// topoplan as a library: the embedded 8 x H20 server and Llama 3 8B, one all-reduce and one
// serving plan, printed as the JSON `topoplan collective --json` and `topoplan plan --json` print.
#include <iostream>
#include <set>

#include "topoplan/collective.hpp"
#include "topoplan/error.hpp"
#include "topoplan/json.hpp"
#include "topoplan/model.hpp"
#include "topoplan/plan.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"

int main() {
  try {
    const topoplan::Topology topology = topoplan::load_topology("hgx-h20-8");
    const topoplan::ModelSpec model = topoplan::load_model("llama-3-8b");
    const topoplan::Router router(topology);

    const double kMessageBytes = 1024.0 * 1024 * 1024;  // 1 GiB, nccl-tests' usual large size
    topoplan::CollectiveModel collectives(router);
    topoplan::report::CollectiveReport all_reduce;
    all_reduce.topology = topology.name;
    std::set<int> nodes;
    for (int gpu : topology.gpus()) {
      all_reduce.ranks.push_back(topology.device(gpu).id);
      nodes.insert(topology.device(gpu).node);
    }
    all_reduce.nodes = static_cast<int>(nodes.size());
    all_reduce.results.push_back(
        collectives.cost(topoplan::CollOp::AllReduce, topology.gpus(), kMessageBytes));
    std::cout << topoplan::to_json(all_reduce);

    std::cout << topoplan::to_json(topoplan::plan(model, router, topoplan::PlanRequest{}));
    return 0;
  } catch (const topoplan::Error& e) {
    std::cerr << "topoplan_consumer: " << e.what() << "\n";
    return 2;
  }
}
