// Shard validity: which TP/EP splits of a model are meaningful.
#include <cmath>

#include "model/params.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

std::optional<std::string> shard_problem(const ModelSpec& m, const Shard& s) {
  auto str = [](int v) { return std::to_string(v); };
  if (s.tp < 1 || s.ep < 1 || s.expert_tp < 0) return "tp and ep must be at least 1";
  // Under attention DP every rank runs whole attention heads for its own sequences.
  if (!s.attention_dp && m.heads % s.tp != 0)
    return "tp=" + str(s.tp) + " does not divide the " + str(m.heads) + " attention heads";
  // vLLM shards KV heads when tp divides them and replicates them when they divide tp.
  if (!s.attention_dp && !kv_heads_shardable(m, s.tp))
    return "tp=" + str(s.tp) + " neither divides nor is a multiple of the " + str(m.kv_heads) +
           " KV heads";
  if (s.ep > 1 && !m.is_moe()) return "ep=" + str(s.ep) + " needs a mixture-of-experts model";
  if (m.is_moe() && m.moe.expert_slots() % s.ep != 0)
    return "ep=" + str(s.ep) + " does not divide the " + str(m.moe.expert_slots()) +
           " routed expert slots";
  int etp = s.effective_expert_tp();
  if (m.is_moe() && m.moe.expert_intermediate % etp != 0)
    return "expert_tp=" + str(etp) + " does not divide the expert intermediate size " +
           str(m.moe.expert_intermediate);
  return std::nullopt;
}

void require_valid_degrees(const Shard& s) {
  if (s.tp < 1 || s.ep < 1 || s.expert_tp < 0)
    throw InputError("shard", "",
                     "tp and ep must be at least 1 (tp=" + std::to_string(s.tp) +
                         ", ep=" + std::to_string(s.ep) + ")");
}

double query_heads_per_rank(const ModelSpec& m, const Shard& s) {
  return s.attention_dp ? double(m.heads) : double(m.heads) / s.tp;
}

double kv_heads_per_rank(const ModelSpec& m, const Shard& s) {
  return s.attention_dp ? double(m.kv_heads) : std::ceil(double(m.kv_heads) / s.tp);
}

bool kv_heads_shardable(const ModelSpec& m, int tp) {
  return m.attention != AttentionKind::Mha || m.kv_heads % tp == 0 || tp % m.kv_heads == 0;
}

double shared_experts_intermediate(const ModelSpec& m) {
  return m.moe.num_shared_experts * shared_intermediate(m);
}

}  // namespace topoplan
