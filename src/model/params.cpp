// Parameter counting from the architecture. Shapes follow the Hugging Face implementations
// (LlamaForCausalLM, Qwen2/Qwen3MoE, MixtralForCausalLM, DeepseekV3ForCausalLM, GPT-2 style
// for GPT-3); see docs/model-format.md for each term.
#include "model/params.hpp"

#include <numeric>

#include "topoplan/model.hpp"

namespace topoplan {

namespace {

void add(ParamBreakdown& b, Part p, double n) {
  b.by_part[static_cast<std::size_t>(p)] += n;
}

double norm_params(const ModelSpec& m, double dim) {
  return m.norm == NormKind::LayerNorm ? 2 * dim : dim;  // LayerNorm: gain + bias
}

// One MLP of intermediate size `inter`: SwiGLU gate+up+down, GELU up+down (+ biases).
double mlp_params(const ModelSpec& m, double inter) {
  double h = m.hidden;
  if (m.mlp == MlpKind::SwiGlu) return 3 * h * inter + (m.linear_bias ? 2 * inter + h : 0);
  return 2 * h * inter + (m.linear_bias ? inter + h : 0);
}

}  // namespace

double ParamBreakdown::sum() const {
  return std::accumulate(by_part.begin(), by_part.end(), 0.0);
}

AttentionShapes attention_shapes(const ModelSpec& m) {
  AttentionShapes a;
  double h = m.hidden, H = m.heads;
  if (m.attention == AttentionKind::Mla) {
    const auto& x = m.mla;
    double qk = x.qk_nope_head_dim + x.qk_rope_head_dim;
    if (x.q_lora_rank > 0) {
      a.replicated = h * x.q_lora_rank;    // q_a_proj
      a.split = x.q_lora_rank * H * qk;    // q_b_proj
      a.replicated_norms = x.q_lora_rank;  // q_a_layernorm
    } else {
      a.split = h * H * qk;  // q_proj
    }
    a.replicated += h * (x.kv_lora_rank + x.qk_rope_head_dim);            // kv_a_proj_with_mqa
    a.replicated_norms += x.kv_lora_rank;                                 // kv_a_layernorm
    a.split += x.kv_lora_rank * H * (x.qk_nope_head_dim + x.v_head_dim);  // kv_b_proj
    a.split += H * x.v_head_dim * h;                                      // o_proj
    return a;
  }
  double d = m.head_dim, KV = m.kv_heads;
  a.split = h * (H + 2 * KV) * d + H * d * h;  // q, k, v, o
  if (m.qkv_bias || m.linear_bias) a.split += (H + 2 * KV) * d;
  if (m.linear_bias) a.replicated += h;  // o_proj bias, added once after the all-reduce
  if (m.qk_norm) a.replicated_norms = 2.0 * d;
  if (m.attention_sinks) a.split += H;  // one sink logit per head
  return a;
}

ParamBreakdown layer_params(const ModelSpec& m, LayerType t) {
  ParamBreakdown b;
  AttentionShapes a = attention_shapes(m);
  add(b, Part::Attention, a.split + a.replicated);
  add(b, Part::Norms, 2 * norm_params(m, m.hidden) + a.replicated_norms);
  if (t == LayerType::Dense) {
    add(b, Part::DenseMlp, mlp_params(m, m.intermediate));
    return b;
  }
  const auto& e = m.moe;
  add(b, Part::RoutedExperts, e.num_experts * mlp_params(m, e.expert_intermediate));
  add(b, Part::SharedExperts, e.num_shared_experts * mlp_params(m, shared_intermediate(m)));
  add(b, Part::Router, double(e.num_experts) * m.hidden + (e.router_bias ? e.num_experts : 0));
  return b;
}

double shared_intermediate(const ModelSpec& m) {
  return m.moe.shared_intermediate > 0 ? m.moe.shared_intermediate : m.moe.expert_intermediate;
}

LayerType layer_type(const ModelSpec& m, int layer) {
  if (!m.is_moe() || layer < m.moe.first_dense_layers) return LayerType::Dense;
  int freq = m.moe.layer_freq > 0 ? m.moe.layer_freq : 1;
  return layer % freq == 0 ? LayerType::Moe : LayerType::Dense;  // DeepSeek's moe_layer_freq rule
}

int layer_count(const ModelSpec& m, LayerType t) {
  int n = 0;
  for (int i = 0; i < m.layers; ++i) n += layer_type(m, i) == t ? 1 : 0;
  return n;
}

ParamCount count_params(const ModelSpec& m) {
  ParamCount c;
  double h = m.hidden, V = m.vocab;
  for (LayerType t : {LayerType::Dense, LayerType::Moe}) {
    int n = layer_count(m, t);
    if (n == 0) continue;
    ParamBreakdown l = layer_params(m, t);
    for (std::size_t i = 0; i < kPartCount; ++i) c.total.by_part[i] += n * l.by_part[i];
    // Active: every weight a token multiplies; routed experts only top_k of E.
    if (t == LayerType::Moe) {
      auto& r = l.by_part[static_cast<std::size_t>(Part::RoutedExperts)];
      r *= double(m.moe.top_k) / m.moe.num_experts;
    }
    for (std::size_t i = 0; i < kPartCount; ++i) c.active.by_part[i] += n * l.by_part[i];
  }
  add(c.total, Part::Embedding, V * h + double(m.position_embeddings) * h);
  add(c.total, Part::Norms, norm_params(m, h));  // final norm
  add(c.active, Part::Norms, norm_params(m, h));
  // The embedding is a row gather (h elements per token), so it is not active; the LM head is a
  // full V x h matmul per token whether or not it shares storage with the embedding.
  if (!m.tied_embeddings) add(c.total, Part::LmHead, V * h);
  add(c.active, Part::LmHead, V * h);
  c.mtp = mtp_params(m);
  return c;
}

double mtp_params(const ModelSpec& m) {
  if (m.mtp_modules <= 0) return 0;
  // DeepSeek-V3 (arXiv:2412.19437 §2.2): per module eh_proj (2h -> h), enorm, hnorm, one decoder
  // block, and a final norm; the embedding and output head are shared with the main model.
  double h = m.hidden;
  LayerType t = m.is_moe() ? LayerType::Moe : LayerType::Dense;
  double module = 2 * h * h + 3 * norm_params(m, h) + layer_params(m, t).sum();
  return m.mtp_modules * module;
}

double weight_bytes(const ModelSpec& m, const ParamBreakdown& p) {
  double bytes = 0;
  for (std::size_t i = 0; i < kPartCount; ++i) {
    bytes += p.by_part[i] * m.dtypes.format(static_cast<Part>(i)).bytes_per_element();
  }
  return bytes;
}

}  // namespace topoplan
