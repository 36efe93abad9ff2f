// Decode steps and prefills of one replica scheduled over its pipeline stages: micro-batches,
// fill/drain bubbles and stage-boundary sends (docs/planner.md, "Pipeline schedule").
#include <algorithm>
#include <cmath>

#include "plan/planner_impl.hpp"

namespace topoplan {

TimeBreakdown Planner::decode_step(const Strategy& s, double batch, double context,
                                   PlacementOrder order) const {
  return impl_->decode_step(s, batch_shape(s, batch), context, order);
}

TimeBreakdown Planner::prefill(const Strategy& s, double batch, double prompt,
                               PlacementOrder order) const {
  return impl_->prefill(s, batch_shape(s, batch), prompt, order);
}

TimeBreakdown Planner::Impl::decode_step(const Strategy& s, const BatchShape& shape, double context,
                                         PlacementOrder order) const {
  // Each sequence advances once per cycle of the m micro-batches in flight.
  const double m = shape.decode_micro_batches;
  Workload w{.phase = Phase::Decode,
             .batch = shape.replica / m,
             .new_tokens = 1.0 + (req.mtp_accept > 0 ? req.mtp_draft : 0),
             .context = context};
  TimeBreakdown stage = stage_time(s, order, w, true);
  double send = pp_send_us(s, order, w.tokens());
  TimeBreakdown r = stage.scaled(m);
  r.pp_sendrecv_us += (s.pp - 1) * send;
  r.bubble_us += (std::max(m, double(s.pp)) - m) * stage.total_us();
  return r;
}

TimeBreakdown Planner::Impl::prefill(const Strategy& s, const BatchShape& shape, double prompt,
                                     PlacementOrder order) const {
  // Chunked prefill: at most `chunk` tokens per forward pass. Short prompts are packed whole;
  // a long prompt is cut into equal chunks attending to the earlier ones (average context).
  // Under attention DP each rank packs its own prompts into its share of the chunk (SGLang
  // divides chunked_prefill_size by the DP size), the ranks in step; the busiest rank holds
  // per_rank_max prompts (the replica's, without attention DP), and `active` ranks have any
  // (one prompt: one rank; 1 without attention DP).
  const double ranks = shape.attention_ranks;
  const double active = std::min(ranks, std::ceil(shape.replica));
  const double b = shape.per_rank_max;
  const double chunk = req.prefill_chunk / ranks;
  double m = 1;
  Workload w{.phase = Phase::Prefill, .batch = b, .new_tokens = prompt, .context = 0};
  if (b * prompt > chunk) {
    if (prompt <= chunk) {
      double per_chunk = std::floor(chunk / prompt);
      m = std::ceil(b / per_chunk);
      w.batch = b / m;
    } else {
      double pieces = std::ceil(prompt / chunk);
      m = b * pieces;
      w.batch = 1;
      w.new_tokens = prompt / pieces;
      w.context = (prompt - w.new_tokens) / 2;
    }
  }
  w.batch *= active;  // the replica's sequences in one pass (MoE tokens)
  TimeBreakdown stage = stage_time(s, order, w, false);
  double send = pp_send_us(s, order, w.tokens());
  // The last chunk leaves the last stage after m stage times plus the pipeline's fill: pp - 1
  // more stage times, in which stages 2..pp run the same kernels (compute, not idle time).
  TimeBreakdown r = stage.scaled(m + s.pp - 1);
  r.pipeline_fill_us = (s.pp - 1) * stage.total_us();
  r.pp_sendrecv_us += (s.pp - 1) * send;
  return r;
}

MemoryPerGpu memory_at_batch(const MemoryPerGpu& base, const BatchShape& shape, double sequence) {
  MemoryPerGpu r = base;
  r.kv_used_bytes = shape.per_rank_max * sequence * base.kv_bytes_per_token;
  return r;
}

}  // namespace topoplan
