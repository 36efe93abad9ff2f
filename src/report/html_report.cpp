// The plan and compare pages: tables, breakdown, placement, the topology with the plan overlay
// (Graphviz SVG) and the charts (PLplot SVG), all inline.
#include "report/html_report.hpp"

#include <sstream>

#include "report/chart_views.hpp"
#include "report/compare_fronts_report.hpp"
#include "report/diagram.hpp"
#include "report/diagram_overlay.hpp"
#include "report/html_page.hpp"
#include "report/html_text.hpp"
#include "report/plan_report.hpp"
#include "report/table.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

// The topology with the best plan drawn on it (collapsed like `topo render`).
std::string overlay_svg(const Topology& t, const PlanOutput& out, const std::string& prefix) {
  if (out.plans.empty() || !out.plans.front().fits) return "<p>No plan fits; nothing to draw.</p>";
  const Overlay overlay = overlay_from_plan(t, out, ColorBy::Tp);
  DiagramOptions o;
  o.overlay = &overlay;
  return "<div class=\"figure\">" + inline_svg(diagram_svg(build_diagram(t, o)), prefix) + "</div>";
}

std::string ranked_table(const PlanOutput& out) {
  std::vector<std::vector<std::string>> rows;
  int shown = 0;
  for (const PlanResult& p : out.plans) {
    if (!p.fits || shown >= out.request.top) continue;
    ++shown;
    rows.push_back({std::to_string(shown), label(p.strategy, out.moe),
                    p.meets_limits ? "yes" : "no", format_GiB(p.memory.used_bytes()),
                    fmt("%.0f", p.max_batch), fmt("%.0f", p.batch), fmt("%.1f", p.ttft_ms),
                    fmt("%.2f", p.tpot_ms), fmt("%.0f", p.tokens_per_s),
                    fmt("%.1f", p.tokens_per_s_per_gpu), fmt("%.1f", p.tokens_per_s_per_user)});
  }
  return html_table({"#", "strategy", "within limits", "mem/GPU", "max batch", "batch", "TTFT ms",
                     "TPOT ms", "tok/s", "tok/s/GPU", "tok/s/user"},
                    rows);
}

std::string breakdown_table(const PlanResult& p) {
  std::vector<std::vector<std::string>> rows;
  const auto decode = terms(p.decode), prefill = terms(p.prefill);
  for (std::size_t i = 0; i < decode.size(); ++i)
    rows.push_back(
        {decode[i].first, fmt("%.1f", decode[i].second), fmt("%.1f", prefill[i].second)});
  rows.push_back({"total", fmt("%.1f", p.decode.total_us()), fmt("%.1f", p.prefill.total_us())});
  return html_table({"term", "decode step us", "prefill (TTFT) us"}, rows);
}

std::string placement_table(const PlanResult& p) {
  std::vector<std::vector<std::string>> rows;
  for (const RankPlacement& r : p.placement)
    rows.push_back({std::to_string(r.rank), r.device_id, r.nic_id.empty() ? "-" : r.nic_id,
                    std::to_string(r.tp_rank), std::to_string(r.pp_rank),
                    std::to_string(r.dp_rank)});
  std::vector<std::vector<std::string>> groups;
  for (const GroupSummary& g : p.groups)
    groups.push_back({g.kind, std::to_string(g.groups), std::to_string(g.size),
                      std::string(to_string(g.worst_class)), fmt("%.1f", g.bottleneck_GBps),
                      g.bottleneck_link.empty() ? "-" : g.bottleneck_link,
                      g.crosses_nodes ? "yes" : "no"});
  return html_table({"rank", "GPU", "NIC", "tp rank", "pp rank", "dp rank"}, rows) +
         html_table({"group", "groups", "size", "worst path", "bottleneck GB/s", "link",
                     "crosses servers"},
                    groups);
}

}  // namespace

void write_plan_html(const Topology& t, const PlanOutput& out, const std::string& path) {
  std::ostringstream text;
  print_plan(text, out);
  std::string body =
      "<h1>" + html_escape(out.model + " on " + out.topology) + "</h1><p class=\"sub\">" +
      html_escape(std::to_string(out.gpus) + " x " + out.gpu + ", mode " +
                  std::string(to_string(out.request.mode)) + ", prompt " +
                  fmt("%.0f", out.request.prompt) + ", output " + fmt("%.0f", out.request.output)) +
      "</p>";
  body += "<h2>Ranked plans</h2>" + ranked_table(out);
  body += "<div class=\"why\">" + html_escape(out.explanation) + "</div>";
  if (!out.plans.empty() && out.plans.front().fits) {
    const PlanResult& best = out.plans.front();
    body += "<h2>Time breakdown of the best plan</h2>" + breakdown_table(best);
    body += "<h2>Placement</h2>" + placement_table(best);
  }
  body += "<h2>Topology with the placement (GPUs by TP group, bottlenecks in magenta)</h2>" +
          overlay_svg(t, out, "topo-");
  body += "<h2>Throughput vs interactivity</h2><div class=\"figure\">" +
          inline_svg(svg_via_file([&](const std::string& f) { write_pareto_chart(out, f); }),
                     "pareto-") +
          "</div>";
  body += "<h2>Full text report</h2><pre>" + html_escape(text.str()) + "</pre>";
  write_text_file(path, html_page("topoplan plan: " + out.model, body));
}

void write_compare_html(const Comparison& c, const std::string& path) {
  std::ostringstream text;
  print_compare(text, c);
  std::vector<std::string> head{"design", "strategy"};
  for (const CompareColumn& col : compare_columns()) head.push_back(col.title);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const DesignResult& d = c.designs[i];
    std::vector<std::string> row{d.spec.name, d.best ? to_string(d.best->strategy) : "no plan"};
    for (std::size_t k = 0; k < compare_columns().size(); ++k) {
      const auto v = column_value(d, compare_columns()[k].key);
      const std::string key = compare_columns()[k].key;
      std::string cell = !v                               ? "-"
                         : key == "memory_headroom_bytes" ? format_GiB(*v)
                         : key == "power_W"               ? fmt("%.1f kW", *v / 1e3)
                         : key == "usd_per_mtok"          ? fmt("$%.3f", *v)
                         : key == "gpus" || key == "max_batch" || key == "tokens_per_s"
                             ? fmt("%.0f", *v)
                             : fmt("%.4g", *v);
      row.push_back((c.winner[k] == static_cast<int>(i) ? "*" : "") + cell);
    }
    rows.push_back(row);
  }
  std::string body =
      "<h1>" + html_escape("Cluster designs for " + c.model) + "</h1><p class=\"sub\">" +
      html_escape("mode " + std::string(to_string(c.request.mode)) + ", prompt " +
                  fmt("%.0f", c.request.prompt) + ", output " + fmt("%.0f", c.request.output) +
                  (c.request.tpot_max_ms > 0
                       ? ", TPOT <= " + fmt("%g", c.request.tpot_max_ms) + " ms"
                       : "")) +
      "</p><h2>Side by side (&#9733; best in its column)</h2>" + html_table(head, rows) +
      "<div class=\"why\">" + html_escape(c.why) + "</div>";
  body += "<h2>Pareto fronts</h2><div class=\"figure\">" +
          inline_svg(svg_via_file([&](const std::string& f) { write_compare_chart(c, f); }),
                     "fronts-") +
          "</div>" +
          (c.fronts.ranges.empty() ? std::string() : html_table(fronts_head(), fronts_rows(c))) +
          "<div class=\"why\">" + html_escape(c.fronts.summary) + "</div>";
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const DesignResult& d = c.designs[i];
    body += "<h2>" + html_escape(d.spec.name) + ": placement of its best plan</h2>";
    if (d.best) body += "<h3>Time breakdown</h3>" + breakdown_table(*d.best);
    body += overlay_svg(d.topology, d.plan, "d" + std::to_string(i) + "-");
  }
  body += "<h2>Sources and full text</h2><pre>" + html_escape(text.str()) + "</pre>";
  write_text_file(path, html_page("topoplan compare: " + c.model, body));
}

}  // namespace topoplan::report
