#include "report/disagg_report.hpp"

#include <nlohmann/json.hpp>

#include "report/json_number.hpp"
#include "report/table.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

using nlohmann::ordered_json;

ordered_json limit_json(double v) {
  return v > 0 ? ordered_json(v) : ordered_json(nullptr);
}

ordered_json strategy_of(const Strategy& s) {
  return {{"tp", s.tp}, {"pp", s.pp}, {"ep", s.ep}, {"dp", s.dp}, {"attention_dp", s.attention_dp}};
}

ordered_json pool_json(const DisaggPool& p) {
  return {{"nodes", p.nodes},
          {"gpus", p.gpus},
          {"gpu", p.gpu},
          {"strategy", strategy_of(p.strategy)},
          {"batch", p.batch},
          {"step_ms", p.step_ms},
          {"capacity_requests_per_s", p.capacity_requests_per_s},
          {"utilization", p.utilization},
          {"tokens_per_s", p.tokens_per_s},
          {"tokens_per_s_per_gpu", p.tokens_per_s_per_gpu}};
}

ordered_json kv_json(const KvTransfer& k) {
  return {{"bytes_per_token", k.bytes_per_token},
          {"bytes_per_request", k.bytes_per_request},
          {"streams", k.streams},
          {"path", std::string(to_string(k.path))},
          {"time_ms", k.time_ms},
          {"exposed_ms", k.exposed_ms},
          {"GBps", k.GBps},
          {"capacity_requests_per_s", k.capacity_requests_per_s}};
}

}  // namespace

ordered_json disagg_result_json(const DisaggResult& r) {
  return {{"ratio", r.ratio},
          {"prefill", pool_json(r.prefill)},
          {"decode", pool_json(r.decode)},
          {"kv_transfer", kv_json(r.kv)},
          {"requests_per_s", r.requests_per_s},
          {"bottleneck", r.bottleneck},
          {"queue_ms", r.queue_ms},
          {"ttft_ms", r.ttft_ms},
          {"tpot_ms", r.tpot_ms},
          {"goodput_tokens_per_s", r.goodput_tokens_per_s},
          {"goodput_tokens_per_s_per_gpu", r.goodput_tokens_per_s_per_gpu}};
}

namespace {

ordered_json aggregated_json(const std::optional<PlanResult>& p) {
  if (!p) return nullptr;
  return {{"strategy", strategy_of(p->strategy)},
          {"batch", p->batch},
          {"ttft_ms", p->ttft_ms},
          {"tpot_ms", p->tpot_ms},
          {"tokens_per_s", p->tokens_per_s},
          {"tokens_per_s_per_gpu", p->tokens_per_s_per_gpu}};
}

ordered_json sizing_json(const std::optional<DisaggSizing>& z) {
  if (!z) return nullptr;
  return {{"request_rate", z->request_rate},
          {"copies", z->copies},
          {"nodes", z->nodes},
          {"gpus", z->gpus},
          {"utilization", z->utilization}};
}

std::string percent(double f) {
  return fmt("%.0f%%", 100 * f);
}

void print_pools(std::ostream& os, const DisaggResult& r) {
  const bool mixed = r.prefill.gpu != r.decode.gpu;  // each pool's GPU model beside its count
  Table t({"pool", "servers", "GPUs", "strategy", "batch", "step ms", "capacity req/s", "busy",
           "tok/s/GPU"});
  for (const auto& [name, p] :
       {std::pair<const char*, const DisaggPool*>{"prefill", &r.prefill}, {"decode", &r.decode}})
    t.add_row({name, p->nodes > 0 ? std::to_string(p->nodes) : "-",
               std::to_string(p->gpus) + (mixed ? " x " + p->gpu : std::string()),
               to_string(p->strategy), count_text(p->batch), fmt("%.1f", p->step_ms),
               fmt("%.1f", p->capacity_requests_per_s), percent(p->utilization),
               count_text(p->tokens_per_s_per_gpu)});
  t.print(os);
  os << "(prefill tok/s are input tokens, decode tok/s output tokens; capacity is what a pool "
        "serves within the limits: for prefill at the highest busy share whose queueing keeps "
        "TTFT within --ttft-max, at most "
     << percent(kDisaggMaxUtilization) << "; busy is the share of the time a pool computes)\n";
}

void print_kv(std::ostream& os, const DisaggResult& r, double prompt) {
  const KvTransfer& k = r.kv;
  os << "\nKV transfer: " << format_bytes_binary(k.bytes_per_token) << "/token x "
     << count_text(prompt) << " prompt tokens = " << format_bytes_binary(k.bytes_per_request)
     << " per request, " << k.streams << (k.streams == 1 ? " stream" : " streams") << " ("
     << to_string(k.path) << "), " << fmt("%.2f", k.time_ms) << " ms at " << fmt("%.1f", k.GBps)
     << " GB/s; capacity " << count_text(k.capacity_requests_per_s) << " req/s\n";
  os << "TTFT " << fmt("%.1f", r.ttft_ms) << " ms = queue " << fmt("%.1f", r.queue_ms)
     << " + prefill " << fmt("%.1f", r.prefill.step_ms) << " + KV " << fmt("%.2f", r.kv.exposed_ms)
     << (r.kv.exposed_ms < r.kv.time_ms ? " (the rest overlaps the prefill, layer by layer)" : "")
     << "; TPOT " << fmt("%.2f", r.tpot_ms) << " ms\n";
}

void print_splits(std::ostream& os, const DisaggOutput& out) {
  os << "\nSplits tried (best first):\n";
  Table t({"split", "prefill", "decode", "req/s", "goodput tok/s", "tok/s/GPU", "bound by",
           "TTFT ms", "TPOT ms"});
  std::size_t shown = 0;
  for (const DisaggResult& r : out.splits) {
    if (shown++ == 8) break;
    t.add_row({r.ratio, to_string(r.prefill.strategy), to_string(r.decode.strategy),
               fmt("%.1f", r.requests_per_s), count_text(r.goodput_tokens_per_s),
               count_text(r.goodput_tokens_per_s_per_gpu), r.bottleneck, fmt("%.0f", r.ttft_ms),
               fmt("%.2f", r.tpot_ms)});
  }
  t.print(os);
  if (out.splits.size() > shown)
    os << "(" << out.splits.size() - shown << " more splits meet the limits)\n";
}

}  // namespace

void print_disagg_json(std::ostream& os, const DisaggOutput& out) {
  const PlanRequest& q = out.request;
  ordered_json splits = ordered_json::array();
  for (const DisaggResult& r : out.splits)
    splits.push_back({{"ratio", r.ratio},
                      {"requests_per_s", r.requests_per_s},
                      {"goodput_tokens_per_s", r.goodput_tokens_per_s},
                      {"bottleneck", r.bottleneck},
                      {"ttft_ms", r.ttft_ms},
                      {"tpot_ms", r.tpot_ms}});
  ordered_json j{{"model", out.model},
                 {"topology", out.topology},
                 {"gpu", out.gpu},
                 {"prefill_gpu", out.prefill_gpu},
                 {"decode_gpu", out.decode_gpu},
                 {"gpus", out.gpus},
                 {"nodes", out.nodes},
                 {"request",
                  {{"prompt", json_count(q.prompt)},
                   {"output", json_count(q.output)},
                   {"ttft_max_ms", limit_json(q.ttft_max_ms)},
                   {"tpot_max_ms", limit_json(q.tpot_max_ms)},
                   {"mtp_accept", limit_json(q.mtp_accept)},
                   {"kv_transfer", out.disagg.kv_layerwise ? "layerwise" : "after"},
                   {"two_batch_overlap", q.two_batch_overlap},
                   {"weight_format", out.weight_format},
                   {"kv_dtype", out.kv_dtype},
                   {"mem_util", q.mem_util},
                   {"prefill_chunk", json_count(q.prefill_chunk)},
                   {"cuda_graphs", q.cuda_graphs},
                   {"nvls", q.nvls},
                   {"moe_comm", to_string(q.moe_comm)},
                   {"fp8_block_gemm", to_string(q.fp8_block_gemm)}}},
                 {"status", out.status},
                 {"status_message", out.status_message},
                 // `plan --json`'s name for it (README "Exit codes"); status_message stays.
                 {"message", out.status_message.empty() ? ordered_json(nullptr)
                                                        : ordered_json(out.status_message)},
                 {"strategies_evaluated", out.strategies_evaluated},
                 {"disagg", out.best ? disagg_result_json(*out.best) : ordered_json(nullptr)},
                 {"aggregated", aggregated_json(out.aggregated)},
                 {"sizing", sizing_json(out.sizing)},
                 {"verdict", out.verdict},
                 {"splits", splits}};
  os << j.dump(2) << "\n";
}

void print_disagg(std::ostream& os, const DisaggOutput& out) {
  const PlanRequest& q = out.request;
  os << out.model << " on " << out.topology << " (";
  if (out.prefill_gpu != out.decode_gpu)  // a mixed cluster: each pool's own GPU
    os << out.gpus << " GPUs: " << out.prefill_gpu << " prefill, " << out.decode_gpu << " decode";
  else
    os << out.gpus << " x " << out.gpu;
  os << "), disaggregated prefill/decode: prompt " << count_text(q.prompt) << ", output "
     << count_text(q.output);
  if (q.ttft_max_ms > 0) os << ", TTFT <= " << fmt("%g", q.ttft_max_ms) << " ms";
  if (q.tpot_max_ms > 0) os << ", TPOT <= " << fmt("%g", q.tpot_max_ms) << " ms";
  os << "\nweights " << out.weight_format << "; KV cache " << out.kv_dtype << "\n"
     << count_of(out.strategies_evaluated, "strategy", "strategies") << " evaluated\n\n";
  if (!out.best) {
    os << "No split: " << out.status_message << "\n";
    return;
  }
  const DisaggResult& r = *out.best;
  os << "Best split " << r.ratio << ": " << fmt("%.1f", r.requests_per_s) << " requests/s, "
     << count_text(r.goodput_tokens_per_s) << " output tok/s within the limits ("
     << count_text(r.goodput_tokens_per_s_per_gpu) << " per GPU), bound by "
     << (r.bottleneck == "kv_transfer" ? "the KV transfer" : "the " + r.bottleneck + " pool")
     << "\n\n";
  print_pools(os, r);
  print_kv(os, r, q.prompt);
  if (out.aggregated)
    os << "\nAggregated on the same GPUs: " << to_string(out.aggregated->strategy) << " at batch "
       << count_text(out.aggregated->batch) << ", " << count_text(out.aggregated->tokens_per_s)
       << " output tok/s (TTFT " << fmt("%.0f", out.aggregated->ttft_ms) << " ms, TPOT "
       << fmt("%.2f", out.aggregated->tpot_ms) << " ms)\n";
  os << out.verdict << "\n";
  if (out.sizing) {
    const DisaggSizing& z = *out.sizing;
    os << "\nFor " << fmt("%g", z.request_rate) << " requests/s: " << count_text(z.copies)
       << (z.copies == 1 ? " copy" : " copies") << " of this " << r.ratio << " system = ";
    if (z.nodes > 0) os << count_text(z.nodes) << " servers, ";
    os << count_text(z.gpus) << " GPUs, each copy " << percent(z.utilization)
       << " of its capacity\n";
  }
  print_splits(os, out);
}

}  // namespace topoplan::report
