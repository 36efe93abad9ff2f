// The pieces of disaggregated serving that do not search: how a request's KV cache is split into
// GPU → GPU streams between the two pools' layouts, and the prefill pool's queueing wait.
#include <algorithm>
#include <cmath>

#include "topoplan/disagg.hpp"

namespace topoplan {

namespace {

// Distinct KV shards of one sequence under strategy s: MLA's latent is replicated on every TP
// rank, and under attention DP a sequence lives on one attention rank with its whole cache, so
// one shard; GQA/MHA split kv_heads over TP ranks (replicated when kv_heads < tp).
int kv_shards(const ModelSpec& m, const Strategy& s) {
  if (m.attention == AttentionKind::Mla || s.attention_dp) return 1;
  return std::max(1, std::min(m.kv_heads, s.tp));
}

}  // namespace

std::vector<std::pair<int, int>> kv_stream_ranks(const ModelSpec& m, const Strategy& prefill,
                                                 const Strategy& decode) {
  const int sp = kv_shards(m, prefill), sd = kv_shards(m, decode);
  const int shards = std::max(sp, sd);
  const int stages = std::max(prefill.pp, decode.pp);
  std::vector<std::pair<int, int>> out;
  out.reserve(static_cast<std::size_t>(shards * stages));
  for (int j = 0; j < stages; ++j) {
    // Stage pairs by layer range: stage j of the finer split lies in stage j·pp/stages.
    const int stage_p = j * prefill.pp / stages, stage_d = j * decode.pp / stages;
    for (int k = 0; k < shards; ++k) {
      const int tp_p = (k % sp) * (prefill.tp / sp), tp_d = (k % sd) * (decode.tp / sd);
      out.emplace_back(stage_p * prefill.tp + tp_p, stage_d * decode.tp + tp_d);
    }
  }
  return out;
}

double disagg_queue_us(double rho, double step_us, double batch) {
  if (rho <= 0) return 0;
  if (rho >= 1) return INFINITY;
  const double b = std::max(1.0, batch);
  return rho * step_us / (2 * (1 - rho)) / b + rho * step_us / 2 * (1 - 1 / b);
}

}  // namespace topoplan
