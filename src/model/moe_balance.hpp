// Expert load imbalance across EP ranks: an MoE layer's step waits for its busiest rank.
#pragma once

namespace topoplan::moe {

// E[max of `ranks` independent Binomial(n, q)]: the busiest of `ranks` EP ranks when each of n
// trials lands on a given rank with probability q. Exact (from the binomial CDF) up to n = 4096
// trials, normal approximation above; n is rounded to whole trials. ranks = 1 gives n·q.
double expected_max_binomial(double n, double q, int ranks);

// E[max of `ranks` independent standard normals] (0 for one rank), by numerical integration.
double expected_max_std_normal(int ranks);

// Routed experts that the busiest of `ranks` EP ranks runs, when `tokens` tokens each pick
// `top_k` of `experts` experts uniformly and every rank holds slots/ranks of the `slots` expert
// slots (0: slots = experts; more when redundant copies are deployed). A slot whose expert has
// c = slots/E copies sees T/c of its tokens, so it is touched with probability
// p = 1 − (1 − k/E)^(T/c), and a rank's count is Binomial(slots/ranks, p).
double busiest_rank_experts(double tokens, int top_k, int experts, int ranks, int slots = 0);

// (token, expert) assignments on the busiest rank: tokens·top_k trials, each on a given rank
// with probability 1/ranks.
double busiest_rank_assignments(double tokens, int top_k, int ranks);

}  // namespace topoplan::moe
