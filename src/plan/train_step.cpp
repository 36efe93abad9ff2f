// One training step of a strategy: per-micro-batch stage time (compute + exposed TP/CP/EP
// communication), the pipeline schedule (bubble, send/recv), data-parallel gradient and parameter
// traffic with Megatron's overlaps, ZeRO-3 gathers, the optimizer and FP8 bookkeeping
// (docs/training.md, "Step time" and "Overlaps").
#include <algorithm>
#include <cmath>

#include "plan/comm_sms.hpp"
#include "plan/train_impl.hpp"

namespace topoplan::train {

namespace {

// Compute and communication of one micro-batch through one pipeline stage (all its chunks).
struct StageMb {
  double fwd = 0, bwd = 0, rc = 0;  // compute
  double tp = 0, tp_hidden = 0, cp = 0, cp_hidden = 0, ep = 0, ep_hidden = 0;
  double layer_fwd = 0, layer_bwd = 0;  // one decoder layer (ZeRO-3 overlap window)
  double wgrad = 0;                     // weight-gradient GEMMs (half the GEMM backward)
  double ub_sm = 0;  // GEMM slowdown beside TE userbuffers' overlap kernels (ub_sm_us)
  double total() const { return fwd + bwd + rc + tp + cp + ep + ub_sm; }
};

double hidden_part(double comm, double window) {
  return std::min(comm, std::max(0.0, window));
}

}  // namespace

// Extra time of one layer's TP linears while TE userbuffers' overlap kernels hold SMs
// (kUb*Sms, comm_sms.hpp; held_sm_slowdown, measured): forward, the row-parallel GEMMs beside
// the pipelined reduce-scatter (ring exchange in FP8, as every FP8 preset has it) and the
// column-parallel ones beside the ring all-gather, `fwd_passes` times; backward (each GEMM's
// dgrad and wgrad, half of kGemmBackward each), the column-parallel dgrad and wgrad beside the
// bulk gather and reduce-scatter, the row-parallel dgrad beside the ring all-gather.
double ub_sm_us(const PassTime& t, bool fp8, double sms, double fwd_passes) {
  const double ring = held_sm_slowdown(kUbRingSms, sms);
  const double row_f = held_sm_slowdown(fp8 ? kUbRingSms : kUbPipelineSms, sms);
  const double bulk = held_sm_slowdown(kUbBulkSms, sms);
  const double half_b = 0.5 * kGemmBackward;
  return fwd_passes * (t.tp_row_gemm_fwd * row_f + t.tp_col_gemm_fwd * ring) +
         half_b * (t.tp_col_gemm_fwd * 2 * bulk + t.tp_row_gemm_fwd * ring);
}

// Per-layer communication and compute of one micro-batch of one stage.
static StageMb stage_mb(const Evaluator& e, const TrainStrategy& s, const StageParams& p,
                        bool first, bool last) {
  const ModelSpec& m = e.bf16;
  const CommPricer& c = e.comm;
  StageMb r;
  const double T = e.req.seq / s.cp * s.micro_batch, h = m.hidden;
  const bool full = s.recompute == Recompute::Full;
  const unsigned modules = s.recompute == Recompute::Selective ? s.recompute_modules : 0;
  const bool tp_overlap_ok = s.tp > 1 && c.in_one_server(1, s.tp);
  const double fwd_passes = full ? 2 : 1;  // full recompute runs each layer's forward again
  // TP: 2 all-reduces per layer per pass, or 2 all-gathers + 2 reduce-scatters with SP
  // (Korthikanti §4.2.2); buffer = T·h bf16.
  double tp_pass = 0;
  if (s.tp > 1) {
    double bytes = T * h * 2;
    tp_pass = s.sp ? 2 * (c.cost(CollOp::AllGather, 1, s.tp, bytes) +
                          c.cost(CollOp::ReduceScatter, 1, s.tp, bytes))
                   : 2 * c.cost(CollOp::AllReduce, 1, s.tp, bytes);
  }
  // CP ring attention (TE AttnFuncWithCPAndKVP2P): cp steps per layer and pass; in each the
  // attention of the chunk in hand runs while the next K/V chunk moves one hop around the ring
  // (send/recv, the slowest hop is the wrap-around one when the ring spans servers). Backward
  // moves K, V and returns dK, dV (twice the bytes). A step lasts the longer of the two.
  double p2p_f = 0, p2p_b = 0;
  if (s.cp > 1) {
    double kv_width;
    if (m.attention == AttentionKind::Mla)
      kv_width = double(m.heads) / s.tp *
                 (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim);
    else
      kv_width = 2 * kv_heads_per_rank(m, Shard{.tp = s.tp}) * m.head_dim;
    double chunk = T * kv_width * 2;
    p2p_f = c.cost(CollOp::SendRecv, (s.cp - 1) * s.tp, 2, chunk);
    p2p_b = c.cost(CollOp::SendRecv, (s.cp - 1) * s.tp, 2, 2 * chunk);
  }
  // EP: dispatch + combine all-to-all per MoE layer per pass; each GPU sends its T/tp tokens'
  // top_k copies (Megatron-Core alltoall dispatcher).
  // With DeepEP (flex dispatcher) a token crosses to each destination GPU / server once.
  double ep_pass = 0;
  if (s.ep > 1 && m.is_moe()) {
    double bytes = T / s.tp * m.moe.top_k * h * 2;
    ep_pass = e.req.deepep ? 2 * c.deepep(s.etp, s.ep, T / s.tp, h * 2, m.moe)
                           : 2 * c.cost(CollOp::AllToAll, s.etp, s.ep, bytes);
  }
  for (int what = 0; what < 2; ++what) {
    int n = what == 0 ? p.layers - p.moe_layers : p.moe_layers;
    if (n == 0) continue;
    PassTime t = e.pass(what, s);
    r.fwd += n * t.fwd;
    r.bwd += n * t.bwd;
    if (full) r.rc += n * t.fwd;
    if (modules) r.rc += n * recompute_fwd_us(t, modules);
    r.wgrad += n * 0.5 * kGemmBackward * t.gemm_fwd;
    r.layer_fwd = std::max(r.layer_fwd, t.fwd);
    r.layer_bwd = std::max(r.layer_bwd, t.bwd);
    // A checkpointed dense MLP or MoE block (selective "mlp" / "moe") re-runs its half of the
    // layer's TP collectives (the gather before its first GEMM, the reduction after its last).
    const bool block_rc = modules & (what == 0 ? kRcMlp : kRcMoe);
    double tp = (fwd_passes + 1 + (block_rc ? 0.5 : 0)) * tp_pass;
    double tp_hidden = 0;
    // Megatron --tp-comm-overlap (TE userbuffers, SP only): AG/RS pipelined with the GEMMs.
    // Userbuffers reach the TP peers through CUDA multicast / IPC handles, which exist only
    // inside one NVLink domain: TE's comm+GEMM overlap is single-node tensor parallelism only
    // (NVIDIA/TransformerEngine issue #1071, maintainer's answer, 2024-08-02), so a TP group
    // across servers hides nothing.
    if (e.req.tp_comm_overlap && s.sp && tp_overlap_ok) {
      tp_hidden = hidden_part(tp, 3 * t.gemm_fwd);
      if (e.gpu.sm_count > 0)
        r.ub_sm += n * ub_sm_us(t, s.precision == TrainPrecision::FP8, e.gpu.sm_count, fwd_passes);
    }
    r.tp += n * (tp - tp_hidden);
    r.tp_hidden += n * tp_hidden;
    if (s.cp > 1) {
      // The ring's time beyond the single attention kernel the compute terms already count:
      // cp − 1 steps of max(step kernels, hop) and the last step's kernels alone.
      auto ring = [&](double step, double hop) { return (s.cp - 1) * std::max(step, hop) + step; };
      double step_f = t.ring_step_attn + t.ring_step_merge;
      double step_b = kAttentionBackward * t.ring_step_attn + t.ring_step_merge;
      double exp_f = std::max(0.0, ring(step_f, p2p_f) - t.attn_fwd);
      double exp_b = std::max(0.0, ring(step_b, p2p_b) - kAttentionBackward * t.attn_fwd);
      double moved = (s.cp - 1) * (fwd_passes * p2p_f + p2p_b);
      double exposed = fwd_passes * exp_f + exp_b;
      r.cp += n * exposed;
      r.cp_hidden += n * std::max(0.0, moved - exposed);
    }
    // Not overlapped (see docs); recomputing the MoE block re-runs its dispatch and combine.
    if (what == 1) r.ep += n * (fwd_passes + 1 + (block_rc ? 1 : 0)) * ep_pass;
  }
  if (first) {
    PassTime t = e.pass(2, s);
    r.fwd += t.fwd, r.bwd += t.bwd;
  }
  if (last) {
    PassTime t = e.pass(3, s);
    r.fwd += t.fwd, r.bwd += t.bwd;
  }
  return r;
}

double Evaluator::lower_bound_us(const TrainStrategy& s) const {
  auto [first, last] = stage_pair(s);
  int m = micro_batches(s, req);
  auto compute = [&](const StageParams& p, bool f, bool l) {
    double t = 0;
    for (int what = 0; what < 2; ++what) {
      int n = what == 0 ? p.layers - p.moe_layers : p.moe_layers;
      if (n == 0) continue;
      PassTime x = pass(what, s);
      t += n * (x.fwd + x.bwd +
                (s.recompute == Recompute::Full        ? x.fwd
                 : s.recompute == Recompute::Selective ? recompute_fwd_us(x, s.recompute_modules)
                                                       : 0));
    }
    if (f) t += pass(2, s).fwd + pass(2, s).bwd;
    if (l) t += pass(3, s).fwd + pass(3, s).bwd;
    return t;
  };
  double t_mb = std::max(compute(first, true, s.pp == 1), compute(last, s.pp == 1, true));
  // DualPipe's bubble is below 1F1B's (pp − 1)·t_mb: the bound keeps none of it.
  return t_mb * (m + (s.dualpipe ? 0.0 : (s.pp - 1.0) / s.vp));
}

TrainPlan Evaluator::evaluate(const TrainStrategy& s) const {
  TrainPlan plan;
  plan.strategy = s;
  plan.micro_batches = micro_batches(s, req);
  plan.memory = memory(s);
  plan.reason = train_memory_problem(plan.memory);
  plan.fits = plan.reason.empty();
  if (!plan.fits) return plan;
  const int m = plan.micro_batches;
  auto [first, last] = stage_pair(s);
  StageMb a = stage_mb(*this, s, first, true, s.pp == 1);
  StageMb crit = a;
  if (s.pp > 1) {
    StageMb b = stage_mb(*this, s, last, false, true);
    if (b.total() > a.total()) crit = b;
  }
  TrainBreakdown& B = plan.breakdown;
  B.forward_us = m * crit.fwd, B.backward_us = m * crit.bwd, B.recompute_us = m * crit.rc;
  B.tp_us = m * crit.tp, B.tp_hidden_us = m * crit.tp_hidden;
  B.cp_us = m * crit.cp, B.cp_hidden_us = m * crit.cp_hidden;
  B.ep_us = m * crit.ep;
  B.comm_sm_us = m * crit.ub_sm;
  B.bubble_us = pipeline_bubble_fraction(s.pp, s.vp, m) * m * crit.total();
  if (s.ep_overlap) {
    // Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm; its guide "Combined
    // 1F1B: Expert-Parallel All-to-All Overlap" and core.pipeline_parallel.combined_1f1b): the
    // forward of one micro-batch runs layer by layer beside the backward of another, each one's
    // dispatch and combine all-to-all behind the other's attention and MLP compute. Only paired
    // passes hide: not the warm-up forwards ((pp − 1)·2 + (vp − 1)·pp chunks of the first stage,
    // Megatron's interleaved warm-up; without PP the first forward) nor the cool-down backwards.
    // The hidden all-to-all holds SMs as DualPipe's does (below).
    const double chunks = double(m) * s.vp;
    const double warmup =
        s.pp > 1 ? std::min(chunks, (s.pp - 1) * 2.0 + (s.vp - 1.0) * s.pp) : std::min(chunks, 1.0);
    const double paired = (chunks - warmup) / chunks;
    const double hidden =
        hidden_part(B.ep_us * paired, paired * (B.forward_us + B.backward_us + B.recompute_us));
    const double sms = gpu.sm_count > 0 ? gpu.sm_count : kH800Sms;
    B.ep_us -= hidden;
    B.ep_hidden_us += hidden;
    B.comm_sm_us += hidden * held_sm_slowdown(kDualPipeCommSms, sms);
  }
  if (s.dualpipe) {
    // DualPipe (DeepSeek-V3 §3.2.1, Table 2): bubble (pp/2 − 1)(F&B + B − 3W), F&B the
    // overlapped forward + backward of two micro-batches (F + B), W the weight-gradient part of
    // B; the EP all-to-all of one direction hides behind the other's compute, on the SMs left
    // to it: DeepSeek-V3 §3.2.2 gives 20 SMs of the H800's 132 to communication.
    const double F = crit.fwd + crit.rc, Bw = crit.bwd;
    B.bubble_us = (s.pp / 2.0 - 1) * std::max(0.0, F + Bw + Bw - 3 * crit.wgrad);
    const double hidden = hidden_part(B.ep_us, B.forward_us + B.backward_us + B.recompute_us);
    const double sms = gpu.sm_count > 0 ? gpu.sm_count : kH800Sms;
    B.ep_us -= hidden;
    B.ep_hidden_us += hidden;
    B.comm_sm_us += hidden * held_sm_slowdown(kDualPipeCommSms, sms);
  }
  // PP send/recv of T·h bf16 (1/tp of it with SP) per micro-batch and chunk boundary, both ways.
  if (s.pp > 1) {
    double bytes = req.seq / s.cp * s.micro_batch * bf16.hidden * 2 / (s.sp ? s.tp : 1);
    double t = comm.cost(CollOp::SendRecv, s.tp * s.cp * s.dp, 2, bytes);
    double all = 2.0 * m * s.vp * t;
    // 1F1B (blocking p2p): every step's send/recv is on the critical path; interleaved with
    // --overlap-p2p-communication: only the warm-up and cool-down transfers are exposed.
    double exposed = s.vp > 1 ? 2.0 * (s.pp - 1) * t : 2.0 * (m + s.pp - 1) * t;
    B.pp_us = exposed;
    B.pp_hidden_us = std::max(0.0, all - exposed);
  }
  // Data parallel (dense params over dp × cp, experts over the expert-data-parallel group).
  const double P_d = std::max(first.dense, last.dense), P_e = std::max(first.expert, last.expert);
  const int dpz = s.dp * s.cp, edp = s.tp * s.cp * s.dp / (s.ep * s.etp);
  const int L = std::max(1, std::max(first.layers, last.layers));
  auto dp_op = [&](CollOp op, double dense_bytes, double expert_bytes) {
    return comm.cost(op, s.tp, dpz, dense_bytes) + comm.cost(op, s.etp * s.ep, edp, expert_bytes);
  };
  // Compute slowdown beside a hidden DP collective: the SMs its NCCL kernel holds (one CTA per
  // runtime channel, nccl_ring_ctas; the more of the dense and expert collectives') taken from
  // the GPU's (held_sm_slowdown, measured; comm_sm_us below).
  auto sm_share = [&](CollOp op, double dense_bytes, double expert_bytes) {
    if (gpu.sm_count <= 0) return 0.0;
    int ch = std::max(comm.ctas(op, s.tp, dpz, dense_bytes),
                      comm.ctas(op, s.etp * s.ep, edp, expert_bytes));
    return held_sm_slowdown(ch, gpu.sm_count);
  };
  // Overlap with the last micro-batch's backward (--overlap-grad-reduce) or the next step's
  // first forward (--overlap-param-gather): all but the last bucket (one layer's) can hide.
  auto overlapped = [&](double c, double window, double share) {
    double h = hidden_part(c * (1 - 1.0 / L), window);
    B.dp_us += c - h;
    B.dp_hidden_us += h;
    B.comm_sm_us += h * share;
  };
  // Parameter all-gathers move bf16 weights, or with --fp8-param-gather the FP8 linear weights
  // (1 B per GEMM parameter; Megatron-LM --fp8-param-gather, torchtitan's float8 FSDP
  // all-gather) and the rest (norms, embedding, router) in bf16.
  const bool fp8_ag = fp8_param_gather(s, req);
  const double G_e = P_e;  // routed-expert parameters are all GEMM weights
  const double G_d = std::min(P_d, std::max(first.gemm - first.expert, last.gemm - last.expert));
  const double ag_bytes_d = fp8_ag ? 2 * P_d - G_d : 2 * P_d;
  const double ag_bytes_e = fp8_ag ? 2 * P_e - G_e : 2 * P_e;
  // Gradients are reduced in their buffer's precision (--grad-reduce: 4 B fp32 or 2 B bf16);
  // parameters are gathered in bf16 (or FP8, above).
  const double gb = grad_bytes_per_param(req);
  if (s.zero == 0)
    overlapped(dp_op(CollOp::AllReduce, gb * P_d, gb * P_e), crit.bwd,
               sm_share(CollOp::AllReduce, gb * P_d, gb * P_e));
  if (s.zero == 1 || s.zero == 2) {
    double rs = dp_op(CollOp::ReduceScatter, gb * P_d, gb * P_e);
    double rs_share = sm_share(CollOp::ReduceScatter, gb * P_d, gb * P_e);
    // ZeRO-2 keeps only a gradient shard, so every micro-batch's gradients are reduced. The
    // reduce-scatter of one micro-batch runs on the communication stream while the next
    // micro-batch's forward and backward compute (the next 1F1B slot, or the next accumulation
    // step without PP): it must finish before that backward writes the same buckets again, so
    // its window is one micro-batch's forward + backward. The last one has only its own
    // backward, as ZeRO-1's single reduce-scatter.
    if (s.zero == 2)
      for (int i = 0; i + 1 < m; ++i) overlapped(rs, crit.fwd + crit.bwd, rs_share);
    overlapped(rs, crit.bwd, rs_share);
    overlapped(dp_op(CollOp::AllGather, ag_bytes_d, ag_bytes_e), crit.fwd,
               sm_share(CollOp::AllGather, ag_bytes_d, ag_bytes_e));
  }
  if (s.zero == 3) {
    // Per layer and micro-batch: gather the layer for its forward and again for its backward,
    // reduce-scatter its gradients; each prefetched behind the previous layer's compute.
    double ag = dp_op(CollOp::AllGather, ag_bytes_d / L, ag_bytes_e / L);
    double rs = dp_op(CollOp::ReduceScatter, gb * P_d / L, gb * P_e / L);
    double n = double(m) * L;
    double ag_exp = std::max(0.0, ag - crit.layer_fwd) + std::max(0.0, ag - crit.layer_bwd);
    B.zero3_us = n * ag_exp + ag;  // the first gather has nothing to hide behind
    B.zero3_hidden_us = n * 2 * ag - n * ag_exp;
    double rs_exp = std::max(0.0, rs - std::max(0.0, crit.layer_bwd - ag));
    B.dp_us = n * rs_exp;
    B.dp_hidden_us = n * (rs - rs_exp);
    B.comm_sm_us +=
        B.zero3_hidden_us * sm_share(CollOp::AllGather, ag_bytes_d / L, ag_bytes_e / L) +
        B.dp_hidden_us * sm_share(CollOp::ReduceScatter, gb * P_d / L, gb * P_e / L);
  }
  // Optimizer (Megatron's mixed-precision step): fused multi-tensor Adam over fp32 main params,
  // main grads, m and v (reads 16 B, writes 12 B per param), then the copy of the updated main
  // params into the bf16 weights (reads 4 B, writes 2 B), plus the gradient-norm read for
  // clipping (2 B): 36 B per local parameter. It streams at a measured fraction of peak HBM.
  double opt_params = P_d / (s.zero >= 1 ? dpz : 1) + P_e / (s.zero >= 1 ? edp : 1);
  double opt_bytes = kOptimizerBytesPerParam * opt_params;
  B.optimizer_us = opt_bytes / (kOptimizerHbmFraction * cm.peak_hbm_GBps() * 1e3);
  if (s.precision == TrainPrecision::FP8) {
    // Transformer Engine per step: cast each linear weight to FP8 and its transpose once (read
    // 2 B, write 2 × 1 B); per micro-batch: the amax-history all-reduce over the data-parallel
    // group (delayed scaling, one fused buffer of ~3 fp32 amaxes per linear).
    double gemm = std::max(first.gemm, last.gemm);
    double cast_bytes = 4 * gemm;
    // With --fp8-param-gather the cast runs on the optimizer's shard (read fp32 4 B, write 1 B)
    // and each GPU builds the transposes of the gathered FP8 weights (read 1 B, write 1 B).
    if (fp8_ag) cast_bytes = 5 * gemm / dpz + 2 * gemm;
    B.fp8_overhead_us = cast_bytes / (cm.achieved_hbm_GBps(cast_bytes) * 1e3);
    B.fp8_overhead_us += m * comm.cost(CollOp::AllReduce, s.tp, dpz, L * 4 * 3 * 4.0);
  }
  B.total_us = B.forward_us + B.backward_us + B.recompute_us + B.tp_us + B.cp_us + B.ep_us +
               B.bubble_us + B.pp_us + B.dp_us + B.zero3_us + B.optimizer_us + B.fp8_overhead_us +
               B.comm_sm_us;
  // Metrics.
  const double step_s = B.total_us * 1e-6;
  const int G = s.gpus();
  plan.step_time_ms = B.total_us / 1e3;
  plan.tokens_per_s = req.global_batch * req.seq / step_s;
  plan.tokens_per_s_per_gpu = plan.tokens_per_s / G;
  double model_flops = training_model_flops(model, req.seq, req.global_batch);
  double extra = 0;  // what recompute executes on top (forward = 1/3 of the model FLOPs)
  if (s.recompute == Recompute::Full) extra = model_flops / 3;
  if (s.recompute == Recompute::Selective && (s.recompute_modules & kRcCoreAttn)) {
    // The attention-score FLOPs (QKᵀ at qk width, AV at v width, all s keys), one forward:
    // 2·G·s²·L·a·(qk + v), a third of their forward + backward in the model count.
    bool mla = model.attention == AttentionKind::Mla;
    double qk = mla ? model.mla.qk_nope_head_dim + model.mla.qk_rope_head_dim : model.head_dim;
    double v = mla ? model.mla.v_head_dim : model.head_dim;
    extra = 2.0 * req.global_batch * req.seq * req.seq * model.layers * model.heads * (qk + v);
  }
  if (s.recompute == Recompute::Selective && (s.recompute_modules & ~kRcCoreAttn)) {
    // The other modules' kernels, as the first stage's GPUs run them (every stage alike).
    const unsigned other = s.recompute_modules & ~kRcCoreAttn;
    double per_gpu = 0;
    for (int what = 0; what < 2; ++what)
      per_gpu += (what == 0 ? first.layers - first.moe_layers : first.moe_layers) *
                 recompute_flops(pass(what, s), other);
    extra += per_gpu * m * G;
  }
  plan.tflops_per_gpu = model_flops / step_s / G / 1e12;
  const double causal_flops = model_flops - training_score_flops(model, req.seq, req.global_batch) +
                              training_score_flops_causal(model, req.seq, req.global_batch);
  plan.tflops_per_gpu_causal = causal_flops / step_s / G / 1e12;
  plan.hw_tflops_per_gpu = (model_flops + extra) / step_s / G / 1e12;
  plan.mfu = plan.tflops_per_gpu / peak_TFLOPS(s.precision);
  if (req.train_tokens > 0) plan.days_to_train = req.train_tokens / plan.tokens_per_s / 86400;
  return plan;
}

}  // namespace topoplan::train
