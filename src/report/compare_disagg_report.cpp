// Output of `topoplan compare --disagg`: per design, its aggregated and disaggregated rows at the
// same limits (GPUs, split, TTFT, TPOT, tok/s, tok/s/GPU, $/Mtok), the winner, and why; or JSON.
#include <nlohmann/json.hpp>

#include "report/compare.hpp"
#include "report/compare_parts.hpp"
#include "report/disagg_report.hpp"
#include "report/json_number.hpp"
#include "report/table.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

using nlohmann::ordered_json;

std::string limits_text(const PlanRequest& q) {
  std::string s = "prompt " + count_text(q.prompt) + ", output " + count_text(q.output);
  if (q.ttft_max_ms > 0) s += ", TTFT <= " + fmt("%g", q.ttft_max_ms) + " ms";
  if (q.tpot_max_ms > 0) s += ", TPOT <= " + fmt("%g", q.tpot_max_ms) + " ms";
  return s;
}

ordered_json row_json(const ServingRow& r) {
  return {{"mode", r.mode},
          {"gpus", r.gpus},
          {"split", r.split.empty() ? ordered_json(nullptr) : ordered_json(r.split)},
          {"strategy", r.strategy},
          {"ttft_ms", json_number(r.ttft_ms)},
          {"tpot_ms", json_number(r.tpot_ms)},
          {"tokens_per_s", json_number(r.tokens_per_s)},
          {"tokens_per_s_per_gpu", json_number(r.tokens_per_s_per_gpu)},
          {"usd_per_hour",
           r.usd_per_hour > 0 ? ordered_json(json_number(r.usd_per_hour)) : ordered_json(nullptr)},
          {"usd_per_mtok",
           r.usd_per_mtok ? ordered_json(json_number(*r.usd_per_mtok)) : ordered_json(nullptr)}};
}

const ServingRow* row_of(const DisaggDesignResult& d, const std::string& mode) {
  for (const ServingRow& r : d.rows)
    if (r.mode == mode) return &r;
  return nullptr;
}

}  // namespace

void print_disagg_compare(std::ostream& os, const DisaggComparison& c) {
  os << "topoplan compare --disagg: " << c.model << ", aggregated vs disaggregated serving, "
     << limits_text(c.request) << "\n\n";
  Table t({"design", "mode", "GPUs", "split", "TTFT ms", "TPOT ms", "tok/s", "tok/s/GPU", "$/Mtok",
           "strategy"});
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const DisaggDesignResult& d = c.designs[i];
    for (const std::string mode : {"aggregated", "disaggregated"}) {
      const ServingRow* r = row_of(d, mode);
      const bool first = mode == "aggregated";
      const std::string name = first ? d.spec.name : "";
      if (!r) {
        // A mixed cluster has no aggregated engine (one GPU kind per engine).
        // The planner's message below the table says why (memory or the limits).
        const std::string why = first && d.out.prefill_gpu != d.out.decode_gpu
                                    ? "mixed GPUs: one kind per engine"
                                    : "none fits and meets the limits";
        t.add_row({name, mode, "-", "-", "-", "-", "-", "-", "-", why});
        continue;
      }
      const bool won = c.overall == static_cast<int>(i) && &d.rows[c.overall_row] == r;
      t.add_row({name, mode, fmt("%.0f", r->gpus), r->split.empty() ? "-" : r->split,
                 fmt("%.0f", r->ttft_ms), fmt("%.1f", r->tpot_ms), count_text(r->tokens_per_s),
                 fmt("%.1f", r->tokens_per_s_per_gpu) +
                     (won && c.criterion != "usd_per_mtok" ? " *" : ""),
                 r->usd_per_mtok ? fmt("%.3f", *r->usd_per_mtok) +
                                       (won && c.criterion == "usd_per_mtok" ? " *" : "")
                                 : "-",
                 r->strategy});
    }
  }
  t.print(os);
  os << "* the winner; tok/s = output tokens/s within the limits (disaggregated: goodput of the "
        "xPyD system); $/Mtok = the row's GPUs x $/GPU-h / output tokens\n\n";
  for (const DisaggDesignResult& d : c.designs) {
    os << d.spec.name << ": ";
    for (std::size_t k = 0; k < d.gpu_counts.size(); ++k)
      os << (k ? " + " : "") << d.gpu_counts[k].second << " x " << d.gpu_counts[k].first;
    os << " on " << d.servers << " server(s), " << fmt("%.1f", d.power_W / 1e3) << " kW IT";
    for (const auto& [gpu, price] : d.prices) os << "\n  " << gpu << " " << price_text(price, gpu);
    if (d.out.best)
      os << "\n  KV per request " << format_bytes_binary(d.out.best->kv.bytes_per_request) << " in "
         << fmt("%.2f", d.out.best->kv.time_ms) << " ms; bound by " << d.out.best->bottleneck;
    if (!d.out.status_message.empty()) os << "\n  " << d.out.status_message;
    os << "\n";
  }
  os << "\n" << c.why << "\n";
}

void print_disagg_compare_json(std::ostream& os, const DisaggComparison& c) {
  ordered_json designs = ordered_json::array();
  for (const DisaggDesignResult& d : c.designs) {
    ordered_json rows = ordered_json::array();
    for (const ServingRow& r : d.rows) rows.push_back(row_json(r));
    ordered_json prices = ordered_json::array();
    for (const auto& [gpu, price] : d.prices) {
      ordered_json p = price_json(price);
      p["gpu"] = gpu;
      prices.push_back(std::move(p));
    }
    designs.push_back(
        {{"name", d.spec.name},
         {"spec", d.spec.text},
         {"topology", d.topology},
         {"gpu", d.gpu},
         {"prefill_gpu", d.out.prefill_gpu},
         {"decode_gpu", d.out.decode_gpu},
         {"servers", d.servers},
         {"gpus", d.gpus},
         {"power_W", json_number(d.power_W)},
         {"prices", prices},
         {"rows", rows},
         {"best", d.best_row < 0 ? ordered_json(nullptr) : ordered_json(d.rows[d.best_row].mode)},
         {"disagg", d.out.best ? disagg_result_json(*d.out.best) : ordered_json(nullptr)},
         {"verdict", d.out.verdict},
         {"status", d.out.status},
         {"message", d.out.status_message.empty() ? ordered_json(nullptr)
                                                  : ordered_json(d.out.status_message)}});
  }
  const PlanRequest& q = c.request;
  auto limit = [](double v) { return v > 0 ? ordered_json(v) : ordered_json(nullptr); };
  ordered_json out{
      {"model", c.model},
      {"mode", "serve"},
      {"disagg", true},
      {"request",
       {{"prompt", q.prompt},
        {"output", q.output},
        {"ttft_max_ms", limit(q.ttft_max_ms)},
        {"tpot_max_ms", limit(q.tpot_max_ms)}}},
      {"designs", designs},
      {"criterion", c.criterion},
      {"overall", c.overall < 0
                      ? ordered_json(nullptr)
                      : ordered_json({{"design", c.designs[c.overall].spec.name},
                                      {"mode", c.designs[c.overall].rows[c.overall_row].mode}})},
      {"why", c.why}};
  os << out.dump(2) << "\n";
}

}  // namespace topoplan::report
