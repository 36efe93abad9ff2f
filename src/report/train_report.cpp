// `topoplan plan --mode train` output. JSON keys are a contract (issue 13, docs/training.md).
#include "report/train_report.hpp"

#include <nlohmann/json.hpp>

#include "report/json_number.hpp"
#include "report/table.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

using nlohmann::ordered_json;

template <typename T>
ordered_json opt(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json memory_json(const TrainMemory& m) {
  return {{"capacity_bytes", json_number(m.capacity_bytes)},
          {"weights_bytes", json_number(m.weights_bytes)},
          {"gradients_bytes", json_number(m.grads_bytes)},
          {"optimizer_bytes", json_number(m.optimizer_bytes)},
          {"activations_bytes", json_number(m.activations_bytes)},
          {"buffers_bytes", json_number(m.buffers_bytes)},
          {"reserve_bytes", json_number(m.reserve_bytes)},
          {"micro_batches_in_flight", json_number(m.in_flight)}};
}

ordered_json breakdown_json(const TrainBreakdown& b) {
  auto n = [](double x) { return json_number(x); };
  return {{"forward_us", n(b.forward_us)},     {"backward_us", n(b.backward_us)},
          {"recompute_us", n(b.recompute_us)}, {"compute_us", n(b.compute_us())},
          {"tp_exposed_us", n(b.tp_us)},       {"tp_hidden_us", n(b.tp_hidden_us)},
          {"cp_exposed_us", n(b.cp_us)},       {"cp_hidden_us", n(b.cp_hidden_us)},
          {"ep_exposed_us", n(b.ep_us)},       {"ep_hidden_us", n(b.ep_hidden_us)},
          {"pp_exposed_us", n(b.pp_us)},       {"pp_hidden_us", n(b.pp_hidden_us)},
          {"dp_exposed_us", n(b.dp_us)},       {"dp_hidden_us", n(b.dp_hidden_us)},
          {"zero3_exposed_us", n(b.zero3_us)}, {"zero3_hidden_us", n(b.zero3_hidden_us)},
          {"bubble_us", n(b.bubble_us)},       {"optimizer_us", n(b.optimizer_us)},
          {"comm_sm_us", n(b.comm_sm_us)},     {"fp8_overhead_us", n(b.fp8_overhead_us)},
          {"total_us", n(b.total_us)}};
}

// The selective recompute's modules (Megatron-Core names), null for none or full.
ordered_json recompute_modules_json(const TrainStrategy& s) {
  if (s.recompute != Recompute::Selective) return nullptr;
  return recompute_module_names(s.recompute_modules);
}

ordered_json plan_json(const TrainPlan& p, bool with_days) {
  const TrainStrategy& s = p.strategy;
  ordered_json j{{"fits", p.fits},
                 {"reason", p.reason.empty() ? ordered_json(nullptr) : ordered_json(p.reason)},
                 {"tp", s.tp},
                 {"pp", s.pp},
                 {"vp", s.vp},
                 {"dp", s.dp},
                 {"cp", s.cp},
                 {"ep", s.ep},
                 {"etp", s.etp},
                 {"sp", s.sp},
                 {"zero", s.zero},
                 {"recompute", to_string(s.recompute)},
                 {"recompute_modules", recompute_modules_json(s)},
                 {"micro_batch", s.micro_batch},
                 {"micro_batches", p.micro_batches},
                 {"precision", to_string(s.precision)}};
  auto num = [&](double x) {
    return p.fits ? ordered_json(json_number(x)) : ordered_json(nullptr);
  };
  j["step_time_ms"] = num(p.step_time_ms);
  j["tokens_per_s"] = num(p.tokens_per_s);
  j["tokens_per_s_per_gpu"] = num(p.tokens_per_s_per_gpu);
  j["tflops_per_gpu"] = num(p.tflops_per_gpu);
  j["hw_tflops_per_gpu"] = num(p.hw_tflops_per_gpu);
  j["tflops_per_gpu_causal"] = num(p.tflops_per_gpu_causal);
  j["mfu"] = num(p.mfu);
  j["memory_per_gpu_bytes"] = json_number(p.memory.total());
  j["memory"] = memory_json(p.memory);
  j["breakdown"] = p.fits ? breakdown_json(p.breakdown) : ordered_json(nullptr);
  j["days_to_train"] =
      with_days && p.fits ? ordered_json(json_number(p.days_to_train)) : ordered_json(nullptr);
  return j;
}

ordered_json request_json(const TrainRequest& q) {
  return {
      {"mode", "train"},
      {"seq", q.seq},
      {"global_batch", q.global_batch},
      {"gpus", q.gpus > 0 ? ordered_json(q.gpus) : ordered_json(nullptr)},
      {"micro_batch", opt(q.micro_batch)},
      {"tp", opt(q.tp)},
      {"pp", opt(q.pp)},
      {"vp", opt(q.vp)},
      {"dp", opt(q.dp)},
      {"cp", opt(q.cp)},
      {"ep", opt(q.ep)},
      {"zero", opt(q.zero)},
      {"recompute", q.recompute ? ordered_json(to_string(*q.recompute)) : ordered_json(nullptr)},
      {"precision", q.precision ? ordered_json(to_string(*q.precision)) : ordered_json(nullptr)},
      {"precision_searched", q.search_precision},
      {"train_tokens", q.train_tokens > 0 ? ordered_json(q.train_tokens) : ordered_json(nullptr)},
      {"flash_attention", q.flash_attention},
      {"tp_comm_overlap", q.tp_comm_overlap},
      {"moe_dispatcher", q.deepep ? "deepep" : "alltoall"},
      {"engine", q.engine},
      {"pp_schedule", q.dualpipe ? "dualpipe" : "1f1b"},
      {"ep_overlap", q.ep_overlap},
      {"recompute_modules", q.recompute_modules
                                ? ordered_json(recompute_module_names(*q.recompute_modules))
                                : ordered_json(nullptr)},
      {"fp8_param_gather", q.fp8_param_gather},
      {"grad_reduce", to_string(resolved_grad_reduce(q))},
      {"reserve_bytes", json_number(q.reserve_bytes)}};
}

std::string gb(double bytes) {
  return fmt("%.1f", bytes / kGiB);
}
std::string ms(double us) {
  return fmt("%.1f", us / 1e3);
}

}  // namespace

std::string train_plan_json_text(const TrainPlan& p) {
  return plan_json(p, p.days_to_train > 0).dump(2);
}

void print_train_json(std::ostream& os, const TrainingResult& r) {
  const bool timed = r.search_s >= 0;  // negative: timing withheld (--no-timing)
  // The same key and values as the serving plan JSON (training has no latency limits, so never
  // "no_plan_meets_limits"); the CLI exits 3 when it is not "ok".
  const bool fits = !r.plans.empty() && r.plans.front().fits;
  ordered_json j{
      {"status", fits ? "ok" : "no_plan_fits"},
      {"request", request_json(r.request)},
      {"model", r.model},
      {"topology", r.topology},
      {"gpu", r.gpu},
      {"gpus", r.gpus},
      {"peak_TFLOPS",
       {{"bf16", json_number(r.peak_TFLOPS_bf16)}, {"fp8", json_number(r.peak_TFLOPS_fp8)}}},
      {"strategies_enumerated", r.strategies_enumerated},
      {"pruned",
       {{"divisibility", r.pruned_divisibility},
        {"memory", r.pruned_memory},
        {"bound", r.pruned_bound}}},
      {"strategies_evaluated", r.strategies_evaluated},
      {"search_s", timed ? ordered_json(json_number(r.search_s)) : ordered_json(nullptr)},
      {"evaluations_per_s_per_core",
       timed ? ordered_json(json_number(r.evaluations_per_s_per_core)) : ordered_json(nullptr)}};
  ordered_json plans = ordered_json::array();
  for (const TrainPlan& p : r.plans) plans.push_back(plan_json(p, r.request.train_tokens > 0));
  j["plans"] = plans;
  ordered_json ranks = ordered_json::array();
  for (const TrainRank& x : r.placement)
    ranks.push_back({{"rank", x.rank},
                     {"device", x.device_id},
                     {"node", x.node},
                     {"gpu", x.local_gpu},
                     {"nic", x.nic_id},
                     {"tp_rank", x.tp_rank},
                     {"cp_rank", x.cp_rank},
                     {"dp_rank", x.dp_rank},
                     {"pp_rank", x.pp_rank}});
  j["placement"] = ranks;
  j["placement_ranks"] = r.placement_ranks;
  ordered_json groups = ordered_json::array();
  for (const GroupSummary& g : r.groups)
    groups.push_back({{"kind", g.kind},
                      {"groups", g.groups},
                      {"size", g.size},
                      {"class", to_string(g.worst_class)},
                      {"bottleneck_GBps", json_number(g.bottleneck_GBps)},
                      {"bottleneck_link", g.bottleneck_link},
                      {"crosses_nodes", g.crosses_nodes}});
  j["groups"] = groups;
  j["explanation"] = r.explanation;
  os << j.dump(2) << "\n";
}

void print_train(std::ostream& os, const TrainingResult& r) {
  const TrainRequest& q = r.request;
  os << r.model << " training on " << r.topology << " (" << r.gpus << "x " << r.gpu << "), seq "
     << q.seq << ", global batch " << q.global_batch << " sequences, precision "
     << (q.precision
             ? std::string(to_string(*q.precision)) + " (--precision auto searches bf16 and fp8)"
             : std::string("searched (--precision auto)"))
     << "\n";
  Table t({"#", "strategy", "fits", "mem GiB", "step s", "tokens/s", "tok/s/GPU", "TFLOPS/GPU",
           "MFU", "days"});
  int i = 0;
  for (const TrainPlan& p : r.plans) {
    bool f = p.fits;
    t.add_row({std::to_string(++i), describe(p.strategy), f ? "yes" : "no", gb(p.memory.total()),
               f ? fmt("%.2f", p.step_time_ms / 1e3) : "-", f ? count_text(p.tokens_per_s) : "-",
               f ? count_text(p.tokens_per_s_per_gpu) : "-",
               f ? fmt("%.0f", p.tflops_per_gpu) : "-", f ? fmt("%.1f%%", 100 * p.mfu) : "-",
               f && q.train_tokens > 0 ? fmt("%.1f", p.days_to_train) : "-"});
  }
  t.print(os);
  const TrainPlan& b = r.plans.front();
  if (!b.fits) os << "\nno plan fits: " << b.reason << "\n";
  const TrainMemory& m = b.memory;
  os << "\nbest plan memory per GPU (GiB): weights " << gb(m.weights_bytes) << ", gradients "
     << gb(m.grads_bytes) << ", optimizer " << gb(m.optimizer_bytes) << ", activations "
     << gb(m.activations_bytes) << " (" << fmt("%.2f", m.in_flight)
     << " micro-batches in flight), buffers " << gb(m.buffers_bytes) << ", reserve "
     << gb(m.reserve_bytes) << " = " << gb(m.total()) << " of " << gb(m.capacity_bytes) << "\n";
  if (b.fits) {
    const TrainBreakdown& x = b.breakdown;
    os << "step " << ms(x.total_us) << " ms over " << b.micro_batches
       << " micro-batches (ms, exposed / hidden by overlap):\n";
    Table s({"term", "exposed", "hidden"});
    s.add_row({"forward", ms(x.forward_us), "-"});
    s.add_row({"backward", ms(x.backward_us), "-"});
    s.add_row({"recompute", ms(x.recompute_us), "-"});
    s.add_row({"tp collectives", ms(x.tp_us), ms(x.tp_hidden_us)});
    s.add_row({"cp ring exchange", ms(x.cp_us), ms(x.cp_hidden_us)});
    s.add_row({"ep all-to-all", ms(x.ep_us), ms(x.ep_hidden_us)});
    s.add_row({"pp send/recv", ms(x.pp_us), ms(x.pp_hidden_us)});
    s.add_row({"pipeline bubble", ms(x.bubble_us), "-"});
    s.add_row({"dp grads / params", ms(x.dp_us), ms(x.dp_hidden_us)});
    s.add_row({"zero-3 gathers", ms(x.zero3_us), ms(x.zero3_hidden_us)});
    s.add_row({"optimizer", ms(x.optimizer_us), "-"});
    s.add_row({"comm SM share", ms(x.comm_sm_us), "-"});
    s.add_row({"fp8 bookkeeping", ms(x.fp8_overhead_us), "-"});
    s.print(os, "  ");
  }
  os << "groups of the best plan (ranks tp, cp, dp, pp from innermost):\n";
  Table g({"kind", "groups", "size", "class", "bottleneck", "crosses nodes"});
  for (const GroupSummary& x : r.groups)
    g.add_row({x.kind, std::to_string(x.groups), std::to_string(x.size),
               std::string(to_string(x.worst_class)), x.bottleneck_link,
               x.crosses_nodes ? "yes" : "no"});
  g.print(os, "  ");
  os << "\n" << r.explanation << "\n";
  os << "search: " << r.strategies_enumerated << " strategies enumerated, " << r.pruned_divisibility
     << " pruned by divisibility, " << r.pruned_memory << " by memory, " << r.pruned_bound
     << " by the compute bound, " << r.strategies_evaluated << " evaluated";
  if (r.search_s >= 0)  // negative: timing withheld (--no-timing)
    os << " in " << fmt("%.3f", r.search_s) << " s (" << fmt("%.0f", r.evaluations_per_s_per_core)
       << " strategies/s on one core)";
  os << ". MFU against "
     << "the dense peak of the precision (bf16 " << fmt("%.0f", r.peak_TFLOPS_bf16) << ", fp8 "
     << fmt("%.0f", r.peak_TFLOPS_fp8) << " TFLOPS).\n";
}

}  // namespace topoplan::report
