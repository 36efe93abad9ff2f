// Memory per GPU: sharded weights, KV cache per token, training state and activations.
#include <algorithm>
#include <cmath>

#include "model/params.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

namespace {

void add(ParamBreakdown& b, Part p, double n) {
  b.by_part[static_cast<std::size_t>(p)] += n;
}

// One layer's parameters on one GPU (see the sharding rules in model.hpp).
ParamBreakdown layer_params_per_gpu(const ModelSpec& m, LayerType t, const Shard& s) {
  ParamBreakdown full = layer_params(m, t), g;
  AttentionShapes a = attention_shapes(m);
  double tp = s.tp;
  add(g, Part::Attention, s.attention_dp ? a.split + a.replicated : a.split / tp + a.replicated);
  add(g, Part::Norms, full[Part::Norms]);
  add(g, Part::DenseMlp, full[Part::DenseMlp] / tp);
  // Each rank holds expert_slots / ep experts (copies included).
  const double slots = m.is_moe() ? double(m.moe.expert_slots()) / m.moe.num_experts : 1;
  add(g, Part::RoutedExperts,
      full[Part::RoutedExperts] * slots / (double(s.ep) * s.effective_expert_tp()));
  add(g, Part::SharedExperts, full[Part::SharedExperts] / tp);
  add(g, Part::Router, full[Part::Router]);
  return g;
}

}  // namespace

StageLayers stage_layers(const ModelSpec& m, int pp, int stage) {
  int base = m.layers / pp, rem = m.layers % pp;
  return {stage * base + std::min(stage, rem), base + (stage < rem ? 1 : 0)};
}

ParamBreakdown params_per_gpu(const ModelSpec& m, const ShardLayout& l, int stage) {
  require_valid_degrees(l.shard);
  if (l.pp < 1 || stage < 0 || stage >= l.pp)
    throw InputError("shard", "",
                     "stage " + std::to_string(stage) + " outside pp=" + std::to_string(l.pp));
  ParamBreakdown g;
  StageLayers st = stage_layers(m, l.pp, stage);
  for (int i = st.first; i < st.first + st.count; ++i) {
    ParamBreakdown p = layer_params_per_gpu(m, layer_type(m, i), l.shard);
    for (std::size_t j = 0; j < kPartCount; ++j) g.by_part[j] += p.by_part[j];
  }
  double h = m.hidden, vocab_rows = double(m.vocab) / l.shard.tp;
  if (stage == 0) add(g, Part::Embedding, vocab_rows * h + double(m.position_embeddings) * h);
  if (stage == l.pp - 1) {
    add(g, Part::Norms, m.norm == NormKind::LayerNorm ? 2 * h : h);
    if (!m.tied_embeddings) add(g, Part::LmHead, vocab_rows * h);
    if (m.tied_embeddings && l.pp > 1) add(g, Part::Embedding, vocab_rows * h);  // Megatron's copy
  }
  return g;
}

double weight_bytes_per_gpu(const ModelSpec& m, const ShardLayout& l) {
  double worst = 0;
  for (int s = 0; s < l.pp; ++s) {
    double b = weight_bytes(m, params_per_gpu(m, l, s));
    if (s == l.pp - 1 && l.load_mtp && m.mtp_modules > 0) {
      // MTP block sharded like a layer; eh_proj and its norms replicated.
      LayerType t = m.is_moe() ? LayerType::Moe : LayerType::Dense;
      double block = weight_bytes(m, layer_params_per_gpu(m, t, l.shard));
      double h = m.hidden;
      b += m.mtp_modules *
           (block + 2 * h * h * m.dtypes.format(Part::Attention).bytes_per_element() +
            3 * h * m.dtypes.format(Part::Norms).bytes_per_element());
    }
    worst = std::max(worst, b);
  }
  return worst;
}

double kv_bytes_per_token(const ModelSpec& m, const Shard& s, int pp) {
  require_valid_degrees(s);
  if (pp < 1) throw InputError("shard", "", "pp must be at least 1");
  double per_layer;
  if (m.attention == AttentionKind::Mla) {
    per_layer = m.mla.kv_lora_rank + m.mla.qk_rope_head_dim;  // one latent shared by all heads
  } else {
    per_layer = 2 * kv_heads_per_rank(m, s) * m.head_dim;  // K and V
  }
  return stage_layers(m, pp, 0).count * per_layer * element_bytes(m.dtypes.kv_cache);
}

double kv_bytes_per_token(const ModelSpec& m) {
  return kv_bytes_per_token(m, Shard{}, 1);
}

double kv_tokens_held(const ModelSpec& m, double tokens) {
  if (m.sliding_window <= 0 || m.sliding_layers <= 0 || m.layers <= 0) return tokens;
  const double sliding = double(m.sliding_layers) / m.layers;
  return (1 - sliding) * tokens + sliding * std::min(tokens, double(m.sliding_window));
}

LayerComm layer_comm(const ModelSpec& m, LayerType t) {
  LayerComm c;
  double h = m.hidden, act = element_bytes(m.dtypes.activations);
  c.tp_allreduce_bytes_per_token = h * act;
  c.tp_allreduces = 2;  // after o_proj and after the MLP / MoE
  c.pp_bytes_per_token = h * act;
  if (t == LayerType::Moe) {
    double k = m.moe.top_k;
    double dispatch = element_bytes(m.dtypes.moe_dispatch);
    // FP8 dispatch carries one fp32 scale per 128 channels (DeepSeek-V3 §3.3.2 1x128 tiles;
    // DeepEP README: FP8 dispatch, BF16 combine).
    if (m.dtypes.moe_dispatch == Dtype::FP8) dispatch += element_bytes(Dtype::FP32) / 128;
    c.moe_dispatch_bytes_per_token = k * h * dispatch;
    c.moe_combine_bytes_per_token = k * h * element_bytes(m.dtypes.moe_combine);
  }
  return c;
}

}  // namespace topoplan
