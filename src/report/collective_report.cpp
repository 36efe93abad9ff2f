// `topoplan collective` output (see collective_report.hpp).
#include "report/collective_report.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "report/json_number.hpp"
#include "report/table.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {
using nlohmann::ordered_json;

ordered_json bottleneck_json(const BottleneckLink& b) {
  if (b.dirlink < 0) return nullptr;
  return ordered_json{{"from", b.from},
                      {"to", b.to},
                      {"type", b.type},
                      {"kind", std::string(to_string(b.kind))},
                      {"load_bytes", static_cast<std::int64_t>(std::llround(b.load_bytes))},
                      {"achieved_GBps", json_number(b.achieved_GBps)},
                      {"utilisation", json_number(b.utilisation)}};
}

std::string bottleneck_cell(const BottleneckLink& b) {
  if (b.dirlink < 0) return "-";
  return b.from + "->" + b.to + " " + b.type + " " + fmt("%.0f%%", 100 * b.utilisation);
}

void print_json(std::ostream& os, const CollectiveReport& r) {
  ordered_json results = ordered_json::array();
  for (const CollectiveCost& c : r.results)
    results.push_back(
        {{"size_bytes", static_cast<std::int64_t>(std::llround(c.size_bytes))},
         {"count", static_cast<std::int64_t>(std::floor(c.size_bytes / r.element_bytes))},
         {"time_us", json_number(c.time_us)},
         {"latency_us", json_number(c.latency_us)},
         {"algbw_GBps", json_number(c.algbw_GBps)},
         {"busbw_GBps", json_number(c.busbw_GBps)},
         {"algorithm", std::string(to_string(c.algorithm))},
         {"protocol", std::string(to_string(c.protocol))},
         {"channels", c.channels},
         {"bottleneck", bottleneck_json(c.bottleneck)}});
  ordered_json j{
      {"op", std::string(to_string(r.op))},
      {"topology", r.topology},
      {"ranks", r.ranks.size()},
      {"devices", r.ranks},
      {"nodes", r.nodes},
      {"dtype", r.dtype},
      {"busbw_factor", json_number(busbw_factor(r.op, static_cast<int>(r.ranks.size())))}};
  if (!r.pattern.empty()) j["pattern"] = r.pattern;
  if (!r.groups.empty()) j["groups"] = r.groups;
  j["results"] = results;
  if (!r.alternatives.empty()) {
    ordered_json alt = ordered_json::array();
    for (const CollectiveCost& c : r.alternatives)
      alt.push_back({{"size_bytes", static_cast<std::int64_t>(std::llround(c.size_bytes))},
                     {"algorithm", std::string(to_string(c.algorithm))},
                     {"protocol", std::string(to_string(c.protocol))},
                     {"time_us", json_number(c.time_us)},
                     {"busbw_GBps", json_number(c.busbw_GBps)}});
    j["alternatives"] = alt;
  }
  os << j.dump(2) << "\n";
}
}  // namespace

void print_collective(std::ostream& os, const CollectiveReport& r, bool json) {
  if (json) return print_json(os, r);
  os << "# " << to_string(r.op);
  if (!r.pattern.empty()) os << " (" << r.pattern << ")";
  os << " on " << r.topology << ": ";
  if (!r.groups.empty()) os << r.groups.size() << " groups at once of ";
  os << r.ranks.size() << " ranks, " << r.nodes << (r.nodes == 1 ? " server" : " servers")
     << " (predicted, nccl-tests units"
     << (r.groups.empty() ? "" : "; the slowest group, sharing links with the others") << ")\n";
  for (std::size_t g = 0; g < r.groups.size(); ++g) {
    os << "#   group " << g + 1 << ":";
    for (std::size_t i = 0; i < r.groups[g].size(); ++i) os << (i ? "," : " ") << r.groups[g][i];
    os << "\n";
  }
  Table t({"size", "count", "type", "time(us)", "algbw(GB/s)", "busbw(GB/s)", "algo/proto",
           "bottleneck"},
          {Align::Right, Align::Right, Align::Left, Align::Right, Align::Right, Align::Right,
           Align::Left, Align::Left});
  for (const CollectiveCost& c : r.results)
    t.add_row({fmt("%.0f", c.size_bytes), fmt("%.0f", std::floor(c.size_bytes / r.element_bytes)),
               r.dtype, fmt("%.2f", c.time_us), fmt("%.2f", c.algbw_GBps),
               fmt("%.2f", c.busbw_GBps),
               std::string(to_string(c.algorithm)) + "/" + std::string(to_string(c.protocol)),
               bottleneck_cell(c.bottleneck)});
  t.print(os);
  if (r.alternatives.empty()) return;
  os << "\n# every algorithm/protocol that can run (--algo all); * = the automatic choice\n";
  Table a({"size", "algo/proto", "time(us)", "busbw(GB/s)", "auto"},
          {Align::Right, Align::Left, Align::Right, Align::Right, Align::Left});
  for (const CollectiveCost& c : r.alternatives) {
    bool chosen = false;
    for (const CollectiveCost& x : r.results)
      chosen = chosen || (x.size_bytes == c.size_bytes && x.algorithm == c.algorithm &&
                          x.protocol == c.protocol);
    a.add_row({fmt("%.0f", c.size_bytes),
               std::string(to_string(c.algorithm)) + "/" + std::string(to_string(c.protocol)),
               fmt("%.2f", c.time_us), fmt("%.2f", c.busbw_GBps), chosen ? "*" : ""});
  }
  a.print(os);
}

}  // namespace topoplan::report
