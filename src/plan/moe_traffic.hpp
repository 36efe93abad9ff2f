// DeepEP normal-mode (prefill) dispatch traffic with per-rank and per-node deduplication.
#pragma once

#include <vector>

#include "topoplan/collective.hpp"

namespace topoplan {

class Topology;

// Probability that a token's top_k distinct experts (uniform over `experts`) include at least
// one of `held` experts.
double prob_any_expert(int experts, int top_k, double held);

// Expected bytes from group rank i to rank j when every rank dispatches `tokens` tokens of
// `token_bytes` (one copy) and the experts are split evenly over the group: one copy per
// destination rank on the same server; one copy per destination server to the GPU with the
// sender's local index, which forwards it over NVLink to the ranks of its server that need it.
// The combine moves the same bytes back (the transpose).
TrafficMatrix deepep_normal_matrix(const Topology& topo, const std::vector<int>& group,
                                   double tokens, double token_bytes, int experts, int top_k);

}  // namespace topoplan
