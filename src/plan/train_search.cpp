// The training search: every strategy of the space (after the pins) is checked for divisibility,
// then memory, then a compute-only lower bound against the k-th best step found so far; the
// survivors are timed in full. All three prunings are exact: a pruned strategy cannot be in the
// top k (docs/training.md, "Search").
#include <algorithm>
#include <chrono>

#include "plan/search_util.hpp"
#include "plan/train_impl.hpp"
#include "topoplan/error.hpp"

namespace topoplan::train {

namespace {

using detail::divisors;
using detail::pinned_out;

// Why `s` cannot shard the model ("" if it can), Megatron-LM's argument checks.
std::string divisibility_problem(const ModelSpec& m, const TrainStrategy& s,
                                 const TrainRequest& q) {
  if (m.heads % s.tp) return "heads not divisible by tp";
  if (!kv_heads_shardable(m, s.tp)) return "kv heads and tp do not divide";
  if (m.intermediate % s.tp) return "intermediate size not divisible by tp";
  if (s.pp * s.vp > m.layers) return "fewer layers than pipeline chunks";
  if (q.global_batch % (s.dp * s.micro_batch)) return "global batch not divisible by dp × b";
  int mb = q.global_batch / (s.dp * s.micro_batch);
  if (s.vp > 1 && mb % s.pp) return "interleaving needs micro-batches divisible by pp";
  if (s.cp > 1 && static_cast<long>(q.seq) % (2 * s.cp)) return "seq not divisible by 2 × cp";
  if (m.is_moe()) {
    if (m.moe.num_experts % s.ep) return "experts not divisible by ep";
    if ((s.tp * s.cp * s.dp) % (s.ep * s.etp)) return "ep × etp does not divide tp × cp × dp";
    if (m.moe.expert_intermediate % s.etp) return "expert size not divisible by etp";
  }
  return "";
}

// Micro-batch sizes 1, 2, 4, ... up to `max_b`, doubled in 64 bits: `b *= 2` in int wrapped past
// 2^30 to 0 (a global batch of 2^30 ended in a division by zero, SIGFPE).
std::vector<int> powers_of_two_up_to(int max_b) {
  std::vector<int> out;
  for (long long b = 1; b <= max_b; b *= 2) out.push_back(static_cast<int>(b));
  return out;
}

struct Ranked {
  std::vector<TrainPlan> best;  // sorted by step time
  int k;
  double threshold() const {
    return static_cast<int>(best.size()) < k ? 1e300 : best.back().breakdown.total_us;
  }
  void add(TrainPlan p) {
    auto it = std::upper_bound(best.begin(), best.end(), p, [](const auto& a, const auto& b) {
      return a.breakdown.total_us < b.breakdown.total_us;
    });
    best.insert(it, std::move(p));
    if (static_cast<int>(best.size()) > k) best.pop_back();
  }
};

// Recompute policies to try: none, selective (core_attn), full, or the pinned ones. For MoE
// models also the module sets the published MoE recipes run (Megatron-Bridge's DeepSeek-V3
// presets, scripts/performance/configs/deepseek/deepseek_workload_base_configs.py: H100
// "mla_up_proj, mlp", B200 "mla_up_proj, layernorm, moe_act", GB300 "moe_act"): the
// output-discarding ones (layernorm, moe_act, mla_up_proj where the model has MLA), then those
// plus the checkpointed dense MLP and shared experts.
std::vector<std::pair<Recompute, unsigned>> recompute_options(const ModelSpec& m,
                                                              const TrainRequest& q) {
  if (q.recompute_modules) return {{Recompute::Selective, *q.recompute_modules}};
  std::vector<std::pair<Recompute, unsigned>> out;
  for (Recompute rc : {Recompute::None, Recompute::Selective, Recompute::Full})
    if (!q.recompute || *q.recompute == rc) out.emplace_back(rc, kRcCoreAttn);
  if (!m.is_moe() || (q.recompute && *q.recompute != Recompute::Selective)) return out;
  unsigned cheap = kRcLayernorm | kRcMoeAct;
  if (m.attention == AttentionKind::Mla) cheap |= kRcMlaUpProj;
  unsigned blocks = cheap;
  if (m.moe.first_dense_layers > 0 || m.moe.layer_freq > 1) blocks |= kRcMlp;
  if (shared_experts_intermediate(m) > 0) blocks |= kRcSharedExperts;
  out.emplace_back(Recompute::Selective, cheap);
  if (blocks != cheap) out.emplace_back(Recompute::Selective, blocks);
  return out;
}

template <typename F>
void enumerate(const Evaluator& e, F&& visit) {
  const ModelSpec& m = e.model;
  const TrainRequest& q = e.req;
  const int G = e.gpus;
  const std::vector<std::pair<Recompute, unsigned>> recomputes = recompute_options(m, q);
  std::vector<TrainPrecision> precisions{TrainPrecision::BF16};
  if (e.gpu.fp8_TFLOPS > 0) precisions.push_back(TrainPrecision::FP8);
  for (int tp : divisors(G)) {
    if (pinned_out(q.tp, tp) || tp > m.heads) continue;
    for (int cp : divisors(G / tp)) {
      if (pinned_out(q.cp, cp)) continue;
      for (int pp : divisors(G / (tp * cp))) {
        if (pinned_out(q.pp, pp) || pp > m.layers) continue;
        int dp = G / (tp * cp * pp);
        if (pinned_out(q.dp, dp) || dp > q.global_batch) continue;
        std::vector<std::pair<int, int>> eps{{1, 1}};
        if (m.is_moe()) {
          eps.clear();
          for (int ep : divisors(m.moe.num_experts))
            for (int etp : {1, tp})
              if (!pinned_out(q.ep, ep) && ep <= tp * cp * dp &&
                  !(etp == tp && tp == 1 && eps.size() && eps.back() == std::pair{ep, 1}))
                eps.emplace_back(ep, etp);
        }
        // Virtual stages: 1-6 and 8 (Megatron recipes use 2-8, e.g. NeMo's Llama-3-70B vp 5),
        // or the pinned value.
        std::vector<int> vps{1, 2, 3, 4, 5, 6, 8};
        if (q.vp) vps = {*q.vp};
        for (int vp : vps) {
          if (vp > 1 && pp == 1) continue;
          if (q.dualpipe && (vp > 1 || pp % 2 != 0)) continue;
          if (q.ep_overlap && m.is_moe() && pp > 1 && vp == 1) continue;
          for (int b : powers_of_two_up_to(q.global_batch / dp)) {
            if (pinned_out(q.micro_batch, b)) continue;
            for (auto [ep, etp] : eps)
              for (bool sp : {true, false}) {
                if ((sp && tp == 1) || (q.sp && *q.sp != sp)) continue;
                for (TrainPrecision pr : precisions) {
                  if (q.precision && *q.precision != pr) continue;
                  for (auto [rc, modules] : recomputes) {
                    for (int z = 0; z <= 3; ++z) {
                      if (pinned_out(q.zero, z) || (z > 0 && dp * cp == 1 && !q.zero)) continue;
                      // Megatron's --fp8-param-gather needs the distributed optimizer.
                      if (z == 0 && q.fp8_param_gather && pr == TrainPrecision::FP8) continue;
                      visit(TrainStrategy{.tp = tp,
                                          .cp = cp,
                                          .pp = pp,
                                          .vp = vp,
                                          .dp = dp,
                                          .ep = ep,
                                          .etp = etp,
                                          .sp = sp,
                                          .zero = z,
                                          .recompute = rc,
                                          .recompute_modules = modules,
                                          .micro_batch = b,
                                          .precision = pr,
                                          .dualpipe = q.dualpipe && pp > 1,
                                          .ep_overlap = q.ep_overlap && ep > 1});
                    }
                  }
                }
              }
          }
        }
      }
    }
  }
}

}  // namespace

// The search itself; `out` receives the counters and the ranked plans.
void search(const Evaluator& e, TrainingResult& out) {
  auto t0 = std::chrono::steady_clock::now();
  Ranked ranked{{}, std::max(2, e.req.top)};
  const std::size_t k = std::max(1, e.req.top);
  std::vector<std::pair<double, TrainStrategy>> misfits;  // smallest overflow first
  // Phase 1: divisibility and memory (exact: such a plan cannot run), then the compute-only
  // lower bound of every survivor. Phase 2: time the survivors best bound first; once a bound
  // reaches the k-th best step found, no later one can enter the top k (exact).
  std::vector<std::pair<double, TrainStrategy>> todo;
  enumerate(e, [&](const TrainStrategy& s) {
    ++out.strategies_enumerated;
    if (!divisibility_problem(e.model, s, e.req).empty()) {
      ++out.pruned_divisibility;
      return;
    }
    if (!e.req.prune) {
      todo.emplace_back(0.0, s);
      return;
    }
    TrainMemory mem = e.memory(s);
    if (mem.total() > mem.capacity_bytes) {
      ++out.pruned_memory;
      double over = mem.total() - mem.capacity_bytes;
      if (misfits.size() < k || over < misfits.back().first) {
        auto at = std::upper_bound(misfits.begin(), misfits.end(), over,
                                   [](double o, const auto& x) { return o < x.first; });
        misfits.insert(at, {over, s});
        if (misfits.size() > k) misfits.pop_back();
      }
      return;
    }
    todo.emplace_back(e.lower_bound_us(s), s);
  });
  // Stable: equal bounds keep the enumeration order, so ties resolve the same way as without
  // pruning.
  std::stable_sort(todo.begin(), todo.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < todo.size(); ++i) {
    if (e.req.prune && todo[i].first >= ranked.threshold()) {
      out.pruned_bound += static_cast<long>(todo.size() - i);
      break;
    }
    ++out.strategies_evaluated;
    TrainPlan p = e.evaluate(todo[i].second);
    if (e.req.progress) e.req.progress(static_cast<int>(i + 1), static_cast<int>(todo.size()));
    if (p.fits) {
      ranked.add(std::move(p));
    } else if (misfits.size() < k) {  // exhaustive mode: memory was not checked above
      misfits.emplace_back(p.memory.total() - p.memory.capacity_bytes, todo[i].second);
      std::sort(misfits.begin(), misfits.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
    }
  }
  out.search_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.evaluations_per_s_per_core =
      out.search_s > 0 ? static_cast<double>(out.strategies_enumerated) / out.search_s : 0;
  out.plans = std::move(ranked.best);
  if (out.plans.empty())
    for (const auto& [over, s] : misfits) out.plans.push_back(e.evaluate(s));
}

}  // namespace topoplan::train
