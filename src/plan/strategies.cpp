// The strategy space: every tp × pp × dp factorisation of the GPUs, ep | tp and attention DP for
// MoE models, filtered by the pins. Divisibility rules follow Megatron-LM/vLLM sharding checks.
#include <string>

#include "plan/search_util.hpp"
#include "topoplan/plan.hpp"

namespace topoplan {

namespace {

using detail::divisors;
using detail::pinned_out;

std::string not_divisible(const std::string& what, int count, const char* dim, int by) {
  return what + " " + std::to_string(count) + " not divisible by " + dim + " " + std::to_string(by);
}

}  // namespace

std::vector<Strategy> enumerate_strategies(const ModelSpec& m, int gpus, const PlanRequest& r) {
  std::vector<Strategy> out;
  for (int tp : divisors(gpus)) {
    for (int pp : divisors(gpus / tp)) {
      int dp = gpus / tp / pp;
      if (pinned_out(r.tp, tp) || pinned_out(r.pp, pp) || pinned_out(r.dp, dp)) continue;
      std::vector<int> eps = m.is_moe() ? divisors(tp) : std::vector<int>{1};
      for (int ep : eps) {
        if (pinned_out(r.ep, ep)) continue;
        for (bool adp : {false, true}) {
          if (adp && (!m.is_moe() || tp == 1)) continue;
          if (r.attention_dp && *r.attention_dp != adp) continue;
          out.push_back(Strategy{.tp = tp, .pp = pp, .dp = dp, .ep = ep, .attention_dp = adp});
        }
      }
    }
  }
  return out;
}

std::string divisibility_reason(const ModelSpec& m, const Strategy& s) {
  if (s.pp > m.layers) return not_divisible("layers", m.layers, "pp", s.pp) + " (fewer layers)";
  if (!s.attention_dp) {
    // Heads are split tp ways; KV heads split or, when fewer than tp, replicated evenly (vLLM).
    if (m.heads % s.tp != 0) return not_divisible("heads", m.heads, "tp", s.tp);
    if (!kv_heads_shardable(m, s.tp))
      return not_divisible("kv_heads", m.kv_heads, "tp", s.tp) + " (nor a divisor of it)";
  }
  if (m.intermediate > 0 && m.intermediate % s.tp != 0)
    return not_divisible("MLP intermediate", m.intermediate, "tp", s.tp);
  if (m.is_moe()) {
    if (s.tp % s.ep != 0) return not_divisible("tp", s.tp, "ep", s.ep);
    if (m.moe.expert_slots() % s.ep != 0)
      return not_divisible(m.moe.redundant_experts > 0 ? "expert slots" : "experts",
                           m.moe.expert_slots(), "ep", s.ep);
    int etp = s.tp / s.ep;
    if (m.moe.expert_intermediate % etp != 0)
      return not_divisible("expert intermediate", m.moe.expert_intermediate, "expert tp", etp);
  }
  return "";
}

}  // namespace topoplan
