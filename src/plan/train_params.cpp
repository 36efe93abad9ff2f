// Parameters per GPU of a training shard, the model's formats under the training precision and
// Megatron-LM's model-FLOPs count (docs/training.md).
#include <algorithm>

#include "plan/train_impl.hpp"

namespace topoplan {

namespace {

double part(const ParamBreakdown& b, Part p) {
  return b[p];
}

// One decoder layer of type t on one GPU of the shard (attention and dense MLP split tp ways,
// experts ep × etp ways; norms and router replicated).
double layer_on_gpu(const ModelSpec& m, LayerType t, const TrainStrategy& s) {
  ParamBreakdown f = layer_params(m, t);
  return (part(f, Part::Attention) + part(f, Part::DenseMlp) + part(f, Part::SharedExperts)) /
             s.tp +
         part(f, Part::RoutedExperts) / (double(s.ep) * s.etp) + part(f, Part::Norms) +
         part(f, Part::Router);
}

}  // namespace

namespace train {

StageParams stage_params(const ModelSpec& m, const TrainStrategy& s, int stage) {
  ShardLayout l{.shard = Shard{.tp = s.tp, .ep = s.ep, .expert_tp = s.etp}, .pp = s.pp};
  ParamBreakdown b = params_per_gpu(m, l, stage);
  StageParams p;
  p.expert = part(b, Part::RoutedExperts);
  p.dense = b.sum() - p.expert;
  p.gemm =
      part(b, Part::Attention) + part(b, Part::DenseMlp) + part(b, Part::SharedExperts) + p.expert;
  StageLayers st = stage_layers(m, s.pp, stage);
  p.layers = st.count;
  for (int i = st.first; i < st.first + st.count; ++i) {
    LayerType t = layer_type(m, i);
    p.moe_layers += t == LayerType::Moe;
    p.layer = std::max(p.layer, layer_on_gpu(m, t, s));
  }
  return p;
}

int micro_batches(const TrainStrategy& s, const TrainRequest& q) {
  return q.global_batch / (s.dp * s.micro_batch);
}

ModelSpec as_trained(const ModelSpec& m, TrainPrecision p) {
  ModelSpec t = m;
  t.dtypes.weights = WeightFormat{.dtype = Dtype::BF16};
  t.dtypes.overrides = {};
  t.dtypes.activations = Dtype::BF16;
  t.dtypes.moe_dispatch = Dtype::BF16;
  t.dtypes.moe_combine = Dtype::BF16;
  if (p == TrainPrecision::FP8) {
    // Transformer Engine FP8 recipe: linear layers in FP8 with per-tensor delayed scaling; the
    // embedding, LM head, norms and router stay bf16 (TE docs, "Using FP8 with Transformer
    // Engine": only te.Linear-family modules run FP8).
    t.dtypes.weights = WeightFormat{.dtype = Dtype::FP8};
    for (Part q : {Part::Embedding, Part::LmHead, Part::Norms, Part::Router})
      t.dtypes.overrides[static_cast<std::size_t>(q)] = WeightFormat{.dtype = Dtype::BF16};
  }
  return t;
}

}  // namespace train

double training_model_flops(const ModelSpec& m, double seq, double sequences) {
  const double h = m.hidden, a = m.heads, L = m.layers;
  if (m.attention == AttentionKind::Mla) {
    // Megatron's closed form has no MLA term; count what it counts for MHA from the parameters:
    // 6 FLOPs per active linear parameter per token (forward + backward, 2 per MAC) plus the
    // attention scores over all s keys, QKᵀ at qk width and AV at v width (6·L·s·a·(qk + v)).
    // For MHA this equals the formula below exactly.
    ParamBreakdown act = count_params(m).active;
    double linear = act.sum() - act[Part::Norms] - act[Part::Router];
    double qk = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
    double per_token = 6 * linear + 6 * L * seq * a * (qk + m.mla.v_head_dim);
    return per_token * seq * sequences;
  }
  // Megatron-LM training.py num_floating_point_operations (3 passes × 2 GEMMs per block × 2
  // FLOPs per MAC = 12). Attention scores counted over all s keys (no causal halving), as
  // Megatron and NeMo count them.
  const double q_ratio = a * m.head_dim / h, kv_ratio = double(m.kv_heads) / a;
  const double glu = m.mlp == MlpKind::SwiGlu ? 1.5 : 1.0;
  double dense_mlp = double(m.intermediate) / h * glu;
  double moe_mlp = 0;
  if (m.is_moe()) {
    double shared = shared_experts_intermediate(m);
    moe_mlp = (double(m.moe.expert_intermediate) * m.moe.top_k + shared) / h * glu;
  }
  const double moe_layers = layer_count(m, LayerType::Moe);
  double mlp = ((L - moe_layers) * dense_mlp + moe_layers * moe_mlp) / L;
  double per_layer = (1 + kv_ratio + seq / h) * q_ratio + mlp + m.vocab / (2 * L * h);
  return 12 * sequences * seq * L * h * h * per_layer;
}

double training_score_flops(const ModelSpec& m, double seq, double sequences) {
  // 6 FLOPs per (query, key, channel) MAC pair over QKᵀ at qk width and AV at v width: the
  // s/h term of the closed form (12·L·h²·(s/h)·q/h = 6·L·s·a·2·head_dim), MLA's explicit term.
  const bool mla = m.attention == AttentionKind::Mla;
  const double qk = mla ? m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim : m.head_dim;
  const double v = mla ? m.mla.v_head_dim : m.head_dim;
  return 6.0 * m.layers * seq * m.heads * (qk + v) * seq * sequences;
}

double training_score_flops_causal(const ModelSpec& m, double seq, double sequences) {
  const double full = training_score_flops(m, seq, sequences) / m.layers;  // one layer, s keys
  const double w = std::min<double>(m.sliding_window, seq);
  const int sliding = m.sliding_window > 0 ? m.sliding_layers : 0;
  const double causal_keys = (seq + 1) / 2, window_keys = w * (2 * seq - w + 1) / (2 * seq);
  return full / seq * ((m.layers - sliding) * causal_keys + sliding * window_keys);
}

TrainMemory train_memory(const ModelSpec& m, const TrainStrategy& s, const TrainRequest& q,
                         double capacity_bytes) {
  ModelSpec t = train::as_trained(m, s.precision);
  int mb = train::micro_batches(s, q);
  return train::memory_from(t, s, q, capacity_bytes, train::stage_params(t, s, 0),
                            train::stage_params(t, s, s.pp - 1), mb);
}

}  // namespace topoplan
