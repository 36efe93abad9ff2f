// Expected MoE dispatch traffic of DeepEP's normal (prefill, high-throughput) kernels: one copy of
// a token per destination *rank* that holds any of its experts, and across servers one RDMA copy
// per destination *node*, sent to the GPU with the sender's local index and forwarded over
// NVLink (DeepSeek-V3 arXiv:2412.19437 §3.2.2; deepseek-ai/DeepEP README, "normal kernels ...
// asymmetric-domain bandwidth forwarding, such as from NVLink domain to RDMA domain").
// The low-latency (decode) kernels send one copy per (token, expert) pair by RDMA and are priced
// with moe_dispatch_matrix instead (docs/planner.md, "Time of a step").
#include "plan/moe_traffic.hpp"

#include <map>

#include "topoplan/topology.hpp"

namespace topoplan {

double prob_any_expert(int experts, int top_k, double held) {
  // A token picks top_k distinct experts uniformly; the chance that none of them is among the
  // `held` experts of a destination is C(E − held, k) / C(E, k) = Π_i (E − held − i)/(E − i).
  if (held <= 0 || experts <= 0) return 0;
  double miss = 1;
  for (int i = 0; i < top_k; ++i) {
    double num = experts - held - i, den = experts - i;
    if (num <= 0 || den <= 0) return 1;
    miss *= num / den;
  }
  return 1 - miss;
}

TrafficMatrix deepep_normal_matrix(const Topology& topo, const std::vector<int>& group,
                                   double tokens, double token_bytes, int experts, int top_k) {
  const std::size_t n = group.size();
  TrafficMatrix m(n, std::vector<double>(n, 0.0));
  if (n < 2) return m;
  const double per_rank = double(experts) / double(n);
  std::map<int, std::vector<std::size_t>> by_node;  // node → group positions
  for (std::size_t r = 0; r < n; ++r) by_node[topo.device(group[r]).node].push_back(r);
  const double p_rank = prob_any_expert(experts, top_k, per_rank);
  for (std::size_t i = 0; i < n; ++i) {
    const Device& src = topo.device(group[i]);
    for (const auto& [node, members] : by_node) {
      if (node == src.node) {
        for (std::size_t j : members)
          if (j != i) m[i][j] += tokens * p_rank * token_bytes;
        continue;
      }
      // The RDMA peer: the member with the sender's local index, else the node's first member.
      std::size_t peer = members.front();
      for (std::size_t j : members)
        if (topo.device(group[j]).local_index == src.local_index) peer = j;
      double p_node = prob_any_expert(experts, top_k, per_rank * double(members.size()));
      m[i][peer] += tokens * p_node * token_bytes;
      for (std::size_t j : members)
        if (j != peer) m[peer][j] += tokens * p_rank * token_bytes;  // NVLink forward
    }
  }
  return m;
}

}  // namespace topoplan
