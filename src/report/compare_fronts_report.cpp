// The fronts part of `compare`'s text and JSON (compare_fronts.cpp computes it).
#include "report/compare_fronts_report.hpp"

#include <algorithm>

#include "report/json_number.hpp"
#include "report/table.hpp"

namespace topoplan::report {

using nlohmann::ordered_json;

std::vector<std::string> fronts_head() {
  return {"operating point", "design",    "strategy", "batch",
          "tok/s/user",      "tok/s/GPU", "tok/s/MW", "$/Mtok"};
}

std::vector<std::vector<std::string>> fronts_rows(const Comparison& c) {
  const Fronts& f = c.fronts;
  const bool by_usd = f.criterion == "usd_per_mtok";
  std::vector<std::vector<std::string>> rows;
  for (const OperatingPoint& p : f.points)
    for (std::size_t i = 0; i < p.picks.size(); ++i) {
      const std::string point =
          p.name + (p.min_tokens_per_s_per_user > 0
                        ? " (>= " + fmt("%g", p.min_tokens_per_s_per_user) + ")"
                        : "");
      if (!p.picks[i]) {
        rows.push_back(
            {point, c.designs[i].spec.name, "front ends below", "-", "-", "-", "-", "-"});
        continue;
      }
      const FrontPick& k = *p.picks[i];
      const bool best =
          p.winner == static_cast<int>(i) ||
          std::find(p.tied.begin(), p.tied.end(), static_cast<int>(i)) != p.tied.end();
      const std::string star = best ? " *" : "";
      rows.push_back({point, c.designs[i].spec.name, to_string(k.point.strategy),
                      count_text(k.point.batch), fmt("%.1f", k.point.tokens_per_s_per_user),
                      fmt("%.1f", k.point.tokens_per_s_per_gpu) + (by_usd ? "" : star),
                      count_text(k.tokens_per_s_per_mw),
                      k.usd_per_mtok ? fmt("%.3f", *k.usd_per_mtok) + (by_usd ? star : "") : "-"});
    }
  return rows;
}

void print_fronts(std::ostream& os, const Comparison& c) {
  if (c.fronts.ranges.empty()) return;
  os << "\nPareto fronts at named per-user speeds (each design's best point at or above the "
        "speed; * best on "
     << (c.fronts.criterion == "usd_per_mtok" ? "$/Mtok" : "tok/s/GPU") << "):\n";
  Table t(fronts_head());
  for (const auto& row : fronts_rows(c)) t.add_row(row);
  t.print(os);
  os << c.fronts.summary << ".\n";
}

ordered_json fronts_json(const Comparison& c) {
  const Fronts& f = c.fronts;
  const auto name_of = [&c](int i) {
    return i < 0 ? ordered_json(nullptr) : ordered_json(c.designs[i].spec.name);
  };
  const auto names_of = [&c](const std::vector<int>& is) {
    ordered_json a = ordered_json::array();
    for (int i : is) a.push_back(c.designs[i].spec.name);
    return a;
  };
  ordered_json points = ordered_json::array();
  for (const OperatingPoint& p : f.points) {
    ordered_json designs = ordered_json::array();
    for (std::size_t i = 0; i < p.picks.size(); ++i) {
      if (!p.picks[i]) {
        designs.push_back({{"name", c.designs[i].spec.name}, {"reaches", false}});
        continue;
      }
      const FrontPick& k = *p.picks[i];
      designs.push_back(
          {{"name", c.designs[i].spec.name},
           {"reaches", true},
           {"strategy", to_string(k.point.strategy)},
           {"batch", json_number(k.point.batch)},
           {"tpot_ms", json_number(k.point.tpot_ms)},
           {"tokens_per_s_per_user", json_number(k.point.tokens_per_s_per_user)},
           {"tokens_per_s_per_gpu", json_number(k.point.tokens_per_s_per_gpu)},
           {"tokens_per_s_per_mw", json_number(k.tokens_per_s_per_mw)},
           {"usd_per_mtok",
            k.usd_per_mtok ? ordered_json(json_number(*k.usd_per_mtok)) : ordered_json(nullptr)}});
    }
    points.push_back({{"name", p.name},
                      {"min_tokens_per_s_per_user", json_number(p.min_tokens_per_s_per_user)},
                      {"winner", name_of(p.winner)},
                      {"tied_with", names_of(p.tied)},
                      {"designs", designs}});
  }
  ordered_json ranges = ordered_json::array();
  for (const FrontRange& r : f.ranges)
    ranges.push_back({{"from_tokens_per_s_per_user", json_number(r.from_tokens_per_s_per_user)},
                      {"to_tokens_per_s_per_user", json_number(r.to_tokens_per_s_per_user)},
                      {"winner", name_of(r.winner)},
                      {"tied_with", names_of(r.tied)}});
  return {{"criterion", f.criterion},
          {"operating_points", points},
          {"ranges", ranges},
          {"summary", f.summary}};
}

}  // namespace topoplan::report
