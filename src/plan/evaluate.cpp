// One strategy: feasibility (divisibility, TP path class, memory), the batch sweep and the
// serving figures at the chosen batch (docs/planner.md, "Throughput").
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plan/planner_impl.hpp"
#include "topoplan/units.hpp"

namespace topoplan {

namespace {

// Serve: unit, 2·unit, 4·unit, … below the max, then the max (unit = BatchShape::unit so every
// rank has work).
std::vector<double> serve_batches(double unit, double max_batch) {
  double cap = max_batch;
  std::vector<double> out;
  for (double b = unit; b < cap; b *= 2) out.push_back(b);
  out.push_back(cap);
  return out;
}

}  // namespace

double staggered_prefill_us(double prompts_per_rank, double steps, double ranks, double one_us) {
  if (prompts_per_rank <= 0 || steps <= 0 || ranks <= 0) return 0;
  // Each rank starts a prompt in a given step with probability q = prompts / steps (arrivals
  // spread over the cycle, ranks independent); a step pays one prefill when any rank has one.
  const double q = std::min(1.0, prompts_per_rank / steps);
  return steps * (1 - std::pow(1 - q, ranks)) * one_us;
}

std::string Planner::Impl::infeasible_reason(const Strategy& s, PlacementOrder order,
                                             const MemoryPerGpu& mem) const {
  if (req.max_tp_class && s.tp > 1) {
    GroupSummary g = summarize_group(*router, "tp", groups(s, order).tp_groups, false);
    if (g.worst_class > *req.max_tp_class)
      return "TP group uses path class " + std::string(to_string(g.worst_class)) +
             ", worse than --max-tp-class " + std::string(to_string(*req.max_tp_class));
  }
  double usable = mem.capacity_bytes - mem.reserve_bytes;
  double fixed = mem.weights_bytes + mem.activations_bytes + mem.comm_buffers_bytes;
  if (fixed > usable)
    return "weights " + format_GiB(mem.weights_bytes) + " + workspace/buffers " +
           format_GiB(mem.activations_bytes + mem.comm_buffers_bytes) + " exceed " +
           format_GiB(usable) + " usable per GPU";
  double seq = mem.kv_bytes_per_token * req.max_sequence();
  if (mem.kv_capacity_bytes < seq)
    return "KV cache of one " + std::to_string(static_cast<long long>(req.max_sequence())) +
           "-token sequence needs " + format_GiB(seq) + ", only " +
           format_GiB(mem.kv_capacity_bytes) + " left";
  return "";
}

BatchPoint Planner::Impl::batch_point(const Strategy& s, PlacementOrder order, double B) const {
  double A = req.tokens_per_step(), P = req.prompt, O = req.output, G = s.gpus();
  const BatchShape shape = batch_shape(s, B);
  BatchPoint pt;
  pt.batch = B;
  pt.decode = decode_step(s, shape, req.decode_context(), order);
  pt.step_us = pt.decode.total_us();
  pt.tpot_ms = pt.step_us / A / 1e3;
  if (req.mode == PlanMode::Serve) {
    // A newly arrived request: one prompt (one per attention-DP rank, which all run together).
    pt.prefill = prefill(s, batch_shape(s, shape.unit), P, order);
    // Steady state without disaggregation: over a request's life the replica prefills the
    // prompts of its B sequences and runs O / A decode steps for them.
    // Chunks of successive requests keep the pipeline full: the fill overlaps other work.
    TimeBreakdown prompts = prefill(s, shape, P, order);
    double prompts_us = prompts.total_us() - prompts.pipeline_fill_us;
    if (shape.attention_ranks > 1) {
      // Attention DP: each rank admits its own requests as others finish, so prompts reach the
      // ranks one at a time, not all ranks together; a rank's prefill holds up every rank (the
      // MoE all-to-all), so the cycle pays for each step in which any rank prefills.
      const TimeBreakdown one = prefill(s, batch_shape(s, s.dp), P, order);  // one rank's prompt
      prompts_us =
          std::max(prompts_us, staggered_prefill_us(shape.replica / shape.attention_ranks, O / A,
                                                    shape.attention_ranks,
                                                    one.total_us() - one.pipeline_fill_us));
    }
    const double cycle_us = prompts_us + O / A * pt.step_us;
    pt.tokens_per_s = B * O / cycle_us * kUsPerS;
    // TTFT: arrival to first token, so the queueing this throughput implies is part of it.
    pt.prefill.queue_us = serve_queue_us(prompts_us, cycle_us, B, pt.step_us);
    // Per user: the decode speed a streaming client sees, 1000 / TPOT.
    pt.tokens_per_s_per_user = A / pt.step_us * kUsPerS;
  } else {
    pt.prefill = prefill(s, shape, P, order);
    if (req.mode == PlanMode::Decode) {
      pt.tokens_per_s = B * A / pt.step_us * kUsPerS;
      pt.tokens_per_s_per_user = pt.tokens_per_s / B;
    } else {
      pt.tokens_per_s = B * P / pt.prefill.total_us() * kUsPerS;  // input tokens/s
      pt.tokens_per_s_per_user = P / pt.prefill.total_us() * kUsPerS;
    }
  }
  pt.ttft_us = pt.prefill.total_us();
  pt.tokens_per_s_per_gpu = pt.tokens_per_s / G;
  pt.meets_limits = (req.tpot_max_ms <= 0 || pt.tpot_ms <= req.tpot_max_ms) &&
                    (req.ttft_max_ms <= 0 || pt.ttft_us / 1e3 <= req.ttft_max_ms);
  return pt;
}

std::vector<BatchPoint> Planner::Impl::batch_points(const Strategy& s, PlacementOrder order,
                                                    double max_batch, double batch) const {
  const double unit = batch_shape(s, batch).unit;
  std::vector<double> batches;
  if (batch > 0)
    batches = {batch};
  else if (req.mode == PlanMode::Serve)
    batches = serve_batches(unit, max_batch);
  else
    batches = {1};
  std::vector<BatchPoint> out;
  for (double B : batches) out.push_back(batch_point(s, order, B));
  // With a TPOT/TTFT limit the sweep brackets the largest batch within it (TPOT and TTFT grow
  // with the batch); bisect that bracket, in whole units of the sweep, to find it.
  bool limited = req.tpot_max_ms > 0 || req.ttft_max_ms > 0;
  for (std::size_t i = 0; limited && i + 1 < out.size(); ++i) {
    if (!out[i].meets_limits || out[i + 1].meets_limits) continue;
    double lo = out[i].batch, hi = out[i + 1].batch;
    BatchPoint best = out[i];
    while (hi - lo > unit) {
      double mid = lo + std::floor((hi - lo) / unit / 2) * unit;
      BatchPoint pt = batch_point(s, order, mid);
      if (pt.meets_limits) {
        lo = mid;
        best = pt;
      } else {
        hi = mid;
      }
    }
    if (best.batch > out[i].batch)
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(i) + 1, best);
    break;
  }
  return out;
}

PlanResult Planner::Impl::evaluate(const Strategy& s, double batch, PlacementOrder order,
                                   std::vector<BatchPoint>* points) const {
  PlanResult r;
  r.strategy = s;
  r.reason = divisibility_reason(model, s);
  if (!r.reason.empty()) return r;
  r.memory = memory(s);
  r.reason = infeasible_reason(s, order, r.memory);
  if (!r.reason.empty()) return r;
  r.max_batch = max_batch_for(r.memory, s, req.max_sequence());
  if (batch > r.max_batch) {
    r.reason = "batch " + std::to_string(static_cast<long long>(batch)) +
               " exceeds the largest that fits (" +
               std::to_string(static_cast<long long>(r.max_batch)) + ")";
    return r;
  }
  std::vector<BatchPoint> pts = batch_points(s, order, r.max_batch, batch);
  // The best point within the limits; if none, the smallest batch (the fastest per user).
  const BatchPoint* best = nullptr;
  for (const BatchPoint& pt : pts)
    if (pt.meets_limits && (!best || pt.tokens_per_s > best->tokens_per_s)) best = &pt;
  if (!best) best = &pts.front();
  r.fits = true;
  r.meets_limits = best->meets_limits;
  r.batch = best->batch;
  r.memory = memory_at_batch(r.memory, batch_shape(s, r.batch), req.max_sequence());
  r.ttft_ms = best->ttft_us / 1e3;
  r.tpot_ms = best->tpot_ms;
  r.tokens_per_s = best->tokens_per_s;
  r.tokens_per_s_per_gpu = best->tokens_per_s_per_gpu;
  r.tokens_per_s_per_user = best->tokens_per_s_per_user;
  r.decode = best->decode;
  r.prefill = best->prefill;
  if (points) *points = std::move(pts);
  return r;
}

PlanResult Planner::Impl::evaluate_at(const Strategy& s, double batch, PlacementOrder order) const {
  return evaluate(s, batch > 0 ? batch : req.batch, order, nullptr);
}

PlanResult Planner::evaluate(const Strategy& s, double batch) const {
  return impl_->evaluate_at(s, batch, impl_->req.order);
}

PlanResult Planner::evaluate(const Strategy& s, double batch, PlacementOrder order) const {
  return impl_->evaluate_at(s, batch, order);
}

}  // namespace topoplan
