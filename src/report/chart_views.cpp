// Data of the command charts, drawn by chart_plplot.cpp.
#include "report/chart_views.hpp"

#include <cmath>

#include "report/chart.hpp"
#include "report/compare_costs.hpp"
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
  // The fronts, one curve per design: tokens/s/GPU, and tokens per dollar (every design priced)
  // or per MW, against tokens/s/user; the named operating points and the SLA as dashed lines.
  bool priced = true;
  for (const DesignResult& d : c.designs) priced &= d.usd_per_gpu_hour.has_value();
  const auto panel = [&c](const std::string& what, const std::string& y_label) {
    // Log y: a front spans two orders of magnitude from max throughput to interactive.
    return ChartPanel{c.model + ": " + what + " vs tokens/s/user, each design's Pareto front",
                      "tokens/s/user",
                      y_label,
                      ChartAxis::Linear,
                      ChartAxis::Log10,
                      {},
                      {},
                      {},
                      {},
                      ""};
  };
  ChartPanel per_gpu = panel("tokens/s/GPU", "tokens/s/GPU");
  ChartPanel second = priced ? panel("Mtok per $", "Mtok per $ (at the GPU-hour price)")
                             : panel("tokens/s per MW", "tokens/s per MW (GPUs + servers)");
  for (const DesignResult& d : c.designs) {
    ChartSeries a{d.spec.name, {}, {}, false}, b{d.spec.name, {}, {}, false};
    for (const ParetoPoint& q : d.plan.pareto) {
      if (q.tokens_per_s_per_gpu <= 0) continue;
      a.x.push_back(q.tokens_per_s_per_user), a.y.push_back(q.tokens_per_s_per_gpu);
      b.x.push_back(q.tokens_per_s_per_user);
      b.y.push_back(priced ? 1 / usd_per_mtok(d.usd_per_gpu_hour->value, q.tokens_per_s_per_gpu)
                           : q.tokens_per_s_per_gpu * d.gpus / d.power_W * 1e6);
    }
    per_gpu.series.push_back(a);
    second.series.push_back(b);
    if (d.best)
      per_gpu.marks.emplace_back(d.best->tokens_per_s_per_user, d.best->tokens_per_s_per_gpu);
  }
  per_gpu.mark_label = "stars: the plans in the table";
  const double sla =
      c.request.tpot_max_ms > 0 ? 1000 / c.request.tpot_max_ms * c.request.tokens_per_step() : 0;
  for (ChartPanel* p : {&per_gpu, &second}) {
    for (const auto& [name, speed] : operating_point_speeds())  // the SLA's line wins a tie
      if (speed > 0 && std::fabs(speed - sla) > 0.02 * speed) p->x_limits.emplace_back(speed, name);
    if (sla > 0) p->x_limits.emplace_back(sla, "TPOT " + fmt("%g", c.request.tpot_max_ms) + " ms");
  }
  write_chart({per_gpu, second}, path);
}

}  // namespace topoplan::report
