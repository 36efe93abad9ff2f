// Data of the command charts, drawn by chart_plplot.cpp.
#include "report/chart_views.hpp"

#include "report/chart.hpp"
#include "report/table.hpp"

namespace topoplan::report {

void write_collective_chart(const std::string& title, const std::vector<CollectiveSeries>& series,
                            const std::string& path) {
  ChartPanel bw{title + ": bus bandwidth",
                "message size (bytes)",
                "busbw (GB/s)",
                ChartAxis::SizeLog2,
                ChartAxis::Linear,
                {},
                {},
                {},
                {},
                ""};
  ChartPanel time{title + ": time",
                  "message size (bytes)",
                  "time (us)",
                  ChartAxis::SizeLog2,
                  ChartAxis::Log10,
                  {},
                  {},
                  {},
                  {},
                  ""};
  for (const auto& [name, costs] : series) {
    ChartSeries b{name, {}, {}, false}, t{name, {}, {}, false};
    for (const CollectiveCost& c : costs) {
      b.x.push_back(c.size_bytes), b.y.push_back(c.busbw_GBps);
      t.x.push_back(c.size_bytes), t.y.push_back(c.time_us);
    }
    bw.series.push_back(b);
    time.series.push_back(t);
  }
  write_chart({bw, time}, path);
}

void write_pareto_chart(const PlanOutput& out, const std::string& path) {
  ChartPanel p{out.model + " on " + out.topology + ": throughput vs interactivity",
               "tokens/s/user",
               "tokens/s/GPU",
               ChartAxis::Linear,
               ChartAxis::Linear,
               {},
               {},
               {},
               {},
               ""};
  ChartSeries front{"Pareto front", {}, {}, false};
  for (const ParetoPoint& q : out.pareto)
    front.x.push_back(q.tokens_per_s_per_user), front.y.push_back(q.tokens_per_s_per_gpu);
  p.series.push_back(front);
  ChartSeries ranked{"ranked plans", {}, {}, true};
  for (const PlanResult& r : out.plans)
    if (r.fits && r.tokens_per_s_per_gpu > 0)
      ranked.x.push_back(r.tokens_per_s_per_user), ranked.y.push_back(r.tokens_per_s_per_gpu);
  p.series.push_back(ranked);
  // A TPOT limit of T ms is A x 1000/T decode tokens/s per user. In serve mode tokens/s/user
  // also pays the prefill stalls (docs/planner.md), so plans within the limit may sit left of it.
  if (out.request.tpot_max_ms > 0)
    p.x_limits.emplace_back(1000 / out.request.tpot_max_ms * out.request.tokens_per_step(),
                            "TPOT " + fmt("%g", out.request.tpot_max_ms) + " ms (1000/TPOT)");
  if (!out.plans.empty() && out.plans.front().fits) {
    const PlanResult& best = out.plans.front();
    p.marks.emplace_back(best.tokens_per_s_per_user, best.tokens_per_s_per_gpu);
    p.mark_label = "chosen: " + label(best.strategy, out.moe);
  }
  write_chart({p}, path);
}

void write_compare_chart(const Comparison& c, const std::string& path) {
  BarChart b{
      c.model + ": designs relative to the best (1.0) per metric", "relative to best", {}, {}, {}};
  // (column, invert): Mtok per $ is 1 / ($/Mtok) so that higher is better everywhere.
  const std::vector<std::pair<std::string, bool>> metrics = {{"tokens_per_s_per_gpu", false},
                                                             {"tokens_per_s_per_user", false},
                                                             {"tokens_per_joule", false},
                                                             {"usd_per_mtok", true}};
  const std::vector<std::string> titles = {"tok/s/GPU", "tok/s/user", "tok/J", "Mtok per $"};
  for (const DesignResult& d : c.designs) {
    b.groups.push_back(d.spec.name);
    b.values.emplace_back();
  }
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    double best = 0;
    std::vector<double> v;
    for (const DesignResult& d : c.designs) {
      const auto x = column_value(d, metrics[m].first);
      const double value = !x || *x <= 0 ? 0 : metrics[m].second ? 1 / *x : *x;
      v.push_back(value);
      best = std::max(best, value);
    }
    if (best <= 0) continue;  // no design has this figure (no prices)
    b.categories.push_back(titles[m]);
    for (std::size_t i = 0; i < v.size(); ++i) b.values[i].push_back(v[i] / best);
  }
  write_bar_chart(b, path);
}

}  // namespace topoplan::report
