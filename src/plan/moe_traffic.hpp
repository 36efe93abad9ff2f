// DeepEP normal-mode (prefill) dispatch traffic with per-rank and per-node deduplication.
#pragma once

#include <vector>

#include "topoplan/collective.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

class Topology;

// Probability that a token's top_k distinct experts (uniform over `experts`) include at least
// one of `held` experts.
double prob_any_expert(int experts, int top_k, double held);

// The same for a destination holding held[g] of the experts of each routing group g (groups of
// moe.num_experts / moe.n_group consecutive experts) under group-limited routing: the token's
// topk_group groups are uniform among the n_group, its top_k experts uniform among theirs
// (balanced load; DeepSeek-V3 §2.1.2). Without a group limit, prob_any_expert of the total.
double prob_any_expert(const MoeSpec& moe, const std::vector<double>& held);

// Experts of each routing group held by the group positions `ranks` of an EP group of n ranks,
// rank r holding experts [r E / n, (r + 1) E / n) (contiguous, as Megatron, SGLang and DeepEP
// lay them out).
std::vector<double> held_by_group(const MoeSpec& moe, const std::vector<std::size_t>& ranks,
                                  std::size_t n);

// Expected bytes from group rank i to rank j when every rank dispatches `tokens` tokens of
// `token_bytes` (one copy) and the experts are split evenly over the group: one copy per
// destination rank on the same server; one copy per destination server to the GPU with the
// sender's local index, which forwards it over NVLink to the ranks of its server that need it.
// The combine moves the same bytes back (the transpose).
// Group-limited routing (moe.n_group, moe.topk_group) narrows the servers a token reaches.
TrafficMatrix deepep_normal_matrix(const Topology& topo, const std::vector<int>& group,
                                   double tokens, double token_bytes, const MoeSpec& moe);

}  // namespace topoplan
