// Memory per GPU of a training strategy: parameters, gradients and Adam states per ZeRO stage,
// stored activations of the in-flight micro-batches, buffers and the framework reserve
// (docs/training.md, "Memory per GPU").
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "plan/train_impl.hpp"
#include "topoplan/dtype.hpp"
#include "topoplan/units.hpp"

namespace topoplan {

namespace {

// 4 MiB NCCL_BUFFSIZE × 32 channels × 2 (send, recv) per communicator this GPU joins (NCCL docs;
// 32 channels as in docs/planner.md "NCCL buffers").
constexpr double kNcclBytesPerComm = 4.0 * 1048576 * 32 * 2;

// Stored activations of the MLP block per token copy, excluding its input: SwiGLU keeps the
// gate/up output (2I) and the fc2 input (I); GELU the fc1 output and the fc2 input (I each).
double mlp_inner_elems(const ModelSpec& m, double inter) {
  return m.mlp == MlpKind::SwiGlu ? 3 * inter : 2 * inter;
}

// Per-token widths of q, k and v (whole layer, before the TP split).
struct QkvWidths {
  double q = 0, kv = 0, out = 0;
};
QkvWidths qkv_widths(const ModelSpec& m) {
  if (m.attention == AttentionKind::Mla) {
    double qk = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    // Decompressed K (nope + rope) and V per head; q per head; o_proj input = heads × v.
    return {m.heads * qk, m.heads * (qk + m.mla.v_head_dim) / 2,
            double(m.heads) * m.mla.v_head_dim};
  }
  return {double(m.heads) * m.head_dim, double(m.kv_heads) * m.head_dim,
          double(m.heads) * m.head_dim};
}

}  // namespace

double train_activation_bytes_per_layer(const ModelSpec& m, const TrainStrategy& s, double seq,
                                        bool flash, bool dropout, LayerType type) {
  // Korthikanti et al. 2022 (arXiv:2205.05198) §4.1 with the model's own widths; 2 B per
  // element (bf16), dropout masks 1 B. T = tokens of one micro-batch on this CP rank.
  const double T = seq / s.cp * s.micro_batch, h = m.hidden, t = s.tp;
  const double repl_div = s.sp ? t : 1;  // without SP these are replicated on every TP rank
  if (s.recompute == Recompute::Full) return 2 * T * h / repl_div;  // the layer input only
  // Selective recompute drops what its modules re-create (Megatron-Core recompute_modules).
  const unsigned rc = s.recompute == Recompute::Selective ? s.recompute_modules : 0;
  // Replicated without SP: two norm inputs (4h), QKV input (2h), MLP input (2h), dropout masks;
  // the QKV and MLP inputs are the two norms' outputs, which "layernorm" discards.
  double repl = T * ((rc & kRcLayernorm ? 4 : 8) * h + (dropout ? 2 * h : 0));
  QkvWidths w = qkv_widths(m);
  // Q, K, V and the o_proj input; "mla_up_proj" discards MLA's up-projected Q, K, V.
  const bool up_proj_rc = m.attention == AttentionKind::Mla && (rc & kRcMlaUpProj);
  double attn = T * 2 * ((up_proj_rc ? 0 : w.q + 2 * w.kv) + w.out) / t;
  if (m.attention == AttentionKind::Mla) {
    // MLA's compressed path (DeepSeek-V2 §2.1.2): the down-projections' outputs (q_lora_rank,
    // kv_lora_rank + the shared RoPE key) and their norms' outputs, which feed the up-projections
    // (kept for their weight gradients and for the mla_up_proj recompute). Replicated like the
    // norm inputs (Megatron's down-projections are not split by TP).
    double lora = m.mla.q_lora_rank + m.mla.kv_lora_rank;
    repl += T * 2 * (2 * lora + m.mla.qk_rope_head_dim);
  }
  double a = double(m.heads) / t;
  double core = 0;
  if (flash)
    core = 4 * a * T;  // fp32 log-sum-exp per head and token (FlashAttention-2 backward)
  else if (!(rc & kRcCoreAttn))
    core = (dropout ? 5 : 2) * a * T * seq;  // softmax output 2as²b (+ mask as²b, dropout 2as²b)
  double mlp = 0;
  if (type == LayerType::Moe) {
    // Each token is copied to top_k experts; the copies a GPU stores: T·k·etp/tp (the TP group's
    // T tokens spread over its tp GPUs, replicated etp ways inside an expert's TP group).
    // "moe_act" discards the activation's output (the fc2 input, I per copy); "moe" keeps the
    // MoE layer's input only (already counted as the MLP input).
    double copies = T * m.moe.top_k * s.etp / t;
    double inner = mlp_inner_elems(m, m.moe.expert_intermediate) -
                   (rc & kRcMoeAct ? m.moe.expert_intermediate : 0);
    double routed = copies * 2 * (h + inner / s.etp);
    double shared = T * 2 * mlp_inner_elems(m, shared_experts_intermediate(m)) / t;
    if (rc & kRcSharedExperts) shared = 0;
    mlp = rc & kRcMoe ? 0 : routed + shared;
  } else {
    mlp = rc & kRcMlp ? 0 : T * 2 * mlp_inner_elems(m, m.intermediate) / t;
  }
  return repl / repl_div + attn + core + mlp;
}

double train_in_flight(const TrainStrategy& s, int micro_batches) {
  double m = micro_batches;
  // Combined 1F1B runs a forward chunk beside a backward one: one chunk more in flight
  // (Megatron-Core docs: the schedule costs activation memory).
  if (s.pp == 1) return s.ep_overlap ? std::min(2.0, m) : 1;
  // DualPipe holds pp + 1 micro-batches' activations (DeepSeek-V3 Table 2).
  if (s.dualpipe) return std::min<double>(s.pp + 1, m);
  if (s.ep_overlap) return std::min(s.pp + (s.pp - 1.0) / s.vp + 1.0 / s.vp, m);
  if (s.vp <= 1) return std::min<double>(s.pp, m);
  // Interleaved 1F1B: (pp − 1)·2 + (vp − 1)·pp + 1 warm-up chunks of L/(pp·vp) layers each.
  return std::min(s.pp + (s.pp - 1.0) / s.vp, m);
}

double pipeline_bubble_fraction(int pp, int vp, int micro_batches) {
  return (pp - 1.0) / (std::max(vp, 1) * double(micro_batches));
}

namespace train {

TrainMemory memory_from(const ModelSpec& m, const TrainStrategy& s, const TrainRequest& q,
                        double capacity_bytes, const StageParams& first, const StageParams& last,
                        int micro_batches) {
  const double dpz = double(s.dp) * s.cp;                          // ZeRO shards over dp × cp
  const double edp = double(s.tp) * s.cp * s.dp / (s.ep * s.etp);  // expert data parallel
  auto state = [&](const StageParams& p, bool is_last) {
    TrainMemory r;
    double w_div_d = s.zero >= 3 ? dpz : 1, w_div_e = s.zero >= 3 ? edp : 1;
    r.weights_bytes = 2 * (p.dense / w_div_d + p.expert / w_div_e);
    // TE keeps an FP8 copy of each linear weight and its transpose (Hopper FP8 GEMMs need
    // K-major operands), cached across the micro-batches of a step.
    // With --fp8-param-gather the FP8 copy is the parameter: the bf16 weight of each linear layer
    // is not kept (Megatron-LM --fp8-param-gather, TE fp8_model_init), 2 B per GEMM parameter
    // fewer.
    if (s.precision == TrainPrecision::FP8) r.weights_bytes += 2 * p.gemm / w_div_d;
    if (fp8_param_gather(s, q)) r.weights_bytes -= 2 * p.gemm / w_div_d;
    // torchtitan's FSDP2 keeps each parameter's shard in its original fp32 and casts to bf16
    // only for the all-gather (PyTorch fully_shard MixedPrecisionPolicy: "FSDP ... keeps the
    // high-precision sharded parameters in memory anyway ... does not require any extra memory
    // to keep a high-precision copy of the parameters for the optimizer step"): under ZeRO-3 the
    // shard is the optimizer's fp32 master (its 12 B), and no bf16 shard is held.
    if (s.zero >= 3 && q.engine == "torchtitan")
      r.weights_bytes -= 2 * (p.dense / w_div_d + p.expert / w_div_e);
    double g_div_d = s.zero >= 2 ? dpz : 1, g_div_e = s.zero >= 2 ? edp : 1;
    // The gradient buffer in the reduction's precision (--grad-reduce): Megatron's main_grad is
    // fp32 by default for bf16 training (its distributed-optimizer guide: 6 + 12/d B per
    // parameter for "bf16 param, fp32 grads"), bf16 where the recipe reduces in bf16.
    r.grads_bytes = grad_bytes_per_param(q) * (p.dense / g_div_d + p.expert / g_div_e);
    // DualPipe keeps two copies of the model's parameters (each GPU holds a stage of both
    // directions, DeepSeek-V3 §3.2.1): twice the weights and gradients; one optimizer state.
    if (s.dualpipe) r.weights_bytes *= 2, r.grads_bytes *= 2;
    double o_div_d = s.zero >= 1 ? dpz : 1, o_div_e = s.zero >= 1 ? edp : 1;
    r.optimizer_bytes = 12 * (p.dense / o_div_d + p.expert / o_div_e);
    // Activations: the first stage's layers for every in-flight micro-batch; the last stage's
    // fp32 logits of one micro-batch (Korthikanti §4.1: 4sbv/t for the output layer and loss).
    double in_flight = is_last && s.pp > 1 ? 1 : train_in_flight(s, micro_batches);
    int dense_layers = p.layers - p.moe_layers;
    double per_mb = dense_layers * train_activation_bytes_per_layer(m, s, q.seq, q.flash_attention,
                                                                    q.dropout, LayerType::Dense) +
                    p.moe_layers * train_activation_bytes_per_layer(m, s, q.seq, q.flash_attention,
                                                                    q.dropout, LayerType::Moe);
    r.in_flight = in_flight;
    r.activations_bytes = per_mb * in_flight;
    if (s.recompute == Recompute::Full) {
      // The layer being recomputed holds its full activations during its backward.
      TrainStrategy none = s;
      none.recompute = Recompute::None;
      r.activations_bytes +=
          train_activation_bytes_per_layer(m, none, q.seq, q.flash_attention, q.dropout,
                                           p.moe_layers > 0 ? LayerType::Moe : LayerType::Dense);
    }
    double tokens = q.seq / s.cp * s.micro_batch;
    if (is_last) r.activations_bytes += 4 * tokens * m.vocab / s.tp;
    // Buffers: ZeRO-3 holds two gathered layers (current + prefetch); NCCL buffers per
    // communicator (tp, cp, dp, pp, ep) of more than one rank.
    if (s.zero >= 3) r.buffers_bytes += 2 * 2 * p.layer;
    int comms = (s.tp > 1) + (s.cp > 1) + (s.dp * s.cp > 1) + (s.pp > 1) + (s.ep > 1);
    r.buffers_bytes += comms * kNcclBytesPerComm;
    r.reserve_bytes = q.reserve_bytes;
    r.capacity_bytes = capacity_bytes;
    return r;
  };
  TrainMemory a = state(first, s.pp == 1), b = s.pp > 1 ? state(last, true) : a;
  return a.total() >= b.total() ? a : b;
}

}  // namespace train

std::string train_memory_problem(const TrainMemory& mem) {
  double over = mem.total() - mem.capacity_bytes;
  if (over <= 0) return "";
  struct Term {
    const char* name;
    double bytes;
  } terms[] = {{"activations", mem.activations_bytes},
               {"optimizer states", mem.optimizer_bytes},
               {"weights", mem.weights_bytes},
               {"gradients", mem.grads_bytes},
               {"buffers", mem.buffers_bytes}};
  const Term* big = &terms[0];
  for (const Term& t : terms)
    if (t.bytes > big->bytes) big = &t;
  char buf[200];
  std::snprintf(
      buf, sizeof buf,
      "memory: %.1f GiB needed > %.1f GiB (exceeds by %.1f GiB; largest term %s %.1f GiB)",
      mem.total() / kGiB, mem.capacity_bytes / kGiB, over / kGiB, big->name, big->bytes / kGiB);
  return buf;
}

}  // namespace topoplan
