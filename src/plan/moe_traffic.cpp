// Expected MoE dispatch traffic of DeepEP's normal (prefill, high-throughput) kernels: one copy of
// a token per destination *rank* that holds any of its experts, and across servers one RDMA copy
// per destination *node*, sent to the GPU with the sender's local index and forwarded over
// NVLink (DeepSeek-V3 arXiv:2412.19437 §3.2.2; deepseek-ai/DeepEP README, "normal kernels ...
// asymmetric-domain bandwidth forwarding, such as from NVLink domain to RDMA domain").
// The low-latency (decode) kernels send one copy per (token, expert) pair by RDMA and are priced
// with moe_dispatch_matrix instead (docs/planner.md, "Time of a step").
#include "plan/moe_traffic.hpp"

#include <algorithm>
#include <cmath>
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

namespace {

double binomial(int n, int r) {
  if (r < 0 || r > n) return 0;
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(r + 1.0) - std::lgamma(n - r + 1.0));
}

// Π_{i<k} (m − h − i) / (m − i): none of the k experts drawn from m is among h of them.
double miss_all(double m, int k, double h) {
  double miss = 1;
  for (int i = 0; i < k; ++i) {
    const double num = m - h - i, den = m - i;
    if (num <= 0 || den <= 0) return 0;
    miss *= num / den;
  }
  return miss;
}

}  // namespace

double prob_any_expert(const MoeSpec& moe, const std::vector<double>& held) {
  double total = 0;
  for (double h : held) total += h;
  if (!moe.group_limited()) return prob_any_expert(moe.num_experts, moe.top_k, total);
  if (total <= 0) return 0;
  // Sum over which of the destination's groups the token keeps: T of the j groups it holds
  // experts of, with probability C(G − j, K − |T|) / C(G, K); then the top_k among the K·E/G
  // experts of the kept groups miss the h_T it holds there. Subsets enter only through (|T|,
  // h_T), so they are counted in a table of those pairs instead of enumerated.
  const int groups = moe.n_group, keep = moe.topk_group;
  std::map<std::pair<int, double>, double> subsets{{{0, 0.0}, 1.0}};
  int j = 0;
  for (double c : held) {
    if (!(c > 0)) continue;
    ++j;
    auto next = subsets;
    for (const auto& [th, w] : subsets) next[{th.first + 1, th.second + c}] += w;
    subsets = std::move(next);
  }
  const double m = double(keep) * moe.num_experts / groups, all = binomial(groups, keep);
  double miss = 0;
  for (const auto& [th, w] : subsets)
    miss += w * binomial(groups - j, keep - th.first) / all * miss_all(m, moe.top_k, th.second);
  return 1 - miss;
}

std::vector<double> held_by_group(const MoeSpec& moe, const std::vector<std::size_t>& ranks,
                                  std::size_t n) {
  const int groups = std::max(1, moe.n_group);
  std::vector<double> held(static_cast<std::size_t>(groups), 0.0);
  if (n == 0) return held;
  const double per_rank = double(moe.num_experts) / double(n);
  const double per_group = double(moe.num_experts) / groups;
  for (std::size_t r : ranks) {
    const double lo = double(r) * per_rank, hi = lo + per_rank;
    for (int g = 0; g < groups; ++g) {
      const double overlap = std::min(hi, (g + 1) * per_group) - std::max(lo, g * per_group);
      if (overlap > 0) held[static_cast<std::size_t>(g)] += overlap;
    }
  }
  return held;
}

TrafficMatrix deepep_normal_matrix(const Topology& topo, const std::vector<int>& group,
                                   double tokens, double token_bytes, const MoeSpec& moe) {
  const std::size_t n = group.size();
  TrafficMatrix m(n, std::vector<double>(n, 0.0));
  if (n < 2) return m;
  std::map<int, std::vector<std::size_t>> by_node;  // node → group positions
  for (std::size_t r = 0; r < n; ++r) by_node[topo.device(group[r]).node].push_back(r);
  std::vector<double> p_rank(n);  // chance that a token needs rank r (its experts' groups)
  for (std::size_t r = 0; r < n; ++r) p_rank[r] = prob_any_expert(moe, held_by_group(moe, {r}, n));
  std::map<int, double> p_node;
  for (const auto& [node, members] : by_node)
    p_node[node] = prob_any_expert(moe, held_by_group(moe, members, n));
  for (std::size_t i = 0; i < n; ++i) {
    const Device& src = topo.device(group[i]);
    for (const auto& [node, members] : by_node) {
      if (node == src.node) {
        for (std::size_t j : members)
          if (j != i) m[i][j] += tokens * p_rank[j] * token_bytes;
        continue;
      }
      // The RDMA peer: the member with the sender's local index, else the node's first member.
      std::size_t peer = members.front();
      for (std::size_t j : members)
        if (topo.device(group[j]).local_index == src.local_index) peer = j;
      m[i][peer] += tokens * p_node[node] * token_bytes;
      for (std::size_t j : members)
        if (j != peer) m[peer][j] += tokens * p_rank[j] * token_bytes;  // NVLink forward
    }
  }
  return m;
}

}  // namespace topoplan
