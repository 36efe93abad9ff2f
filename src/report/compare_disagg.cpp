// `topoplan compare --disagg`: every design served both ways at the same limits — its best
// aggregated plan and its best prefill/decode split (plan_disagg, disagg.hpp) — priced per GPU
// kind, with the winning (design, mode) and why.
#include <cmath>

#include "report/compare.hpp"
#include "report/compare_costs.hpp"
#include "report/table.hpp"
#include "topoplan/error.hpp"
#include "topoplan/route.hpp"

namespace topoplan::report {

namespace {

const std::optional<Sourced>& price_of(const DisaggDesignResult& d, const std::string& gpu) {
  for (const auto& [kind, price] : d.prices)
    if (kind == gpu) return price;
  throw InternalError("compare --disagg: no price entry for " + gpu);
}

// $/h of `gpus` GPUs of one kind, 0 when that kind has no price.
double hourly(const DisaggDesignResult& d, const std::string& gpu, int gpus) {
  const auto& p = price_of(d, gpu);
  return p ? gpus * p->value : 0;
}

// `priced`: every GPU of the row has a price (0 is a price: a row of owned GPUs costs nothing).
void finish_row(ServingRow& r, bool priced) {
  r.tokens_per_s_per_gpu = r.gpus > 0 ? r.tokens_per_s / r.gpus : 0;
  if (priced && r.tokens_per_s > 0) r.usd_per_mtok = usd_per_mtok(r.usd_per_hour, r.tokens_per_s);
}

ServingRow aggregated_row(const DisaggDesignResult& d, const PlanResult& p) {
  ServingRow r;
  r.mode = "aggregated";
  r.gpus = p.strategy.gpus();
  r.strategy = to_string(p.strategy);
  r.ttft_ms = p.ttft_ms;
  r.tpot_ms = p.tpot_ms;
  r.tokens_per_s = p.tokens_per_s;
  r.usd_per_hour = hourly(d, d.out.prefill_gpu, r.gpus);
  finish_row(r, price_of(d, d.out.prefill_gpu).has_value());
  return r;
}

ServingRow disagg_row(const DisaggDesignResult& d, const DisaggResult& b) {
  ServingRow r;
  r.mode = "disaggregated";
  r.gpus = b.prefill.gpus + b.decode.gpus;
  r.split = b.ratio;
  r.strategy = "P " + to_string(b.prefill.strategy) + " / D " + to_string(b.decode.strategy);
  r.ttft_ms = b.ttft_ms;
  r.tpot_ms = b.tpot_ms;
  r.tokens_per_s = b.goodput_tokens_per_s;
  const double p = hourly(d, b.prefill.gpu, b.prefill.gpus),
               q = hourly(d, b.decode.gpu, b.decode.gpus);
  // Priced only when both pools are (a half-priced system would look cheap).
  const bool both = price_of(d, b.prefill.gpu) && price_of(d, b.decode.gpu);
  r.usd_per_hour = both ? p + q : 0;
  finish_row(r, both);
  return r;
}

// IT power: every GPU at its TDP plus every server's overhead (compare's definition), each
// server group at its own GPU's figures on a mixed cluster.
double design_power_W(const Topology& t, const DisaggOutput& out) {
  double W = 0;
  for (const int g : t.gpus()) W += t.catalog().gpu(t.device(g).model).power_W;

  const auto& groups = t.fabric.groups;
  if (groups.size() > 1) {
    W += groups[0].nodes * server_overhead_W(out.prefill_gpu).value;
    for (std::size_t i = 1; i < groups.size(); ++i)
      W += groups[i].nodes * server_overhead_W(out.decode_gpu).value;
  } else {
    W += t.node_count() * server_overhead_W(out.prefill_gpu).value;
  }
  return W;
}

DisaggDesignResult run_design(const ModelSpec& model, const DesignSpec& spec,
                              const PlanRequest& req, std::optional<double> flag_price) {
  DisaggDesignResult d;
  d.spec = spec;
  const Topology t = load_design_topology(spec, /*one_gpu_kind=*/false);
  const Router router(t);
  d.out = plan_disagg(model, router, req, DisaggRequest{});
  d.topology = t.name;
  d.gpu = d.out.gpu;
  d.gpus = static_cast<int>(t.gpus().size());
  d.servers = t.node_count();
  d.power_W = design_power_W(t, d.out);
  for (const int g : t.gpus()) {
    const std::string& kind = t.device(g).model;
    if (d.gpu_counts.empty() || d.gpu_counts.back().first != kind)
      d.gpu_counts.emplace_back(kind, 0);
    ++d.gpu_counts.back().second;
  }
  std::vector<std::string> kinds{d.out.prefill_gpu};
  if (d.out.decode_gpu != d.out.prefill_gpu) kinds.push_back(d.out.decode_gpu);
  check_gpu_prices(spec, kinds);
  for (const std::string& kind : kinds)
    d.prices.emplace_back(kind, design_gpu_price(spec, kind, flag_price));
  if (d.out.aggregated) d.rows.push_back(aggregated_row(d, *d.out.aggregated));
  if (d.out.best) d.rows.push_back(disagg_row(d, *d.out.best));
  return d;
}

// Better on the criterion: lower $/Mtok, or higher tokens/s per GPU.
bool better(const ServingRow& a, const ServingRow& b, const std::string& criterion) {
  if (criterion == "usd_per_mtok") return *a.usd_per_mtok < *b.usd_per_mtok;
  return a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
}

std::string row_text(const DisaggDesignResult& d, const ServingRow& r) {
  std::string s = d.spec.name + " " + r.mode + (r.split.empty() ? "" : " " + r.split) + " (" +
                  r.strategy + "): " + fmt("%.1f", r.tokens_per_s_per_gpu) + " tok/s/GPU at TTFT " +
                  fmt("%.0f", r.ttft_ms) + " ms, TPOT " + fmt("%.1f", r.tpot_ms) + " ms";
  if (r.usd_per_mtok) s += ", $" + fmt("%.3f", *r.usd_per_mtok) + "/Mtok";
  return s;
}

std::string explain(const DisaggComparison& c) {
  if (c.overall < 0) return "no design has a plan, aggregated or disaggregated, within the limits";
  const DisaggDesignResult& w = c.designs[c.overall];
  const ServingRow& r = w.rows[c.overall_row];
  std::string why = "Best: " + row_text(w, r) + ".";
  // The same design served the other way, then the best other design.
  for (std::size_t k = 0; k < w.rows.size(); ++k)
    if (static_cast<int>(k) != c.overall_row)
      why += " Served " + w.rows[k].mode + " it gives " +
             fmt("%.2f", w.rows[k].tokens_per_s_per_gpu / r.tokens_per_s_per_gpu) +
             "x the tokens/s/GPU.";
  int second = -1;
  for (std::size_t i = 0; i < c.designs.size(); ++i)
    if (static_cast<int>(i) != c.overall && c.designs[i].best_row >= 0 &&
        (second < 0 || better(c.designs[i].rows[c.designs[i].best_row],
                              c.designs[second].rows[c.designs[second].best_row], c.criterion)))
      second = static_cast<int>(i);
  if (second >= 0)
    why += " Runner-up " +
           row_text(c.designs[second], c.designs[second].rows[c.designs[second].best_row]) + ".";
  if (!w.out.verdict.empty()) why += " " + w.spec.name + ": " + w.out.verdict;
  return why;
}

}  // namespace

DisaggComparison compare_disagg(const ModelSpec& model, const std::vector<DesignSpec>& designs,
                                const PlanRequest& request, const std::vector<double>& prices) {
  check_prices(designs, prices);
  if (request.mode != PlanMode::Serve)
    throw FieldError("mode", "compare --disagg plans serving (--mode serve)");
  DisaggComparison c;
  c.model = model.name;
  c.request = request;
  const std::vector<DesignSpec> unique = with_unique_names(designs);
  for (std::size_t i = 0; i < unique.size(); ++i)
    c.designs.push_back(run_design(model, unique[i], request, design_flag_price(prices, i)));
  bool priced = true;
  for (const DisaggDesignResult& d : c.designs)
    for (const ServingRow& r : d.rows) priced &= r.usd_per_mtok.has_value();
  c.criterion = priced ? "usd_per_mtok" : "tokens_per_s_per_gpu";
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    DisaggDesignResult& d = c.designs[i];
    for (std::size_t k = 0; k < d.rows.size(); ++k)
      if (d.best_row < 0 || better(d.rows[k], d.rows[d.best_row], c.criterion))
        d.best_row = static_cast<int>(k);
    if (d.best_row < 0) continue;
    if (c.overall < 0 ||
        better(d.rows[d.best_row], c.designs[c.overall].rows[c.overall_row], c.criterion)) {
      c.overall = static_cast<int>(i);
      c.overall_row = d.best_row;
    }
  }
  c.why = explain(c);
  return c;
}

}  // namespace topoplan::report
