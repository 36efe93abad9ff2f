// How a batch of sequences spreads over a strategy's replicas, attention ranks and decode
// micro-batches: computed once from (strategy, batch) and passed down, so pipeline, memory and
// the batch sweep share one rule (docs/planner.md, "Pipeline schedule", "Memory").
#pragma once

#include <algorithm>
#include <cmath>

#include "topoplan/model.hpp"
#include "topoplan/placement.hpp"

namespace topoplan {

struct BatchShape {
  double batch = 0;    // sequences over all replicas
  double replica = 0;  // of one replica: max(1, batch / dp), the dp replicas alike
  // Ranks one replica's sequences are split over for attention: tp under attention DP (each
  // rank attends whole sequences), else 1 (every TP rank sees every sequence).
  double attention_ranks = 1;
  double per_rank_max = 0;  // sequences of the most loaded attention rank (ceil under attention DP)
  // Decode micro-batches in flight: continuous batching with pp stages keeps up to pp of them
  // (vLLM virtual engines), each of at least one sequence; 1 without a pipeline.
  double decode_micro_batches = 1;
  // The smallest batch that gives every attention rank of every replica a sequence.
  double unit = 1;
};

inline BatchShape batch_shape(const Strategy& s, double batch) {
  BatchShape b;
  b.batch = batch;
  b.replica = std::max(1.0, batch / s.dp);
  b.attention_ranks = attention_ranks(Shard{.tp = s.tp, .attention_dp = s.attention_dp});
  // Whole sequences per rank only under attention DP; a TP rank holds its share of every one.
  b.per_rank_max = b.attention_ranks > 1 ? std::ceil(b.replica / b.attention_ranks) : b.replica;
  b.decode_micro_batches = s.pp > 1 ? std::clamp(std::floor(b.replica), 1.0, double(s.pp)) : 1.0;
  b.unit = b.attention_ranks * s.dp;
  return b;
}

}  // namespace topoplan
