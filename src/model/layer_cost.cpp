// Per-layer kernels of one GPU: FLOPs (2 per multiply-add), HBM bytes and GEMM shapes for a
// workload and a shard. Derivations: docs/model-format.md, "Per-layer cost".
#include <algorithm>
#include <cmath>

#include "model/kernels.hpp"
#include "model/moe_balance.hpp"
#include "model/params.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

namespace {

using detail::elementwise;
using detail::gemm;

// Fused residual add + norm over `rows` tokens (vLLM `fused_add_rms_norm`, docs/model-format.md
// "Norm"): 4 passes (read residual and input, write both); weights gamma, + beta for LayerNorm.
KernelCost norm_kernel(const ModelSpec& m, const std::string& name, double rows) {
  double weight_elems = m.norm == NormKind::LayerNorm ? 2.0 * m.hidden : m.hidden;
  return elementwise(m, name, rows, m.hidden, 4, weight_elems);
}

// Dynamic activation quantization before a GEMM whose math runs in FP8/INT8/FP4: a separate
// kernel reads the bf16 input and writes it in the GEMM's format, plus one fp32 scale per
// 128-element group when the weights are block-scaled (vLLM/SGLang `per_token_group_quant_fp8`
// before `w8a8_block_fp8_matmul`/DeepGEMM; `scaled_fp8_quant` before `cutlass_scaled_mm`).
// One per distinct input tensor: GEMMs sharing an input share its quantization.
void add_quant(std::vector<KernelCost>& out, const ModelSpec& m, const WeightFormat& f,
               const std::string& name, double rows, double cols) {
  Dtype math = detail::math_dtype(m, f);
  if (math == m.dtypes.activations || rows <= 0) return;
  KernelCost c = elementwise(m, name, rows, cols, 1, 0);  // read the bf16 input once
  c.bytes += rows * cols * element_bytes(math);           // write the quantized copy
  // Activation scales follow the weight blocks along k: 1×128 fp32 groups beside 128×128 FP8
  // weight blocks (DeepSeek-V3 §3.3.2), the weights' own group and scale type for NVFP4 (16,
  // e4m3) and MXFP4 (32, e8m0).
  if (f.scale_block_elems > 0) {
    const bool square = f.scale_block_elems >= 128 * 128;
    c.bytes += rows * cols / std::min(f.scale_block_elems, 128.0) *
               element_bytes(square ? Dtype::FP32 : f.scale_dtype);
  }
  out.push_back(c);
}

// Query-side and per-token quantities of attention on one GPU.
struct AttnLocal {
  double tokens, batch;  // query tokens and sequences on this GPU
  double heads;          // query heads on this GPU
};

// Under attention DP a rank attends whole sequences and every MoE layer's all-to-all (or the
// dense layers' all-gather) waits for the slowest rank, so the busiest rank sets the step: it
// holds at least one whole sequence (one prompt prefilled alone occupies one rank for its whole
// length while the others wait; before 2026-12-04 it was spread as 1/ranks of a prompt per
// rank). From `ranks` sequences on, the mean: the planner's batches are whole multiples of the
// ranks, and a prefill chunk's batch is an average over chunks. The experts' busiest EP rank is
// src/model/moe_balance.cpp.
AttnLocal attn_local(const ModelSpec& m, const Workload& w, const Shard& s) {
  const double ranks = attention_ranks(s);
  const double seqs = ranks > 1 ? std::min(w.batch, std::max(1.0, w.batch / ranks)) : w.batch;
  return {seqs * w.new_tokens, seqs, query_heads_per_rank(m, s)};
}

// Keys attended per sequence with causal masking: new token i (1..S) sees L + i keys.
double attended_keys(const Workload& w) {
  double S = w.new_tokens, L = w.context;
  return S * L + S * (S + 1) / 2;
}

// The same with a window of W keys: token i sees min(L + i, W). The first c = clamp(W − L, 0, S)
// tokens see L + i, the rest W.
double windowed_keys(const Workload& w, double W) {
  double S = w.new_tokens, L = w.context;
  double c = std::clamp(W - L, 0.0, S);
  return c * L + c * (c + 1) / 2 + (S - c) * W;
}

// Averaged over the layers, as the per-layer-type kernels are: full layers attend everything,
// sliding-window layers (a fraction of them) their window.
double layer_keys(const ModelSpec& m, const Workload& w) {
  if (m.sliding_window <= 0 || m.sliding_layers <= 0) return attended_keys(w);
  double f = double(m.sliding_layers) / m.layers;
  return (1 - f) * attended_keys(w) + f * windowed_keys(w, m.sliding_window);
}

// The attention kernel: softmax(QKᵀ)V against L cached plus S new keys per sequence.
// qk/v: per-head dims of scores and values; kv_tok: cache bytes per token of this layer on
// this GPU; extra_act: activation bytes read besides q (new K/V, or decompressed MLA K/V).
KernelCost attention_kernel(const ModelSpec& m, const Workload& w, const AttnLocal& a, double qk,
                            double v, double kv_tok, double extra_act) {
  double act = element_bytes(m.dtypes.activations);
  KernelCost c{.name = "attn", .kind = KernelKind::Attention, .math_dtype = m.dtypes.activations};
  c.flops = 2 * a.heads * (qk + v) * a.batch * layer_keys(m, w);
  // Read the L cached (at most the window on sliding layers), write S new.
  c.kv_bytes = a.batch * (kv_tokens_held(m, w.context) + w.new_tokens) * kv_tok;
  c.bytes = c.kv_bytes + a.tokens * a.heads * (qk + v) * act + extra_act;
  c.m = a.tokens;
  c.n = w.context + w.new_tokens;
  c.k = qk;
  if (w.phase == Phase::Prefill && w.new_tokens > 0) c.mean_keys = layer_keys(m, w) / w.new_tokens;
  return c;
}

void add_mha(std::vector<KernelCost>& out, const ModelSpec& m, const Workload& w, const Shard& s) {
  AttnLocal a = attn_local(m, w, s);
  double kv_heads = kv_heads_per_rank(m, s);
  double d = m.head_dim;
  WeightFormat f = m.dtypes.format(Part::Attention);
  add_quant(out, m, f, "qkv_quant", a.tokens, m.hidden);
  out.push_back(gemm(m, "qkv_proj", a.tokens, (a.heads + 2 * kv_heads) * d, m.hidden, f));
  double kv_tok = 2 * kv_heads * d * element_bytes(m.dtypes.kv_cache);
  double new_kv = a.tokens * 2 * kv_heads * d * element_bytes(m.dtypes.activations);
  // Kernels of their own in vLLM/SGLang's attention path, as in MLA above: the rotary embedding
  // in place on q and k (vLLM `rotary_embedding`, SGLang `RotaryEmbedding.forward_cuda`) and
  // the new k, v written into the paged cache (vLLM `reshape_and_cache_flash`, SGLang
  // `set_kv_buffer`). TensorRT-LLM fuses both into its attention kernel; they are priced here as
  // the default engine runs them. Read and write each element once.
  out.push_back(elementwise(m, "rope", a.tokens, (a.heads + kv_heads) * d, 2, 0));
  KernelCost store = elementwise(m, "kv_store", a.tokens, 2 * kv_heads * d, 1, 0);
  store.bytes += a.tokens * kv_tok;  // the cache's own format on write
  out.push_back(store);
  // Decode reads the new k, v back from the cache (kv_store wrote them there); prefill attends
  // over the projected activations.
  out.push_back(attention_kernel(m, w, a, d, d, kv_tok, w.phase == Phase::Prefill ? new_kv : 0));
  add_quant(out, m, f, "o_quant", a.tokens, a.heads * d);
  out.push_back(gemm(m, "o_proj", a.tokens, m.hidden, a.heads * d, f));
}

// MLA (DeepSeek-V2 arXiv:2405.04434 §2.1). Prefill decompresses the latent with kv_b_proj
// for every key (L + S per sequence) and attends with qk = nope + rope, v = v_head_dim; decode
// absorbs kv_b_proj into the query/output (FlashMLA) and attends in latent space with
// qk = kv_lora + rope, v = kv_lora, so kv_b_proj then costs a GEMM over query tokens only.
void add_mla(std::vector<KernelCost>& out, const ModelSpec& m, const Workload& w, const Shard& s) {
  AttnLocal a = attn_local(m, w, s);
  const MlaSpec& x = m.mla;
  WeightFormat f = m.dtypes.format(Part::Attention);
  double qk = x.qk_nope_head_dim + x.qk_rope_head_dim, latent = x.kv_lora_rank + x.qk_rope_head_dim;
  add_quant(out, m, f, "qkv_a_quant", a.tokens, m.hidden);  // q_a/q and kv_a share the input
  if (x.q_lora_rank > 0) {
    out.push_back(gemm(m, "q_a_proj", a.tokens, x.q_lora_rank, m.hidden, f));
    out.push_back(elementwise(m, "q_a_norm", a.tokens, x.q_lora_rank, 2, x.q_lora_rank));
    add_quant(out, m, f, "q_b_quant", a.tokens, x.q_lora_rank);
    out.push_back(gemm(m, "q_b_proj", a.tokens, a.heads * qk, x.q_lora_rank, f));
  } else {
    out.push_back(gemm(m, "q_proj", a.tokens, a.heads * qk, m.hidden, f));
  }
  out.push_back(gemm(m, "kv_a_proj", a.tokens, latent, m.hidden, f));
  out.push_back(elementwise(m, "kv_a_norm", a.tokens, x.kv_lora_rank, 2, x.kv_lora_rank));
  double kv_tok = latent * element_bytes(m.dtypes.kv_cache);
  double act = element_bytes(m.dtypes.activations);
  double kvb_n = a.heads * (x.qk_nope_head_dim + x.v_head_dim);
  // Kernels of their own in the engine's MLA path (SGLang: the rotary embedding in place on
  // q_pe and k_pe, the latent + k_pe written into the KV cache, and in prefill the concat of
  // k_nope with the broadcast k_pe), measured in one whole H200 layer at 12 / 8 / 24 µs
  // (r1-layer-h200-2026-12-04.json, docs/compute-model.md): read and write each element once.
  out.push_back(elementwise(m, "mla_rope", a.tokens, (a.heads + 1) * x.qk_rope_head_dim, 2, 0));
  KernelCost store = elementwise(m, "mla_kv_store", a.tokens, latent, 1, 0);
  store.bytes += a.tokens * kv_tok;  // the cache's own format on write
  out.push_back(store);
  if (w.phase == Phase::Prefill) {
    double keys = a.batch * (w.context + w.new_tokens);
    add_quant(out, m, f, "kv_b_quant", keys, x.kv_lora_rank);
    out.push_back(gemm(m, "kv_b_proj", keys, kvb_n, x.kv_lora_rank, f));
    out.push_back(elementwise(m, "mla_k_concat", keys, a.heads * qk, 2, 0));
    out.push_back(attention_kernel(m, w, a, qk, x.v_head_dim, kv_tok, keys * kvb_n * act));
  } else {
    // Absorbed decode runs kv_b_proj as two batched GEMMs, one per half of its weights: q_nope
    // into latent space before attention, the latent output back to v after it (SGLang
    // `forward_absorb`: bmm(q_nope, w_kc), bmm(attn_output, w_vc); measured as two cuBLAS
    // kernels in the H200 decode layer, r1-decode-h200-2026-12-04.json).
    out.push_back(gemm(m, "q_absorb", a.tokens, a.heads * x.kv_lora_rank, x.qk_nope_head_dim, f));
    out.push_back(attention_kernel(m, w, a, latent, x.kv_lora_rank, kv_tok, 0));
    out.push_back(gemm(m, "v_absorb", a.tokens, a.heads * x.v_head_dim, x.kv_lora_rank, f));
  }
  add_quant(out, m, f, "o_quant", a.tokens, a.heads * x.v_head_dim);
  out.push_back(gemm(m, "o_proj", a.tokens, m.hidden, a.heads * x.v_head_dim, f));
}

// One MLP (dense or shared expert) on `tokens`, its intermediate split `split` ways.
// `quant_input`: false when the input was already quantized for another GEMM.
void add_mlp(std::vector<KernelCost>& out, const ModelSpec& m, const std::string& prefix,
             double tokens, double inter, double split, Part part, bool quant_input = true) {
  WeightFormat f = m.dtypes.format(part);
  double il = inter / split;
  bool glu = m.mlp == MlpKind::SwiGlu;
  if (quant_input) add_quant(out, m, f, prefix + "_in_quant", tokens, m.hidden);
  out.push_back(
      gemm(m, prefix + (glu ? "_up_gate" : "_up"), tokens, (glu ? 2 : 1) * il, m.hidden, f));
  out.push_back(elementwise(m, prefix + "_act", tokens, il, glu ? 3 : 2, 0));
  add_quant(out, m, f, prefix + "_down_quant", tokens, il);
  out.push_back(gemm(m, prefix + "_down", tokens, m.hidden, il, f));
}

// DeepEP dispatch (attention DP over the whole EP group) feeds DeepGEMM's grouped kernels;
// without it the engine's fused-MoE kernel runs the experts.
bool deepep_moe(const Shard& s) {
  return s.attention_dp && s.ep > 1 && s.ep == s.tp;
}

// Routed experts on one EP shard: T tokens × top_k assignments spread uniformly over E experts.
void add_experts(std::vector<KernelCost>& out, const ModelSpec& m, double T, const Shard& s,
                 bool quant_input) {
  const MoeSpec& e = m.moe;
  // Redundant slots hold copies: a rank runs expert_slots / ep of them and, with the copies
  // sharing their expert's tokens, still T·k / ep assignments on average.
  double local = double(e.expert_slots()) / s.ep, etp = s.effective_expert_tp();
  double assigned = T * e.top_k / s.ep;
  double touched = e.redundant_experts > 0
                       ? moe::busiest_rank_experts(T, e.top_k, e.num_experts, 1, e.expert_slots())
                       : expected_experts_touched(T, e.top_k, e.num_experts, local);
  if (s.ep > 1) {
    // Every EP rank waits for the busiest one at the combine all-to-all, so its expert count
    // (weights read, decode) and its assignments (GEMM rows, prefill) set the layer's time.
    touched = moe::busiest_rank_experts(T, e.top_k, e.num_experts, s.ep, e.expert_slots());
    assigned = moe::busiest_rank_assignments(T, e.top_k, s.ep);
    touched = std::min(touched, assigned);
  }
  if (touched <= 0) return;
  WeightFormat f = m.dtypes.format(Part::RoutedExperts);
  double il = e.expert_intermediate / etp;
  bool glu = m.mlp == MlpKind::SwiGlu;
  KernelCost up = gemm(m, glu ? "experts_up_gate" : "experts_up", assigned / touched,
                       (glu ? 2 : 1) * il, m.hidden, f);
  KernelCost down = gemm(m, "experts_down", assigned / touched, m.hidden, il, f);
  const bool deepep = deepep_moe(s);
  // The fused MoE computes each expert's rows in blocks of BLOCK_SIZE_M (moe_align_block_size
  // pads every expert's token list to a multiple of it); the padded rows cost tensor-core work
  // but are never loaded or stored, so only the flops grow.
  const double rows = assigned / touched;
  const double pad = deepep ? 1 : fused_moe_padded_rows(rows, T) / rows;
  for (KernelCost* c : {&up, &down}) {  // one GEMM per touched expert, launched as one kernel
    c->kind = KernelKind::GroupedGemm;
    c->fused_moe = !deepep;
    c->groups = touched;
    c->flops *= touched * pad;
    c->weight_bytes *= touched;
    c->bytes *= touched;
  }
  // The fused MoE quantizes its own input (SGLang/vLLM `fused_experts` call
  // per_token_group_quant_fp8 on the hidden states) even when the shared experts' linear already
  // did (measured: 44 µs in the whole H200 layer); DeepEP's dispatch carries the FP8 copy.
  // The fused MoE first sorts the assignments by expert and pads each expert's list to its
  // block (vLLM/SGLang `moe_align_block_size`; 3-7 µs in the H200 decode layer); DeepEP's
  // dispatch hands each rank its tokens grouped already.
  if (!deepep) out.push_back(elementwise(m, "moe_align", 1, T * e.top_k, 2, 0));
  if (quant_input || !deepep) add_quant(out, m, f, "experts_in_quant", T, m.hidden);
  out.push_back(up);
  out.push_back(elementwise(m, "experts_act", assigned, il, glu ? 3 : 2, 0));
  add_quant(out, m, f, "experts_down_quant", assigned, il);
  out.push_back(down);
  // The down GEMM writes one row per (token, expert) assignment; a reduction sums each token's
  // top-k rows (vLLM fused_moe `ops.moe_sum(intermediate_cache3.view(M, topk, K), out)`, SGLang
  // `moe_sum_reduce`): reads the assignments, writes the tokens. Under attention DP with the
  // experts spread over the whole group, DeepEP's combine all-to-all does this sum instead.
  if (!deepep && e.top_k > 1)
    out.push_back(elementwise(m, "experts_combine", assigned, m.hidden, 1 + T / assigned, 0));
}

// The routed experts' output plus the shared experts' (DeepseekV2MoE: `final_hidden_states +
// shared_output`, its own kernel; 79 µs in the whole H200 layer): read two, write one. Under
// DeepEP each rank adds its own tokens after the combine; otherwise every rank adds the rows its
// MoE ran on (all T).
void add_shared_sum(std::vector<KernelCost>& out, const ModelSpec& m, double rows) {
  out.push_back(elementwise(m, "experts_shared_add", rows, m.hidden, 3, 0));
}

}  // namespace

double fused_moe_padded_rows(double rows, double tokens) {
  if (rows <= 0) return 0;
  // BLOCK_SIZE_M of the fused MoE's default configs: 16 for a step of at most 64 tokens, else 64
  // (vLLM fused_moe.py get_default_config for block-FP8; SGLang's default is 64). Measured on the
  // H200 at 2 x 4,096 tokens (R1 TP8, 256 rows per expert): 11.6% more rows; this gives 31.5 / 256
  // = 12.3%. Up to one block the efficiency curves, measured at that m on whole tiles, already
  // carry the idle part of the tile; above it an expert's count ends in a partial block: half a
  // block on average (counts spread over the remainders).
  const double block = tokens <= 64 ? 16 : 64;
  return rows > block ? rows + (block - 1) / 2 : rows;
}

double expected_experts_touched(double tokens, int top_k, int experts, double local_experts) {
  if (tokens <= 0 || experts <= 0) return 0;
  // Uniform, independent routing: an expert is missed by one token with probability 1 − k/E.
  double miss = 1.0 - double(top_k) / experts;
  return local_experts * (1.0 - std::pow(miss, tokens));
}

std::vector<KernelCost> layer_kernels(const ModelSpec& m, LayerType t, const Workload& w,
                                      const Shard& s) {
  require_valid_degrees(s);
  std::vector<KernelCost> out;
  AttnLocal a = attn_local(m, w, s);
  out.push_back(norm_kernel(m, "attn_norm", a.tokens));
  if (m.attention == AttentionKind::Mla) {
    add_mla(out, m, w, s);
  } else {
    add_mha(out, m, w, s);
  }
  out.push_back(norm_kernel(m, "mlp_norm", a.tokens));
  double T = w.tokens();  // MLP tokens: the whole replica's (gathered under attention DP)
  if (t == LayerType::Dense) {
    add_mlp(out, m, "mlp", T, m.intermediate, s.tp, Part::DenseMlp);
    return out;
  }
  const MoeSpec& e = m.moe;
  out.push_back(
      gemm(m, "router", a.tokens, e.num_experts, m.hidden, m.dtypes.format(Part::Router)));
  // The gate's scores → each token's top-k experts and weights, a kernel of its own in every
  // engine (vLLM `topk_softmax`, SGLang `biased_grouped_topk`; 5.2 µs at batch 1 in the H200
  // decode layer): reads the scores, writes k ids and weights.
  out.push_back(elementwise(m, "topk", a.tokens, e.num_experts, 1, 0));
  bool shared = e.num_shared_experts > 0;
  if (shared) {
    add_mlp(out, m, "shared", T, shared_experts_intermediate(m), s.tp, Part::SharedExperts);
  }
  // The routed experts read the hidden states the shared experts' quantization produced (when
  // both run in the same format).
  bool same = shared && detail::math_dtype(m, m.dtypes.format(Part::SharedExperts)) ==
                            detail::math_dtype(m, m.dtypes.format(Part::RoutedExperts));
  add_experts(out, m, T, s, !same);
  if (shared) add_shared_sum(out, m, deepep_moe(s) ? a.tokens : T);
  return out;
}

std::vector<KernelCost> head_kernels(const ModelSpec& m, const Workload& w, const Shard& s) {
  require_valid_degrees(s);
  std::vector<KernelCost> out;
  AttnLocal a = attn_local(m, w, s);
  WeightFormat emb = m.dtypes.format(Part::Embedding);
  double act = element_bytes(m.dtypes.activations);
  // Vocab-parallel gather: each rank reads the rows it owns (1/tp of them on average).
  KernelCost g{
      .name = "embedding", .kind = KernelKind::Embedding, .math_dtype = m.dtypes.activations};
  g.weight_bytes = a.tokens / s.tp * m.hidden * emb.bytes_per_element();
  g.bytes = g.weight_bytes + a.tokens * m.hidden * act;
  g.m = a.tokens;
  out.push_back(g);
  out.push_back(norm_kernel(m, "final_norm", a.tokens));
  double logits = w.logit_rows();
  Part head = m.tied_embeddings ? Part::Embedding : Part::LmHead;
  out.push_back(
      gemm(m, "lm_head", logits, double(m.vocab) / s.tp, m.hidden, m.dtypes.format(head)));
  return out;
}

KernelCost total_cost(const std::vector<KernelCost>& kernels, const std::string& name) {
  KernelCost t{.name = name};
  for (const auto& k : kernels) {
    t.flops += k.flops;
    t.bytes += k.bytes;
    t.weight_bytes += k.weight_bytes;
    t.kv_bytes += k.kv_bytes;
  }
  return t;
}

}  // namespace topoplan
