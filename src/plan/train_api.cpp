// Entry points of the training planner: names, request validation, plan_training (search,
// explanation, placement of the best plan) and evaluate_training.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "io/quantity_ranges.hpp"
#include "plan/train_impl.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology.hpp"
#include "topoplan/units.hpp"

namespace topoplan {

namespace train {
void search(const Evaluator& e, TrainingResult& out);
}

std::string_view to_string(TrainPrecision p) {
  return p == TrainPrecision::FP8 ? "fp8" : "bf16";
}

TrainPrecision parse_train_precision(std::string_view text) {
  for (TrainPrecision p : {TrainPrecision::BF16, TrainPrecision::FP8})
    if (text == to_string(p)) return p;
  throw UnknownNameError("precision", std::string(text), {"bf16", "fp8"});
}

TrainPrecision default_train_precision(const ModelSpec& m, bool gpu_has_fp8) {
  return m.dtypes.weights.dtype == Dtype::FP8 && gpu_has_fp8 ? TrainPrecision::FP8
                                                             : TrainPrecision::BF16;
}

std::string_view to_string(GradReduce g) {
  return g == GradReduce::FP32 ? "fp32" : "bf16";
}

GradReduce parse_grad_reduce(std::string_view text) {
  for (GradReduce g : {GradReduce::BF16, GradReduce::FP32})
    if (text == to_string(g)) return g;
  throw UnknownNameError("grad_reduce", std::string(text), {"bf16", "fp32"});
}

GradReduce default_grad_reduce(std::string_view engine) {
  // NeMo 2.0 and Megatron-Bridge performance recipes set grad_reduce_in_fp32 = False (NeMo
  // scripts/performance and the recipes' performance optimizations; Megatron-Bridge
  // scripts/performance configs: cfg.ddp.grad_reduce_in_fp32 = False). Megatron-LM itself
  // accumulates and reduces bf16 training's gradients in fp32, torchtitan reduces in fp32.
  return engine == "nemo" ? GradReduce::BF16 : GradReduce::FP32;
}

GradReduce resolved_grad_reduce(const TrainRequest& q) {
  return q.grad_reduce.value_or(default_grad_reduce(q.engine));
}

double grad_bytes_per_param(const TrainRequest& q) {
  return resolved_grad_reduce(q) == GradReduce::FP32 ? 4.0 : 2.0;
}

void apply_train_engine(TrainRequest& q, const std::string& engine) {
  if (engine.empty() || engine == "megatron") {
    q.engine = "megatron";
  } else if (engine == "nemo") {
    // NeMo / Megatron-Bridge performance recipes turn on TE userbuffers TP overlap with SP for
    // TP > 1 (tp_comm_overlap=True in their Llama / GPT-3 recipes).
    q.engine = engine;
    q.tp_comm_overlap = true;
  } else if (engine == "torchtitan") {
    // torchtitan shards parameters with FSDP2 over the data-parallel ranks by default
    // (data_parallel_shard_degree -1): ZeRO-3.
    q.engine = engine;
    if (!q.zero) q.zero = 3;
  } else {
    throw UnknownNameError("engine", engine, {"megatron", "nemo", "torchtitan"});
  }
}

std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::Selective:
      return "selective";
    case Recompute::Full:
      return "full";
    case Recompute::None:
      break;
  }
  return "none";
}

Recompute parse_recompute(std::string_view text) {
  for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
    if (text == to_string(r)) return r;
  throw UnknownNameError("recompute", std::string(text), {"none", "selective", "full"});
}

namespace {
// Megatron-Core's names, in RecomputeModule bit order.
constexpr const char* kModuleNames[] = {"core_attn", "layernorm",      "moe_act", "mla_up_proj",
                                        "mlp",       "shared_experts", "moe"};
}  // namespace

unsigned parse_recompute_modules(std::string_view text) {
  unsigned bits = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t end = std::min(text.find(',', at), text.size());
    std::string_view name = text.substr(at, end - at);
    at = end + 1;
    if (name.empty()) continue;
    unsigned bit = 0;
    for (unsigned i = 0; i < std::size(kModuleNames); ++i)
      if (name == kModuleNames[i]) bit = 1u << i;
    if (!bit)
      throw UnknownNameError("recompute module", std::string(name),
                             {std::begin(kModuleNames), std::end(kModuleNames)});
    bits |= bit;
  }
  if (!bits) throw FieldError("recompute_modules", "names no module");
  return bits;
}

std::vector<std::string> recompute_module_names(unsigned modules) {
  std::vector<std::string> out;
  for (unsigned i = 0; i < std::size(kModuleNames); ++i)
    if (modules & (1u << i)) out.emplace_back(kModuleNames[i]);
  return out;
}

std::string describe(const TrainStrategy& s) {
  std::string d = "tp" + std::to_string(s.tp) + (s.sp ? " sp" : "") + " cp" + std::to_string(s.cp) +
                  " pp" + std::to_string(s.pp);
  if (s.vp > 1) d += " vp" + std::to_string(s.vp);
  if (s.dualpipe) d += " dualpipe";
  if (s.ep_overlap) d += " ep-overlap";
  d += " dp" + std::to_string(s.dp);
  if (s.ep > 1) d += " ep" + std::to_string(s.ep) + " etp" + std::to_string(s.etp);
  std::string rc(to_string(s.recompute));
  if (s.recompute == Recompute::Selective && s.recompute_modules != kRcCoreAttn) {
    rc.clear();
    for (const std::string& n : recompute_module_names(s.recompute_modules))
      rc += (rc.empty() ? "" : "+") + n;
  }
  d += " zero" + std::to_string(s.zero) + " rc:" + rc + " mb" + std::to_string(s.micro_batch) +
       " " + std::string(to_string(s.precision));
  return d;
}

void TrainRequest::validate(const ModelSpec& m) const {
  auto positive = [](const std::optional<int>& v, const char* field) {
    if (v && *v < 1) throw FieldError(field, "must be at least 1");
  };
  require_tokens(seq, "seq");  // finite, 1 to 2^53 (the shared rule of every workload)
  if (seq != std::floor(seq)) throw FieldError("seq", "must be a positive integer");
  // Ranges (docs/limits.md): 2^30 sequences overflowed the micro-batch search (SIGFPE), and
  // 1e300 tokens to train on printed a 300-digit day count.
  io::require_in_range(global_batch, io::ranges::kGlobalBatch, "global_batch");
  positive(tp, "tp"), positive(pp, "pp"), positive(vp, "vp"), positive(dp, "dp");
  positive(cp, "cp"), positive(ep, "ep"), positive(micro_batch, "micro_batch");
  if (zero && (*zero < 0 || *zero > 3)) throw FieldError("zero", "expected 0, 1, 2 or 3");
  if (ep && *ep > 1 && !m.is_moe())
    throw FieldError("ep", m.name + " is dense: expert parallelism needs an MoE model");
  if (vp && *vp > 1 && pp && *pp == 1) throw FieldError("vp", "interleaving needs {pp} > 1");
  if (ep_overlap && dualpipe)
    throw FieldError("ep_overlap", "is combined 1F1B's; DualPipe overlaps the all-to-all itself");
  if (ep_overlap && m.is_moe() && pp && *pp > 1 && vp && *vp == 1)
    throw FieldError("ep_overlap",
                     "with pp > 1 needs vp > 1 (Megatron-Core requires the "
                     "interleaved schedule for --overlap-moe-expert-parallel-comm)");
  if (recompute_modules && recompute && *recompute != Recompute::Selective)
    throw FieldError("recompute_modules",
                     "apply to selective recompute only; recompute is pinned to '" +
                         std::string(to_string(*recompute)) + "'");
  if (recompute_modules && (*recompute_modules == 0 || *recompute_modules >= (kRcMoe << 1)))
    throw FieldError("recompute_modules", "names no known module");
  if (fp8_param_gather && zero && *zero == 0)
    throw FieldError("fp8_param_gather",
                     "needs a ZeRO stage >= 1 (Megatron-LM: the distributed optimizer or FSDP)");
  if (fp8_param_gather && precision && *precision != TrainPrecision::FP8)
    throw FieldError("fp8_param_gather", "needs FP8 training (--precision fp8)");
  io::require_in_range(train_tokens, io::ranges::kTrainTokens, "train_tokens", true);
  if (top < 1) throw FieldError("top", "must be at least 1");
  if (!(reserve_bytes >= 0) || !std::isfinite(reserve_bytes))
    throw FieldError("reserve_bytes", "must be a finite number >= 0");
}

namespace {

// Which breakdown term separates the winner from the runner-up most.
std::string explain(const TrainPlan& a, const TrainPlan& b) {
  const TrainBreakdown &x = a.breakdown, &y = b.breakdown;
  struct Term {
    const char* name;
    double d;
  } terms[] = {{"compute", x.compute_us() - y.compute_us()},
               {"TP communication", x.tp_us - y.tp_us},
               {"CP exchange", x.cp_us - y.cp_us},
               {"EP all-to-all", x.ep_us - y.ep_us},
               {"pipeline bubble", x.bubble_us - y.bubble_us},
               {"PP send/recv", x.pp_us - y.pp_us},
               {"DP gradient/parameter traffic", x.dp_us - y.dp_us},
               {"ZeRO-3 gathers", x.zero3_us - y.zero3_us},
               {"optimizer step", x.optimizer_us - y.optimizer_us},
               {"FP8 bookkeeping", x.fp8_overhead_us - y.fp8_overhead_us}};
  const Term* big = &terms[0];
  for (const Term& t : terms)
    if (std::abs(t.d) > std::abs(big->d)) big = &t;
  char buf[512];
  if (y.total_us - x.total_us < 1e-3 * y.total_us) {
    std::snprintf(buf, sizeof buf,
                  "%s and %s tie (within 0.1%%: the same work and traffic per GPU); the first "
                  "is listed first because it was enumerated first (smaller tp, cp, pp); "
                  "memory %.1f vs %.1f GiB per GPU.",
                  describe(a.strategy).c_str(), describe(b.strategy).c_str(),
                  a.memory.total() / kGiB, b.memory.total() / kGiB);
    return buf;
  }
  std::snprintf(buf, sizeof buf,
                "%s beats %s by %.1f ms per step (%.1f%%): the largest difference is %s "
                "(%+.1f ms for the winner); memory %.1f vs %.1f GiB per GPU.",
                describe(a.strategy).c_str(), describe(b.strategy).c_str(),
                (y.total_us - x.total_us) / 1e3, 100 * (y.total_us - x.total_us) / y.total_us,
                big->name, big->d / 1e3, a.memory.total() / kGiB, b.memory.total() / kGiB);
  return buf;
}

void place_best(const Router& r, const TrainStrategy& s, TrainingResult& out) {
  const Topology& t = r.topology();
  const std::vector<int> gpus = train::train_devices(t, s.gpus());
  out.placement_ranks = s.gpus();
  for (int rank = 0; rank < s.gpus() && rank < 512; ++rank) {
    TrainRank x;
    x.rank = rank;
    x.device = gpus[rank];
    const Device& d = t.device(x.device);
    x.device_id = d.id, x.node = d.node, x.local_gpu = d.local_index;
    int nic = r.nic_of_gpu(x.device);
    if (nic >= 0) x.nic_id = t.device(nic).id;
    x.tp_rank = rank % s.tp;
    x.cp_rank = rank / s.tp % s.cp;
    x.dp_rank = rank / (s.tp * s.cp) % s.dp;
    x.pp_rank = rank / (s.tp * s.cp * s.dp);
    out.placement.push_back(std::move(x));
  }
}

void summarize(const train::Evaluator& e, const TrainStrategy& s, TrainingResult& out) {
  struct Kind {
    const char* name;
    int stride, size;
    bool all_pairs;
  } kinds[] = {{"tp", 1, s.tp, false},
               {"cp", s.tp, s.cp, false},
               // The gradient group spans dp × cp ranks (Megatron's data-parallel group with
               // CP): named so when cp > 1, so that its size is not read as the dp degree.
               {s.cp > 1 ? "dp-cp" : "dp", s.tp, s.cp * s.dp, false},
               {"pp", s.tp * s.cp * s.dp, s.pp, false},
               {"ep", s.etp, s.ep, true}};
  for (const Kind& k : kinds) {
    auto groups = e.comm.window(k.stride, k.size);
    if (groups.empty()) continue;
    GroupSummary g = summarize_group(*e.router, k.name, groups, k.all_pairs);
    g.groups = s.gpus() / k.size;
    out.groups.push_back(std::move(g));
  }
}

}  // namespace

TrainingResult plan_training(const ModelSpec& m, const Router& r, const TrainRequest& q) {
  q.validate(m);
  TrainRequest req = q;
  if (req.gpus == 0 && req.tp && req.pp && req.dp)
    req.gpus = *req.tp * *req.pp * *req.dp * req.cp.value_or(1);  // pins smaller than the topology
  train::Evaluator e(m, r, req);
  if (!req.precision && !req.search_precision)
    e.req.precision = req.precision = default_train_precision(m, e.gpu.fp8_TFLOPS > 0);
  if (req.fp8_param_gather && req.precision && *req.precision != TrainPrecision::FP8)
    throw FieldError("fp8_param_gather",
                     m.name + " trains in " + std::string(to_string(*req.precision)) +
                         " here: FP8 parameter gathers need --precision fp8 (or auto)");
  TrainingResult out;
  out.request = req;
  out.model = m.name, out.topology = r.topology().name, out.gpu = e.gpu.name;
  out.gpus = e.gpus;
  out.peak_TFLOPS_bf16 = e.peak_TFLOPS(TrainPrecision::BF16);
  out.peak_TFLOPS_fp8 = e.gpu.fp8_TFLOPS > 0 ? e.peak_TFLOPS(TrainPrecision::FP8) : 0;
  train::search(e, out);
  if (out.plans.empty())
    throw InputError("plan", "",
                     "no training strategy matches the pins on " + std::to_string(e.gpus) +
                         " GPUs (check divisibility)");
  if (out.plans.size() >= 2 && out.plans[0].fits && out.plans[1].fits)
    out.explanation = explain(out.plans[0], out.plans[1]);
  else if (out.plans[0].fits)
    out.explanation = describe(out.plans[0].strategy) + " is the only plan that fits.";
  else
    out.explanation = "No strategy fits in memory; the closest is " +
                      describe(out.plans[0].strategy) + " (" + out.plans[0].reason + ").";
  if (static_cast<int>(out.plans.size()) > req.top) out.plans.resize(req.top);
  place_best(r, out.plans[0].strategy, out);
  summarize(e, out.plans[0].strategy, out);
  return out;
}

TrainPlan evaluate_training(const ModelSpec& m, const Router& r, const TrainRequest& q,
                            const TrainStrategy& s) {
  q.validate(m);
  TrainRequest req = q;
  if (req.gpus == 0) req.gpus = s.gpus();
  train::Evaluator e(m, r, req);
  return e.evaluate(s);
}

}  // namespace topoplan
