// Compute time of one micro-batch on one GPU: the model layer's kernels of the local shard at
// training shapes, priced by the compute model, with backward and recompute multipliers
// (docs/training.md, "Step time").
#include <algorithm>

#include "plan/train_impl.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology.hpp"

namespace topoplan::train {

namespace {

const GpuSpec& first_gpu(const Router& r) {
  const Topology& t = r.topology();
  return t.uniform_gpu_spec("a training plan");
}

bool starts_with(const std::string& s, const char* p) {
  return s.rfind(p, 0) == 0;
}

// An FP8 activation cast (add_quant's kernels) or a MoE token permutation: its backward is one
// pass over the same bytes (the gradient's cast; the inverse permutation).
bool is_cast(const KernelCost& k) {
  return k.name.find("quant") != std::string::npos;
}
bool runs_once_backward(const KernelCost& k) {
  return is_cast(k) || starts_with(k.name, "moe_permute") || starts_with(k.name, "moe_sort");
}

double backward_factor(const KernelCost& k) {
  if (runs_once_backward(k)) return 1.0;
  switch (k.kind) {
    case KernelKind::Gemm:
    case KernelKind::GroupedGemm:
      return kGemmBackward;
    case KernelKind::Attention:
      return kAttentionBackward;
    default:
      return kOtherBackward;
  }
}

// Kernels the backward launches per forward kernel: a GEMM's data and weight gradients; flash
// attention's dO·O row-sum preprocessing and the main kernel (FlashAttention-2 and cuDNN); one
// for the rest.
double backward_kernels(const KernelCost& k) {
  bool two = k.kind == KernelKind::Gemm || k.kind == KernelKind::GroupedGemm ||
             k.kind == KernelKind::Attention;
  return two && !is_cast(k) ? 2 : 1;
}

// The selective-recompute module (RecomputeModule bit index) whose recompute re-runs kernel k of a
// decoder layer, or -1 (Megatron-Core: core_attn the attention kernel, layernorm the two
// pre-norms, moe_act the routed experts' activation, mla_up_proj the q/kv up-projections, their
// input casts, the K assembly and RoPE, mlp the dense MLP, shared_experts the shared experts).
int module_of(const KernelCost& k) {
  const std::string& n = k.name;
  if (k.kind == KernelKind::Attention) return 0;
  if (n == "attn_norm" || n == "mlp_norm") return 1;
  if (n == "experts_act") return 2;
  if (starts_with(n, "q_b_") || starts_with(n, "kv_b_") || n == "mla_k_concat" || n == "mla_rope")
    return 3;
  if (starts_with(n, "mlp_")) return 4;
  if (starts_with(n, "shared_")) return 5;
  return -1;
}

// The MoE block's kernels (the "moe" module): router, top-k, token permutations, experts and
// shared experts.
bool in_moe_block(const KernelCost& k) {
  const std::string& n = k.name;
  return n == "router" || n == "topk" || starts_with(n, "moe_") || starts_with(n, "experts") ||
         starts_with(n, "shared_");
}

// Training runs eagerly (Megatron-LM and TE without CUDA graphs): the host issues one kernel per
// eager_launch_us and runs ahead of the GPU while kernels are longer, so a pass lasts the larger
// of its GPU time and its launches (the queue's two bounds; docs/training.md, "Step time").
void accumulate(PassTime& p, const ComputeModel& cm, const std::vector<KernelCost>& ks) {
  double gpu_f = 0, gpu_b = 0, n_f = 0, n_b = 0;
  for (const KernelCost& k : ks) {
    double t = cm.kernel_time_us(k);
    gpu_f += t;
    gpu_b += t * backward_factor(k);
    n_f += 1;
    n_b += backward_kernels(k);
    if (k.kind == KernelKind::Attention) p.attn_fwd += t;
    if (k.kind == KernelKind::Gemm || k.kind == KernelKind::GroupedGemm) p.gemm_fwd += t;
    if (k.name == "qkv_proj" || k.name == "mlp_up_gate" || k.name == "mlp_up")
      p.tp_col_gemm_fwd += t;
    if (k.name == "o_proj" || k.name == "mlp_down") p.tp_row_gemm_fwd += t;
    if (is_cast(k)) p.fp8_cast += t;
    if (int mod = module_of(k); mod >= 0) p.module_fwd[mod] += t, p.module_flops[mod] += k.flops;
    if (in_moe_block(k)) p.module_fwd[6] += t, p.module_flops[6] += k.flops;
  }
  const double launch = cm.eager_launch_us();
  p.fwd += std::max(gpu_f, n_f * launch);
  p.bwd += std::max(gpu_b, n_b * launch);
}

// The LM head over every token (training computes all logits) and the fused cross-entropy:
// read bf16 logits, write fp32 softmax and its gradient (Megatron's vocab-parallel loss).
std::vector<KernelCost> lm_head_kernels(const ModelSpec& m, double tokens, int tp) {
  double v = double(m.vocab) / tp, h = m.hidden;
  KernelCost g{.name = "lm_head", .kind = KernelKind::Gemm, .math_dtype = Dtype::BF16};
  g.flops = 2 * tokens * v * h;
  g.weight_bytes = v * h * 2;
  g.bytes = g.weight_bytes + tokens * h * 2 + tokens * v * 2;
  g.m = tokens, g.n = v, g.k = h;
  KernelCost loss{.name = "cross_entropy", .kind = KernelKind::Elementwise};
  loss.bytes = tokens * v * (2 + 4);
  return {g, loss};
}

// Megatron-Core's alltoall token dispatcher (MoEAlltoAllTokenDispatcher, megatron/core/
// transformer/moe/token_dispatcher.py) moves every (token, expert) row through HBM around the
// experts: `permute` before the dispatch all-to-all (gathers each of the GPU's tokens top-k times
// into expert order: read and write rows × h), and, with several local experts behind EP,
// `sort_chunks_by_idxs` after the dispatch and again before the combine (read and write the
// received rows). The `unpermute` after the combine (weighted sum of a token's k rows) is the
// experts_combine kernel of the layer. bf16 rows; the backward of a permutation is the inverse
// permutation, the same bytes once (backward_factor).
void add_token_permutes(std::vector<KernelCost>& ks, const ModelSpec& m, double tokens,
                        const TrainStrategy& s) {
  const double rows = tokens * m.moe.top_k, bytes = rows * m.hidden * 2 * 2;
  auto kernel = [&](const char* name) {
    KernelCost k{.name = name, .kind = KernelKind::Elementwise};
    k.bytes = bytes;
    return k;
  };
  ks.push_back(kernel("moe_permute"));
  if (s.ep > 1 && m.moe.num_experts / s.ep > 1) {
    ks.push_back(kernel("moe_sort_chunks"));
    ks.push_back(kernel("moe_sort_chunks_back"));
  }
}

// Unfused attention (Megatron-LM before FlashAttention): the b·(a/t)·(s/cp)·s score matrix goes
// through HBM. Per element, forward: the QKᵀ GEMM writes it (2 B), the fused scale-mask-softmax
// reads and writes it (4 B), the AV GEMM reads it (2 B); with attention dropout also the dropout
// pass (read 2, write 2, mask 1 B). The GEMM FLOPs stay in the attention kernel.
KernelCost unfused_scores(const ModelSpec& m, const TrainStrategy& s, const TrainRequest& q) {
  double elems = double(m.heads) / s.tp * s.micro_batch * (q.seq / s.cp) * q.seq;
  KernelCost k{.name = "attn_scores_unfused", .kind = KernelKind::Elementwise};
  k.bytes = elems * (q.dropout ? 13 : 8);
  return k;
}

// Bits whose kernels another selected module already re-runs: "moe" contains moe_act and
// shared_experts.
unsigned distinct_modules(unsigned modules) {
  return modules & kRcMoe ? modules & ~(kRcMoeAct | kRcSharedExperts) : modules;
}

}  // namespace

double recompute_fwd_us(const PassTime& p, unsigned modules) {
  double t = 0;
  for (int i = 0; i < 7; ++i)
    if (distinct_modules(modules) & (1u << i)) t += p.module_fwd[i];
  return t;
}

double recompute_flops(const PassTime& p, unsigned modules) {
  double f = 0;
  for (int i = 0; i < 7; ++i)
    if (distinct_modules(modules) & (1u << i)) f += p.module_flops[i];
  return f;
}

// A GEMM input quantized for training is used rowwise by fprop and columnwise by wgrad, an
// output gradient rowwise by dgrad and columnwise by wgrad (Transformer Engine, "Performance
// Considerations: Handling transposes", docs/features/low_precision_training/): on Hopper and
// Ada an FP8 columnwise usage is a physically transposed copy, and block-scaled formats
// (MXFP8, 1×128 blocks) quantize it along the other dimension with scales of its own; only
// per-tensor FP8 on Blackwell reads one copy both ways. TE writes both in the cast kernel (its
// fused cast-transpose), so each such cast writes its quantized output twice; the gradient's
// cast in the backward likewise (runs_once_backward: the same bytes).
void add_columnwise_copies(std::vector<KernelCost>& ks, const GpuSpec& gpu) {
  for (KernelCost& k : ks) {
    if (!is_cast(k) || k.m <= 0 || k.n <= 0) continue;
    // add_quant's bytes: the bf16 input read once, the 1-B FP8 copy written, and any scales.
    // Whole-number doubles well below 2^53, so the subtraction and comparison are exact.
    const double read = k.m * k.n * element_bytes(Dtype::BF16);
    const double written = k.bytes - read;
    const bool block_scaled = written > k.m * k.n * element_bytes(Dtype::FP8);
    if (gpu.sm_version < 100 || block_scaled) k.bytes += written;
  }
}

// One step of ring attention (Transformer Engine's AttnFuncWithCPAndKVP2P, which Megatron-Core
// runs for --context-parallel-size > 1): the local T queries against one peer's K/V chunk. With
// the load-balanced split every step covers T²/2 query-key pairs (TE: the full local q against
// half of the peer's chunk, or half the q against all of it), the pairs of a causal prefill of T
// tokens, so the step is priced as that attention kernel. Each step's partial output is merged
// into the running result with its log-sum-exp (TE's flash_attn_fwd_out_correction): read the
// step's bf16 output, read and write the fp32 accumulator, 10 B per output element.
void Evaluator::ring_step(PassTime& p, const ModelSpec& m, LayerType t, const TrainStrategy& s,
                          double local, const Shard& sh) const {
  Workload w{
      .phase = Phase::Prefill, .batch = double(s.micro_batch), .new_tokens = local, .context = 0};
  for (const KernelCost& k : layer_kernels(m, t, w, sh))
    if (k.kind == KernelKind::Attention) p.ring_step_attn += cm.kernel_time_us(k);
  double v = m.attention == AttentionKind::Mla ? m.mla.v_head_dim : m.head_dim;
  KernelCost merge{.name = "cp_out_correction", .kind = KernelKind::Elementwise};
  merge.bytes = w.tokens() * double(m.heads) / s.tp * v * 10;
  p.ring_step_merge = cm.kernel_time_us(merge);
}

Evaluator::Evaluator(const ModelSpec& m, const Router& r, const TrainRequest& q)
    : model(m),
      bf16(as_trained(m, TrainPrecision::BF16)),
      fp8(as_trained(m, TrainPrecision::FP8)),
      router(&r),
      req(q),
      gpus(q.gpus > 0 ? q.gpus : static_cast<int>(r.topology().gpus().size())),
      gpu(first_gpu(r)),
      cm(ComputeModel::for_gpu(gpu)),
      comm(r, gpus, q.comm_tuning ? *q.comm_tuning : NcclTuning::builtin()) {}

double Evaluator::peak_TFLOPS(TrainPrecision p) const {
  return cm.peak_TFLOPS(p == TrainPrecision::FP8 ? Dtype::FP8 : Dtype::BF16);
}

std::pair<StageParams, StageParams> Evaluator::stage_pair(const TrainStrategy& s) const {
  const ModelSpec& m = s.precision == TrainPrecision::FP8 ? fp8 : bf16;
  auto key = std::make_tuple(s.tp, s.ep, s.etp, s.pp, 0);
  auto it = params_cache.find(key);
  if (it != params_cache.end()) return it->second;
  auto v = std::make_pair(stage_params(m, s, 0), stage_params(m, s, s.pp - 1));
  return params_cache.emplace(key, v).first->second;
}

TrainMemory Evaluator::memory(const TrainStrategy& s) const {
  auto [first, last] = stage_pair(s);
  return memory_from(bf16, s, req, gpu.usable_memory_bytes(), first, last, micro_batches(s, req));
}

PassTime Evaluator::pass(int what, const TrainStrategy& s) const {
  auto key = std::make_tuple(what, s.tp, s.cp, s.ep * 1000 + s.etp, s.micro_batch,
                             static_cast<int>(s.precision), s.sp);
  auto it = pass_cache.find(key);
  if (it != pass_cache.end()) return it->second;
  const ModelSpec& m = s.precision == TrainPrecision::FP8 ? fp8 : bf16;
  // One CP rank holds seq/cp query tokens; with Megatron's load-balanced causal split (2·cp
  // chunks) it attends to the keys of 1/cp of the causal triangle: context (seq − seq/cp)/2
  // makes attended_keys() equal seq²/(2cp).
  const double local = req.seq / s.cp;
  Workload w{.phase = Phase::Prefill,
             .batch = double(s.micro_batch),
             .new_tokens = local,
             .context = (req.seq - local) / 2};
  Shard sh{.tp = s.tp, .ep = s.ep, .expert_tp = s.etp};
  PassTime p;
  if (what == 0 || what == 1) {
    LayerType t = what == 0 ? LayerType::Dense : LayerType::Moe;
    std::vector<KernelCost> ks = layer_kernels(m, t, w, sh), mine;
    if (t == LayerType::Moe) {
      // EP spans data-parallel ranks: a GPU's experts receive T·k·etp/tp copies (ep peers each
      // send 1/ep of theirs), which the serving shard (EP inside TP) sees at T' = T·ep·etp/tp.
      Workload we = w;
      we.batch = w.batch * double(s.ep) * s.etp / s.tp;
      std::vector<KernelCost> ke = layer_kernels(m, t, we, sh);
      for (const KernelCost& k : ks)
        if (!starts_with(k.name, "experts")) mine.push_back(k);
      for (const KernelCost& k : ke)
        if (starts_with(k.name, "experts")) mine.push_back(k);
      ks = std::move(mine);
      add_token_permutes(ks, m, w.tokens() / s.tp, s);
    }
    // Training keeps no KV cache: the serving engine's cache writes are not run.
    std::erase_if(
        ks, [](const KernelCost& k) { return k.name == "kv_store" || k.name == "mla_kv_store"; });
    if (s.precision == TrainPrecision::FP8) add_columnwise_copies(ks, gpu);
    if (!req.flash_attention) ks.push_back(unfused_scores(m, s, req));
    accumulate(p, cm, ks);
    if (s.cp > 1) ring_step(p, m, t, s, local, sh);
  } else {
    std::vector<KernelCost> head = head_kernels(m, w, sh);
    if (what == 2) {
      accumulate(p, cm, {head.front()});
    } else {
      std::vector<KernelCost> ks = {head[1]};  // final norm
      for (const KernelCost& k : lm_head_kernels(m, w.tokens(), s.tp)) ks.push_back(k);
      accumulate(p, cm, ks);
    }
  }
  return pass_cache.emplace(key, p).first->second;
}

}  // namespace topoplan::train
