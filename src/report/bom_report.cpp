// Output of `compare --bom`: a summary table of every design's bill, then each design's lines
// and power and cost sums (text). The JSON form is bom_json.cpp.
#include "report/compare.hpp"
#include "report/table.hpp"

namespace topoplan::report {

namespace {

constexpr double kW = 1e3, kMW = 1e6;

std::string per_level(const BomCounts& n, long long BomLevel::*field) {
  std::string s;
  for (const BomLevel& l : n.levels)
    s += (s.empty() ? "" : "/") + count_text(static_cast<double>(l.*field));
  return s.empty() ? "0" : s;
}

std::string money(std::optional<double> usd, const char* format = "%.0f") {
  return usd ? fmt(format, *usd) : std::string("-");
}

void print_summary(std::ostream& os, const Comparison& c) {
  Table t({"design", "switches/tier", "NICs", "optics/tier", "cables/tier", "NVL trays", "IT kW",
           "facility kW", "capex $M", "$/h", "$/Mtok", "tok/J (facility)"});
  for (const DesignResult& d : c.designs) {
    if (!d.bom) continue;
    const Bom& b = *d.bom;
    const BomCounts& n = b.counts;
    t.add_row({d.spec.name, per_level(n, &BomLevel::switches), count_text(n.nics),
               per_level(n, &BomLevel::optics), per_level(n, &BomLevel::cables),
               count_text(static_cast<double>(n.nvlink_switch_trays)),
               fmt("%.1f", b.power.it_W / kW), fmt("%.1f", b.power.facility_W / kW),
               fmt("%.2f", b.cost.capex_usd / kMW), fmt("%.0f", b.cost.usd_per_h),
               money(b.usd_per_mtok, "%.3f"), money(b.tokens_per_joule, "%.2f")});
  }
  t.print(os);
}

void print_lines(std::ostream& os, const Bom& b) {
  Table t({"item", "name", "count", "unit W", "unit $", "total kW", "total $k"},
          {Align::Left, Align::Left, Align::Right, Align::Right, Align::Right, Align::Right,
           Align::Right});
  for (const BomLine& l : b.lines) {
    const double n = static_cast<double>(l.count);
    t.add_row({l.item, l.name, count_text(n), l.unit_W ? fmt("%.1f", *l.unit_W) : "-",
               l.unit_usd ? count_text(*l.unit_usd) : "-",
               l.unit_W ? fmt("%.1f", n * *l.unit_W / kW) : "-",
               l.unit_usd ? count_text(n * *l.unit_usd / kW) : "-"});
  }
  t.print(os, "  ");
}

void print_sums(std::ostream& os, const Bom& b) {
  const BomPower& p = b.power;
  os << "  power: GPUs " << fmt("%.1f", p.gpus_W / kW) << " + rest of servers "
     << fmt("%.1f", p.server_rest_W / kW) << " + NVLink trays "
     << fmt("%.1f", p.nvlink_trays_W / kW) << " + switches " << fmt("%.1f", p.switches_W / kW)
     << " + optics " << fmt("%.1f", p.optics_W / kW) << " = IT " << fmt("%.1f", p.it_W / kW)
     << " kW; x PUE " << fmt("%.2f", p.pue) << " = facility " << fmt("%.1f", p.facility_W / kW)
     << " kW\n";  // kW as the table's facility column
  const BomCost& c = b.cost;
  os << "  cost: capex $" << count_text(c.capex_usd) << " over " << fmt("%g", c.years)
     << " years = $" << fmt("%.0f", c.capex_usd_per_h) << "/h + energy $"
     << fmt("%.0f", c.energy_usd_per_h) << "/h at $" << fmt("%.3f", c.kwh_usd) << "/kWh = $"
     << fmt("%.0f", c.usd_per_h) << "/h";
  if (b.tokens_per_s)
    os << "; " << count_text(*b.tokens_per_s) << " tok/s on all GPUs: $"
       << money(b.usd_per_mtok, "%.3f") << "/Mtok, " << money(b.tokens_per_joule, "%.2f")
       << " tok/J at facility power (the table above: GPUs and servers only)";
  os << "\n";
  if (!b.missing.empty()) {
    os << "  no figure for:";
    for (const std::string& m : b.missing) os << " " << m << ";";
    os << " capex and $/Mtok are incomplete (add them with --prices FILE or --price)\n";
  }
}

}  // namespace

void print_bom(std::ostream& os, const Comparison& c) {
  if (c.designs.empty() || !c.designs.front().bom) return;
  os << "\nBill of materials, counted from each design's topology graph (per tier: "
        "leaf/spine/core; one optic per cable end):\n\n";
  print_summary(os, c);
  for (const DesignResult& d : c.designs) {
    if (!d.bom) continue;
    os << "\n"
       << d.spec.name << ": " << d.bom->counts.servers << " server(s), " << d.bom->counts.gpus
       << " x " << d.bom->counts.gpu_model << "\n";
    print_lines(os, *d.bom);
    print_sums(os, *d.bom);
  }
  const Bom& b = *c.designs.front().bom;
  os << "\nPUE " << fmt("%.2f", b.power.pue) << " (" << b.pue_source << ")\nelectricity $"
     << fmt("%.3f", b.cost.kwh_usd) << "/kWh (" << b.kwh_source << ")\namortized over "
     << fmt("%g", b.cost.years) << " years (" << b.years_source
     << ")\nEvery unit figure's source and date: --json, designs[].bom.lines[].source\n";
}

}  // namespace topoplan::report
