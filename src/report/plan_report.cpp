// Output of `topoplan plan`: JSON (keys are a contract, docs/planner.md "Output") and the
// readable report (ranked table, best plan memory/breakdown/placement, explanation, Pareto).
#include "report/plan_report.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "report/json_number.hpp"
#include "report/json_splice.hpp"
#include "report/placement_runs.hpp"
#include "report/table.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

using nlohmann::ordered_json;

ordered_json count(double v) {
  return json_count(v);
}

// An unset limit or option (0 in the request): null, not 0.0.
ordered_json unset_if_zero(double v) {
  return v > 0 ? ordered_json(v) : ordered_json(nullptr);
}

ordered_json text_or_null(const std::string& s) {
  return s.empty() ? ordered_json(nullptr) : ordered_json(s);
}

ordered_json strategy_json(const Strategy& s) {
  return {{"tp", s.tp}, {"pp", s.pp}, {"ep", s.ep}, {"dp", s.dp}, {"attention_dp", s.attention_dp}};
}

ordered_json breakdown_json(const TimeBreakdown& b) {
  ordered_json j;
  for (const auto& [name, us] : terms(b)) j[name + "_us"] = us;
  j["total_us"] = b.total_us();
  // Under two-batch overlap only (not a term: hidden behind compute), so other plans' documents
  // keep their keys.
  if (b.comm_hidden_us > 0) j["comm_hidden_us"] = b.comm_hidden_us;
  return j;
}

ordered_json memory_json(const MemoryPerGpu& m) {
  return {
      {"capacity_bytes", m.capacity_bytes},         {"reserve_bytes", m.reserve_bytes},
      {"weights_bytes", m.weights_bytes},           {"activations_bytes", m.activations_bytes},
      {"comm_buffers_bytes", m.comm_buffers_bytes}, {"kv_capacity_bytes", m.kv_capacity_bytes},
      {"kv_used_bytes", m.kv_used_bytes},           {"kv_bytes_per_token", m.kv_bytes_per_token}};
}

// The rank table, streamed (json_splice.hpp): the same objects placement_json built as a tree.
void write_placement(std::ostream& os, int depth, const std::vector<RankPlacement>& ranks) {
  write_flat_array(os, 2, depth, ranks.size(), [&](std::size_t i, auto& f) {
    const RankPlacement& r = ranks[i];
    f = {{"rank", std::to_string(r.rank)},       {"device", json_string(r.device_id)},
         {"node", std::to_string(r.node)},       {"gpu", std::to_string(r.local_gpu)},
         {"nic", json_string(r.nic_id)},         {"tp_rank", std::to_string(r.tp_rank)},
         {"pp_rank", std::to_string(r.pp_rank)}, {"dp_rank", std::to_string(r.dp_rank)}};
  });
}

ordered_json groups_json(const std::vector<GroupSummary>& gs) {
  ordered_json arr = ordered_json::array();
  for (const GroupSummary& g : gs)
    arr.push_back({{"kind", g.kind},
                   {"groups", g.groups},
                   {"size", g.size},
                   {"class", to_string(g.worst_class)},
                   {"bottleneck_GBps", g.bottleneck_GBps},
                   {"bottleneck_link", g.bottleneck_link},
                   {"crosses_nodes", g.crosses_nodes}});
  return arr;
}

// A plan that does not fit was never timed: its times, rates and breakdown are null (as in the
// training plans' JSON), not zeros that read as values (issue 32: 5,997 of the 6,236 plans at
// 12,500 nodes do not fit, and their zeroed breakdowns were 8.5 MB of the 10.5 MB document).
ordered_json timed(const PlanResult& p, double value) {
  return p.fits ? ordered_json(value) : ordered_json(nullptr);
}

// A strategy refused for its shape (heads or layers not divisible) was never sized either: its
// memory is null, not a block of zeros (issue 32: 5,960 of the 6,236 plans of DeepSeek-R1 on
// 12,500 nodes). Memory is sized exactly when the GPU's capacity was filled in: every catalog GPU
// has some.
ordered_json sized(const PlanResult& p, ordered_json value) {
  return p.memory.capacity_bytes > 0 ? std::move(value) : ordered_json(nullptr);
}

// A plan's document; its placement is a placeholder that `splices` will stream, or its runs
// (placement_runs.hpp) when it is long and the detail was not asked for.
ordered_json plan_json(const PlanResult& p, std::vector<Splice>& splices, PlacementOrder order,
                       bool detail) {
  ordered_json j{{"strategy", strategy_json(p.strategy)},
                 {"fits", p.fits},
                 {"reason", text_or_null(p.reason)},
                 {"meets_limits", p.meets_limits},
                 {"memory_per_gpu_bytes", sized(p, p.memory.used_bytes())},
                 {"memory", sized(p, memory_json(p.memory))},
                 {"max_batch", count(p.max_batch)},
                 {"batch", count(p.batch)},
                 {"ttft_ms", timed(p, p.ttft_ms)},
                 {"tpot_ms", timed(p, p.tpot_ms)},
                 {"tokens_per_s", timed(p, p.tokens_per_s)},
                 {"tokens_per_s_per_gpu", timed(p, p.tokens_per_s_per_gpu)},
                 {"tokens_per_s_per_user", timed(p, p.tokens_per_s_per_user)}};
  j["breakdown"] = p.fits ? ordered_json{{"decode", breakdown_json(p.decode)},
                                         {"prefill", breakdown_json(p.prefill)}}
                          : ordered_json(nullptr);
  if (!p.placement_runs.empty()) {  // kept as runs (PlanRequest::rank_lists off)
    j["placement"] = nullptr;
    j["placement_runs"] =
        placement_runs_json(p.placement_runs, static_cast<std::size_t>(p.strategy.gpus()), order);
  } else if (p.placement.empty()) {  // only the top plans carry one: no splice for the others
    j["placement"] = ordered_json::array();
  } else if (!detail && p.placement.size() > kPlacementListRanks) {
    j["placement"] = nullptr;
    j["placement_runs"] = placement_runs_json(p.placement, order);
  } else {
    std::string hole = splice_placeholder(static_cast<int>(splices.size()));
    j["placement"] = hole;
    splices.push_back({std::move(hole), [&p](std::ostream& os, int depth) {
                         write_placement(os, depth, p.placement);
                       }});
  }
  j["groups"] = groups_json(p.groups);
  return j;
}

ordered_json request_json(const PlanOutput& o) {
  const PlanRequest& r = o.request;
  ordered_json j{{"model", o.model},
                 {"topology", o.topology},
                 {"gpu", o.gpu},
                 {"gpus", o.gpus},
                 {"topology_gpus", o.topology_gpus},
                 {"mode", to_string(r.mode)},
                 {"batch", r.batch > 0 ? count(r.batch) : ordered_json(nullptr)},
                 {"prompt", count(r.prompt)},
                 {"output", count(r.output)},
                 {"context", count(o.context)},
                 {"tpot_max_ms", unset_if_zero(r.tpot_max_ms)},
                 {"ttft_max_ms", unset_if_zero(r.ttft_max_ms)},
                 {"mtp_accept", unset_if_zero(r.mtp_accept)},
                 {"mtp_draft", r.mtp_draft},
                 {"placement", to_string(r.order)},
                 {"mem_util", r.mem_util},
                 {"prefill_chunk", count(r.prefill_chunk)},
                 {"cuda_graphs", r.cuda_graphs},
                 {"nvls", r.nvls},
                 {"moe_comm", to_string(r.moe_comm)},
                 {"two_batch_overlap", r.two_batch_overlap},
                 {"workload", to_string(r.workload)},
                 {"fp8_block_gemm", to_string(r.fp8_block_gemm)},
                 {"requests", r.requests > 0 ? count(r.requests) : ordered_json(nullptr)},
                 {"concurrency", r.concurrency > 0 ? count(r.concurrency) : ordered_json(nullptr)},
                 {"weight_format", o.weight_format},
                 {"kv_dtype", o.kv_dtype}};
  return j;
}

// The burst schedule (burst.hpp); null without --workload burst, so the keys are always there.
ordered_json burst_json(const std::optional<BurstResult>& b) {
  if (!b) return nullptr;
  ordered_json waves = ordered_json::array();
  for (const BurstWave& w : b->waves)
    waves.push_back({{"requests", count(w.requests)},
                     {"start_s", w.start_us * 1e-6},
                     {"prefill_s", w.prefill_us * 1e-6},
                     {"decode_s", w.decode_us * 1e-6},
                     {"decode_step_ms", w.decode_step_us * 1e-3}});
  return {{"requests", count(b->requests)},
          {"concurrency", count(b->concurrency)},
          {"makespan_s", b->makespan_s},
          {"prefill_s", b->prefill_s},
          {"decode_s", b->decode_s},
          {"total_tokens_per_s", b->total_tokens_per_s},
          {"output_tokens_per_s", b->output_tokens_per_s},
          {"mean_ttft_ms", b->mean_ttft_ms},
          {"max_ttft_ms", b->max_ttft_ms},
          {"mean_tpot_ms", b->mean_tpot_ms},
          {"waves", std::move(waves)}};
}

// The closed loop (closed_loop.hpp), whole plan; null without --workload closed.
ordered_json closed_loop_json(const std::optional<ClosedLoopResult>& c) {
  if (!c) return nullptr;
  return {{"concurrency", count(c->plan_concurrency)},
          {"replicas", count(c->replicas)},
          {"prefill_one_ms", c->prefill_one_us * 1e-3},
          {"decode_step_ms", c->step_us * 1e-3},
          {"cycle_s", c->cycle_us * 1e-6},
          {"mean_ttft_ms", c->mean_ttft_ms},
          {"mean_tpot_ms", c->mean_tpot_ms},
          {"output_tokens_per_s", c->plan_output_tokens_per_s},
          {"total_tokens_per_s", c->plan_total_tokens_per_s},
          {"output_tokens_per_s_per_gpu", c->output_tokens_per_s_per_gpu},
          {"total_tokens_per_s_per_gpu", c->total_tokens_per_s_per_gpu}};
}

// Rounds every floating-point value of the tree (json_number), so goldens are stable across
// optimisation levels; integers and strings are left alone.
void round_numbers(ordered_json& j) {
  if (j.is_number_float()) {
    j = json_number(j.get<double>());
  } else if (j.is_structured()) {
    for (auto& child : j) round_numbers(child);
  }
}

}  // namespace

void print_plan_json(std::ostream& os, const PlanOutput& out, bool placement_detail) {
  ordered_json j;
  j["status"] = out.status;
  j["message"] = text_or_null(out.status_message);
  j["request"] = request_json(out);
  j["strategies_evaluated"] = out.strategies_evaluated;
  // The long arrays (one entry per GPU) are streamed into the dump, not built as a tree.
  std::vector<Splice> splices;
  std::vector<std::string> used;
  const bool runs =
      !placement_detail && out.placement && out.placement->ranks.size() > kPlacementListRanks;
  if (runs) {
    j["gpus_used"] = nullptr;
    j["gpus_used_runs"] = placement_runs_json(out.placement->ranks, out.placement->order)["runs"];
  } else {
    if (out.placement)
      for (const RankPlacement& r : out.placement->ranks) used.push_back(r.device_id);
    splices.push_back({splice_placeholder(0), [&used](std::ostream& o, int depth) {
                         write_string_array(o, 2, depth, used);
                       }});
    j["gpus_used"] = splices.back().placeholder;
  }
  j["precision_notes"] = out.precision_notes;
  if (!out.catalog_notes.empty()) j["catalog_notes"] = out.catalog_notes;  // absent: all public
  j["evaluations_per_s_per_core"] = out.evaluations_per_s_per_core();
  ordered_json plans = ordered_json::array();
  for (const PlanResult& p : out.plans)
    plans.push_back(plan_json(p, splices, out.request.order, placement_detail));
  j["plans"] = std::move(plans);
  ordered_json pareto = ordered_json::array();
  for (const ParetoPoint& p : out.pareto)
    pareto.push_back({{"strategy", strategy_json(p.strategy)},
                      {"batch", count(p.batch)},
                      {"tpot_ms", p.tpot_ms},
                      {"tokens_per_s_per_gpu", p.tokens_per_s_per_gpu},
                      {"tokens_per_s_per_user", p.tokens_per_s_per_user}});
  j["pareto"] = std::move(pareto);
  j["explanation"] = text_or_null(out.explanation);
  j["objective_note"] = text_or_null(out.objective_note);
  // Always present (null when no plan fits), so every output has the same keys.
  j["bad_placement"] = nullptr;
  if (out.bad_placement) {
    const PlanResult& b = *out.bad_placement;
    j["bad_placement"] = {{"order", out.bad_order},
                          {"tpot_ms", b.tpot_ms},
                          {"ttft_ms", b.ttft_ms},
                          {"tokens_per_s_per_gpu", b.tokens_per_s_per_gpu}};
  }
  j["burst"] = burst_json(out.burst);
  j["closed_loop"] = closed_loop_json(out.closed_loop);
  round_numbers(j);
  dump_spliced(os, j, 2, splices);
  os << "\n";
}

}  // namespace topoplan::report

namespace topoplan::report {

namespace {

std::string gbytes(double b) {
  return format_GiB(b);
}

std::string batch_text(double b) {
  return count_text(b);
}

void print_header(std::ostream& os, const PlanOutput& o) {
  const PlanRequest& r = o.request;
  os << "topoplan plan: " << o.model << " on " << o.topology << " (";
  if (o.gpus < o.topology_gpus) os << o.gpus << " of ";
  os << o.topology_gpus << "x " << o.gpu << "), mode " << to_string(r.mode) << "\n";
  os << "workload: prompt " << fmt("%.0f", r.prompt);
  if (r.mode != PlanMode::Prefill)  // prefill mode never generates: no output, no decode context
    os << ", output " << fmt("%.0f", r.output) << ", decode context " << fmt("%.0f", o.context)
       << (r.context > 0 ? "" : " (prompt + output/2)");
  os << ", batch "
     << (r.batch > 0 ? batch_text(r.batch)
                     : (r.mode == PlanMode::Serve ? "searched" : std::string("1")));
  if (r.tpot_max_ms > 0) os << ", TPOT <= " << fmt("%g", r.tpot_max_ms) << " ms";
  if (r.ttft_max_ms > 0) os << ", TTFT <= " << fmt("%g", r.ttft_max_ms) << " ms";
  // Default (graphs on) stays silent so the usual output is unchanged.
  if (!r.cuda_graphs) os << ", CUDA graphs off (eager decode launches)";
  if (r.nvls) os << ", NCCL NVLS on";
  if (r.moe_comm == MoeComm::AllGather) os << ", MoE all-gather + reduce-scatter";
  if (r.mtp_accept > 0)
    os << ", MTP " << r.mtp_draft << " draft, " << fmt("%g", r.mtp_accept) << " accepted/step";
  os << "\nweights " << o.weight_format << "; KV cache " << o.kv_dtype << "\n";
  for (const std::string& n : o.precision_notes) os << "note: " << n << "\n";
  for (const std::string& n : o.catalog_notes) os << "note: " << n << "\n";
  os << count_of(o.strategies_evaluated, "strategy", "strategies") << " evaluated; placement "
     << to_string(r.order) << "; tokens/s are output tokens"
     << (r.mode == PlanMode::Prefill ? " (prefill: input)" : "") << "\n\n";
}

void print_ranking(std::ostream& os, const PlanOutput& o) {
  Table t({"#", "strategy", "fits", "mem/GPU", "max batch", "batch", "TTFT ms", "TPOT ms", "tok/s",
           "tok/s/GPU", "tok/s/user"});
  int shown = 0, infeasible = 0;
  for (const PlanResult& p : o.plans) {
    if (!p.fits) {
      ++infeasible;
      continue;
    }
    if (shown >= o.request.top) continue;
    ++shown;
    t.add_row({std::to_string(shown), label(p.strategy, o.moe), p.meets_limits ? "yes" : "limits",
               gbytes(p.memory.used_bytes()), batch_text(p.max_batch), batch_text(p.batch),
               fmt("%.1f", p.ttft_ms), fmt("%.2f", p.tpot_ms), count_text(p.tokens_per_s),
               fmt("%.1f", p.tokens_per_s_per_gpu), fmt("%.1f", p.tokens_per_s_per_user)});
  }
  t.print(os);
  // Outside serve the columns keep their names but not their serving meaning (issue 28's walk).
  if (o.request.mode == PlanMode::Decode)
    os << "(--mode decode: TTFT is the prefill of the whole batch at once, not a served "
          "request's; tok/s/user = 1000 / TPOT)\n";
  else if (o.request.mode == PlanMode::Prefill)
    os << "(--mode prefill: tok/s are prompt tokens; tok/s/user = a prompt's tokens / its "
          "prefill time; TPOT is the decode step that would follow)\n";
  int fitting = static_cast<int>(o.plans.size()) - infeasible;
  if (fitting > shown)
    os << "(" << count_of(fitting - shown, "more fitting strategy", "more fitting strategies")
       << "; --top N)\n";
  if (infeasible > 0) {
    os << count_of(infeasible, "strategy does", "strategies do") << " not fit, e.g.:\n";
    int n = 0;
    for (const PlanResult& p : o.plans)
      if (!p.fits && n++ < 3) os << "  " << label(p.strategy, o.moe) << ": " << p.reason << "\n";
  }
}

void print_memory(std::ostream& os, const MemoryPerGpu& m) {
  os << "Memory per GPU: weights " << gbytes(m.weights_bytes) << ", KV cache "
     << gbytes(m.kv_used_bytes) << " used of " << gbytes(m.kv_capacity_bytes) << " free ("
     << fmt("%.0f", m.kv_bytes_per_token) << " B/token), workspace " << gbytes(m.activations_bytes)
     << ", NCCL buffers " << gbytes(m.comm_buffers_bytes) << ", reserve " << gbytes(m.reserve_bytes)
     << "; capacity " << gbytes(m.capacity_bytes) << "\n";
}

void print_breakdowns(std::ostream& os, const PlanResult& p) {
  Table t({"term", "decode step µs", "share", "prefill (TTFT) µs", "share"});
  auto d = terms(p.decode), f = terms(p.prefill);
  double dt = p.decode.total_us(), ft = p.prefill.total_us();
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (d[i].second <= 0 && f[i].second <= 0) continue;
    t.add_row({d[i].first, fmt("%.1f", d[i].second), fmt("%.1f%%", 100 * d[i].second / dt),
               fmt("%.1f", f[i].second), fmt("%.1f%%", 100 * f[i].second / ft)});
  }
  t.add_row({"total", fmt("%.1f", dt), "100%", fmt("%.1f", ft), "100%"});
  t.print(os, "  ");
  // The one term that is not GPU work: say what it is (issue 28).
  if (p.prefill.queue_us > 0)
    os << "  queue: the mean wait of a newly arrived prompt before its prefill starts, at the load "
          "this plan serves (M/D/1 on the share of time the GPUs spend prefilling, plus half a "
          "decode step in progress; docs/planner.md, TTFT)\n";
}

void print_placement(std::ostream& os, const PlanOutput& o, const PlanResult& best) {
  const Placement& pl = *o.placement;
  Table t({"rank", "device", "node", "GPU", "NIC", "tp", "pp", "dp"});
  std::size_t limit = 16;
  for (std::size_t i = 0; i < pl.ranks.size() && i < limit; ++i) {
    const RankPlacement& r = pl.ranks[i];
    t.add_row({std::to_string(r.rank), r.device_id, std::to_string(r.node),
               std::to_string(r.local_gpu), r.nic_id.empty() ? "-" : r.nic_id,
               std::to_string(r.tp_rank), std::to_string(r.pp_rank), std::to_string(r.dp_rank)});
  }
  os << "Placement (" << to_string(pl.order) << "):\n";
  t.print(os, "  ");
  if (pl.ranks.size() > limit)
    os << "  ... " << pl.ranks.size() - limit << " more ranks (--json"
       << (pl.ranks.size() > kPlacementListRanks ? " --placement-detail" : "") << ")\n";
  Table g({"group", "groups", "size", "class", "bottleneck GB/s", "link", "crosses nodes"});
  for (const GroupSummary& s : best.groups)
    if (s.size > 1)  // a group of one GPU communicates nothing (ep of a dense model, tp1)
      g.add_row({s.kind, std::to_string(s.groups), std::to_string(s.size),
                 std::string(to_string(s.worst_class)), fmt("%.0f", s.bottleneck_GBps),
                 s.bottleneck_link.empty() ? "-" : s.bottleneck_link,
                 s.crosses_nodes ? "yes" : "no"});
  g.print(os, "  ");
  if (o.bad_placement && o.bad_placement->fits) {
    const PlanResult& b = *o.bad_placement;
    // Within 0.1% of the best TPOT counts as the same (rounding only, not a placement effect).
    os << "  Under " << o.bad_order << " order the same plan would run TPOT "
       << fmt("%.2f", b.tpot_ms) << " ms (" << fmt("%.2fx", b.tpot_ms / best.tpot_ms) << "), TTFT "
       << fmt("%.1f", b.ttft_ms) << " ms (" << fmt("%.2fx", b.ttft_ms / best.ttft_ms) << ")"
       << (b.tpot_ms / best.tpot_ms < 1.001 ? ": the same GPUs and paths on this topology" : "")
       << ".\n";
  }
}

// Which GPUs a plan on part of the topology took (vLLM takes the first N visible devices).
void print_gpus_used(std::ostream& os, const PlanOutput& o) {
  os << "GPUs used: " << o.gpus << " of " << o.topology_gpus << " (";
  const auto& ranks = o.placement->ranks;
  for (std::size_t i = 0; i < ranks.size() && i < 16; ++i)
    os << (i ? ", " : "") << ranks[i].device_id;
  if (ranks.size() > 16) os << ", ... " << ranks.size() - 16 << " more";
  os << "); the other " << o.topology_gpus - o.gpus << " stay idle\n";
}

void print_pareto(std::ostream& os, const PlanOutput& o) {
  if (o.pareto.size() < 2) return;
  os << "Pareto front (tokens/s/GPU vs tokens/s/user over strategies and batches):\n";
  Table t({"tok/s/user", "tok/s/GPU", "TPOT ms", "strategy", "batch"});
  std::size_t step = std::max<std::size_t>(1, (o.pareto.size() + 11) / 12);
  for (std::size_t i = 0; i < o.pareto.size(); i += step) {
    const ParetoPoint& p = o.pareto[i];
    t.add_row({fmt("%.1f", p.tokens_per_s_per_user), fmt("%.1f", p.tokens_per_s_per_gpu),
               fmt("%.2f", p.tpot_ms), label(p.strategy, o.moe), batch_text(p.batch)});
  }
  t.print(os, "  ");
}

void print_burst(std::ostream& os, const BurstResult& b) {
  os << "Burst of " << count_text(b.requests) << " requests (prefill before decode, in "
     << b.waves.size() << (b.waves.size() == 1 ? " wave" : " waves") << " of at most "
     << fmt("%.0f", b.concurrency) << " sequences): makespan " << fmt("%.1f", b.makespan_s)
     << " s (prefill " << fmt("%.1f", b.prefill_s) << " s, decode " << fmt("%.1f", b.decode_s)
     << " s), " << count_text(b.total_tokens_per_s) << " total tok/s ("
     << count_text(b.output_tokens_per_s) << " output), mean TTFT " << fmt("%.0f", b.mean_ttft_ms)
     << " ms (last " << fmt("%.0f", b.max_ttft_ms) << " ms), mean TPOT "
     << fmt("%.1f", b.mean_tpot_ms) << " ms\n";
}

void print_closed_loop(std::ostream& os, const ClosedLoopResult& c) {
  os << "Closed loop of " << fmt("%.0f", c.plan_concurrency)
     << " requests in flight (each new prompt prefilled alone in "
     << fmt("%.1f", c.prefill_one_us * 1e-3) << " ms, stalling the others; decode step "
     << fmt("%.2f", c.step_us * 1e-3) << " ms): mean TTFT " << fmt("%.0f", c.mean_ttft_ms)
     << " ms, mean TPOT " << fmt("%.2f", c.mean_tpot_ms) << " ms, "
     << count_text(c.plan_output_tokens_per_s) << " output tok/s ("
     << fmt("%.1f", c.output_tokens_per_s_per_gpu) << " per GPU), "
     << count_text(c.plan_total_tokens_per_s) << " total tok/s ("
     << fmt("%.1f", c.total_tokens_per_s_per_gpu) << " per GPU)\n";
}

// The search's size and speed, the figure planners are compared by (varies run to run).
void print_footer(std::ostream& os, const PlanOutput& o) {
  os << "\nSearch: " << count_of(o.strategies_evaluated, "strategy", "strategies")
     << " evaluated in " << fmt("%.2f", o.search_seconds) << " s on " << o.threads << " thread"
     << (o.threads == 1 ? "" : "s") << ", " << fmt("%.0f", o.evaluations_per_s_per_core())
     << " evaluations/s per core\n";
}

}  // namespace

void print_plan(std::ostream& os, const PlanOutput& o) {
  if (!o.status_message.empty()) os << o.status_message << "\n\n";
  print_header(os, o);
  print_ranking(os, o);
  if (o.plans.empty() || !o.plans.front().fits) {
    print_footer(os, o);
    return;
  }
  const PlanResult& best = o.plans.front();
  os << "\nBest: " << label(best.strategy, o.moe) << " at batch " << batch_text(best.batch) << "\n";
  if (o.gpus < o.topology_gpus && o.placement) print_gpus_used(os, o);
  print_memory(os, best.memory);
  // KV-starved: fewer sequences fit than the plan has GPUs (less than one per GPU), so every
  // decode step reads each GPU's weights for a fraction of a sequence: the cache, not the
  // hardware, bounds the throughput.
  if (best.max_batch < best.strategy.gpus() && o.request.mode == PlanMode::Serve)
    os << "Note: only " << batch_text(best.max_batch)
       << (best.max_batch == 1 ? " sequence" : " sequences") << " of "
       << fmt("%.0f", o.request.max_sequence()) << " tokens fit the KV cache. The reserve ("
       << gbytes(best.memory.reserve_bytes) << " at --mem-util " << fmt("%g", o.request.mem_util)
       << ") is the largest lever; more GPUs (--nodes) cut the weights per GPU.\n";
  print_breakdowns(os, best);
  if (o.placement) print_placement(os, o, best);
  if (!o.explanation.empty()) os << "Why: " << o.explanation << "\n";
  if (!o.objective_note.empty()) os << o.objective_note << "\n";
  if (o.request.mode == PlanMode::Serve) print_pareto(os, o);
  if (o.burst) print_burst(os, *o.burst);
  if (o.closed_loop) print_closed_loop(os, *o.closed_loop);
  print_footer(os, o);
}

}  // namespace topoplan::report
