// Output of `topoplan compare`: the side-by-side table with each column's winner marked (*),
// the sources of the power and price figures, and why the overall winner wins; or JSON.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "report/bom_json.hpp"
#include "report/compare.hpp"
#include "report/compare_fronts_report.hpp"
#include "report/compare_parts.hpp"
#include "report/json_number.hpp"
#include "report/table.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

using nlohmann::ordered_json;

std::string cell(const std::string& key, double v) {
  if (key == "gpus") return fmt("%.0f", v);
  if (key == "max_batch" || key == "tokens_per_s") return count_text(v);
  if (key == "memory_headroom_bytes") return format_GiB(v);
  if (key == "power_W") return fmt("%.1f", v / 1e3);
  if (key == "tokens_per_joule") return fmt("%.2f", v);
  if (key == "usd_per_mtok") return fmt("%.3f", v);
  if (key == "tpot_ms") return fmt("%.2f", v);
  return fmt("%.1f", v);
}

ordered_json optional_number(std::optional<double> v) {
  return v ? ordered_json(json_number(*v)) : ordered_json(nullptr);
}

// The planner's own account (the closest strategy and a hint), as `plan` prints it; the first
// ranked plan's reason is only the fallback (it named tp1's 627 GiB of weights where tp8 was
// 8 GiB short).
std::string why_not(const DesignResult& d) {
  if (!d.plan.status_message.empty()) return d.plan.status_message;
  if (d.plan.plans.empty()) return "no strategy";
  const PlanResult& p = d.plan.plans.front();
  return p.fits ? "no plan meets the TTFT/TPOT limits" : p.reason;
}

// The first clause of a source (the full text is in --json).
std::string brief(const std::string& source) {
  return source.substr(0, source.find(';'));
}

}  // namespace

namespace {

// Design i equals column k's winner (to a part in a million, as `explain` calls a tie): a tie is
// marked on every design that has it, not on the first (issue 28).
bool ties_winner(const Comparison& c, std::size_t k, std::size_t i) {
  const int w = c.winner[k];
  if (w < 0 || !c.designs[i].best) return false;
  if (w == static_cast<int>(i)) return true;
  const std::string& key = compare_columns()[k].key;
  const auto a = column_value(c.designs[i], key), b = column_value(c.designs[w], key);
  return a && b && std::fabs(*a - *b) <= 1e-6 * std::max(std::fabs(*a), std::fabs(*b));
}

}  // namespace

void print_compare(std::ostream& os, const Comparison& c) {
  const PlanRequest& r = c.request;
  os << "topoplan compare: " << c.model << ", mode " << to_string(r.mode) << ", prompt "
     << fmt("%.0f", r.prompt) << ", output " << fmt("%.0f", r.output);
  if (r.tpot_max_ms > 0) os << ", TPOT <= " << fmt("%g", r.tpot_max_ms) << " ms";
  if (r.ttft_max_ms > 0) os << ", TTFT <= " << fmt("%g", r.ttft_max_ms) << " ms";
  os << "\n\n";
  std::vector<std::string> head{"design", "strategy"};
  for (const CompareColumn& col : compare_columns()) head.push_back(col.title);
  Table t(head);
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const DesignResult& d = c.designs[i];
    std::vector<std::string> row{d.spec.name, d.best ? to_string(d.best->strategy) : "-"};
    for (std::size_t k = 0; k < compare_columns().size(); ++k) {
      const CompareColumn& col = compare_columns()[k];
      const auto v = column_value(d, col.key);
      row.push_back(v ? cell(col.key, *v) + (ties_winner(c, k, i) ? " *" : "") : "-");
    }
    t.add_row(row);
  }
  t.print(os);
  os << "* best in its column (every design that ties it); tokens are output tokens; power = GPUs "
        "x TDP + servers x "
        "overhead\n\n";
  for (const DesignResult& d : c.designs) {
    os << d.spec.name << ": " << d.gpus << " x " << d.gpu_model << " on " << d.servers
       << " server(s)";
    if (!d.best) os << " -- no plan: " << why_not(d);
    os << "\n  GPU " << fmt("%.0f", d.gpu_W.value) << " W (" << brief(d.gpu_W.source) << ")\n"
       << "  server overhead " << fmt("%.0f", d.server_overhead_W.value) << " W ("
       << brief(d.server_overhead_W.source) << ")\n  price " << price_text(d.usd_per_gpu_hour)
       << "\n";
  }
  os << "\n" << c.why << "\n";
  print_fronts(os, c);
}

void print_compare_json(std::ostream& os, const Comparison& c) {
  ordered_json designs = ordered_json::array();
  for (const DesignResult& d : c.designs) {
    ordered_json j{{"name", d.spec.name},
                   {"spec", d.spec.text},
                   {"topology", d.topology.name},
                   {"gpu", d.gpu_model},
                   {"servers", d.servers},
                   {"fits", d.best.has_value()},
                   {"reason", d.best ? ordered_json(nullptr) : ordered_json(why_not(d))}};
    j["strategy"] = d.best ? ordered_json(to_string(d.best->strategy)) : ordered_json(nullptr);
    for (const CompareColumn& col : compare_columns())
      j[col.key] = optional_number(column_value(d, col.key));
    j["gpus"] = d.gpus;  // a count
    j["batch"] = d.best ? ordered_json(json_number(d.best->batch)) : ordered_json(nullptr);
    j["power"] = power_json(d.gpu_W, d.server_overhead_W, d.power_W);
    j["price"] = price_json(d.usd_per_gpu_hour);
    if (d.bom) j["bom"] = bom_json(*d.bom);  // compare --bom
    designs.push_back(std::move(j));
  }
  ordered_json winners = ordered_json::object();
  for (std::size_t k = 0; k < compare_columns().size(); ++k)
    if (compare_columns()[k].better != 0)
      winners[compare_columns()[k].key] =
          c.winner[k] < 0 ? ordered_json(nullptr) : ordered_json(c.designs[c.winner[k]].spec.name);
  ordered_json out{{"model", c.model},
                   {"mode", to_string(c.request.mode)},
                   {"prompt", json_number(c.request.prompt)},
                   {"output", json_number(c.request.output)},
                   {"tpot_max_ms", json_number(c.request.tpot_max_ms)},
                   {"ttft_max_ms", json_number(c.request.ttft_max_ms)},
                   {"designs", designs},
                   {"winners", winners},
                   {"criterion", c.criterion},
                   {"overall", c.overall < 0 ? ordered_json(nullptr)
                                             : ordered_json(c.designs[c.overall].spec.name)},
                   {"why", c.why},
                   {"fronts", fronts_json(c)}};
  os << out.dump(2) << "\n";
}

}  // namespace topoplan::report
