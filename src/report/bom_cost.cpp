// The bill of a compare design: lines (count × unit power and price, each with its source),
// power from GPUs to facility, and the hourly cost of owning and running it.
#include <algorithm>

#include "report/compare.hpp"
#include "report/compare_costs.hpp"
#include "report/table.hpp"
#include "topoplan/bom.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

constexpr double kHoursPerYear = 8760;
constexpr double kWPerkW = 1e3;

double as_double(long long count) {
  return static_cast<double>(count);
}

struct Settings {
  double pue = 0, kwh_usd = 0, years = 0;
};

// One line from the table's figure of (kind, key); `with_W` says whether its power counts here.
BomLine priced_line(Bom& b, const PriceTable& prices, const std::string& item,
                    const std::string& kind, const std::string& key, long long count, bool with_W) {
  BomLine line{kind, item, key, count, std::nullopt, std::nullopt, ""};
  const BomFigure* f = prices.find(kind, key);
  if (!f) {
    b.missing.push_back(kind + " " + key);
    line.source = "no figure in the price table for " + kind + " '" + key + "'";
    return line;
  }
  line.name = f->name;
  if (with_W) line.unit_W = f->W;
  line.unit_usd = f->usd;
  line.source = f->source + (f->date.empty() ? "" : " (" + f->date + ")");
  return line;
}

void add_fabric_lines(Bom& b, const PriceTable& prices) {
  for (const BomLevel& lv : b.counts.levels) {
    b.lines.push_back(
        priced_line(b, prices, lv.switch_name + " switch", "switch", lv.link, lv.switches, true));
    b.lines.push_back(
        priced_line(b, prices, "optic " + lv.cable_name, "optic", lv.link, lv.optics, true));
    b.lines.push_back(
        priced_line(b, prices, "cable " + lv.cable_name, "cable", lv.link, lv.cables, false));
  }
}

void add_power(Bom& b, const DesignResult& d, const PriceTable& prices, double pue) {
  BomPower& p = b.power;
  p.gpus_W = b.counts.gpus * d.gpu_W.value;
  const double overhead_W = b.counts.servers * d.server_overhead_W.value;
  if (const BomFigure* tray = prices.find("nvlink_switch_tray", b.counts.gpu_model))
    p.nvlink_trays_W = as_double(b.counts.nvlink_switch_trays) * tray->W;
  // A rack-scale system's overhead makes its published rack power; its trays are part of it.
  p.server_rest_W = std::max(0.0, overhead_W - p.nvlink_trays_W);
  for (const BomLine& l : b.lines) {
    if (!l.unit_W) continue;
    if (l.kind == "optic") p.optics_W += as_double(l.count) * *l.unit_W;
    if (l.kind == "switch") p.switches_W += as_double(l.count) * *l.unit_W;
  }
  p.it_W = p.gpus_W + p.server_rest_W + p.nvlink_trays_W + p.switches_W + p.optics_W;
  p.pue = pue;
  p.facility_W = p.it_W * pue;
}

void add_cost(Bom& b, const Settings& s) {
  BomCost& c = b.cost;
  for (const BomLine& l : b.lines)
    if (l.unit_usd) c.capex_usd += as_double(l.count) * *l.unit_usd;
  c.complete = b.missing.empty();
  c.years = s.years;
  c.kwh_usd = s.kwh_usd;
  c.capex_usd_per_h = c.capex_usd / (s.years * kHoursPerYear);
  c.energy_usd_per_h = b.power.facility_W / kWPerkW * s.kwh_usd;
  c.usd_per_h = c.capex_usd_per_h + c.energy_usd_per_h;
}

// Throughput of the whole design: the best plan's tokens/s per GPU on every GPU (a plan on
// fewer GPUs than the design is assumed replicated on the rest).
void add_throughput(Bom& b, const DesignResult& d) {
  if (!d.best) return;
  b.tokens_per_s = d.best->tokens_per_s_per_gpu * b.counts.gpus;
  if (b.power.facility_W > 0) b.tokens_per_joule = *b.tokens_per_s / b.power.facility_W;
  if (b.cost.complete && *b.tokens_per_s > 0)
    b.usd_per_mtok = usd_per_mtok(b.cost.usd_per_h, *b.tokens_per_s);
}

Bom make_bom(const DesignResult& d, const PriceTable& prices, const Settings& s) {
  Bom b;
  b.counts = count_bom(d.topology, prices);
  const BomCounts& n = b.counts;
  b.lines.push_back(priced_line(b, prices, "server", "server", n.gpu_model, n.servers, false));
  if (n.nics > 0)
    b.lines.push_back(priced_line(b, prices, "nic", "nic", n.nic_model, n.nics, false));
  if (n.nvlink_switch_trays > 0)
    b.lines.push_back(priced_line(b, prices, "nvlink switch tray", "nvlink_switch_tray",
                                  n.gpu_model, n.nvlink_switch_trays, true));
  add_fabric_lines(b, prices);
  add_power(b, d, prices, s.pue);
  add_cost(b, s);
  add_throughput(b, d);
  return b;
}

// A setting from the command line, else the table's default (with its source).
double setting(const std::optional<double>& flag, const BomDefault& table, const char* flag_name,
               std::string& source) {
  source = flag ? std::string(flag_name) : table.source;
  return flag ? *flag : table.value;
}

void check_settings(const BomOptions& o) {
  if (o.pue && !(*o.pue >= 1 && *o.pue <= 5))
    throw FieldError("pue", "must be from 1 to 5, got " + fmt("%g", *o.pue));
  if (o.kwh_usd && !(*o.kwh_usd >= 0 && *o.kwh_usd <= 10))
    throw FieldError("kwh_usd", "must be from 0 to 10 USD per kWh, got " + fmt("%g", *o.kwh_usd));
  if (o.years && !(*o.years > 0 && *o.years <= 50))
    throw FieldError("years", "must be above 0 and at most 50, got " + fmt("%g", *o.years));
}

PriceTable checked_table(const BomOptions& o) {
  check_settings(o);
  PriceTable prices = load_price_table(o.prices_file);
  for (const std::string& item : o.item_prices) apply_item_price(prices, item);
  return prices;
}

}  // namespace

void check_bom_options(const BomOptions& o) {
  checked_table(o);
}

namespace {

// With the whole bill the overall winner is the lowest cost of owning and running each design
// per output token (capex amortized + energy at the PUE), when every design with a plan has one;
// the GPU-hour price alone left a rail-optimized and a fat-tree design of the same servers tied
// while their bills differ (issue 28's new-user walk).
void rank_by_ownership(Comparison& c) {
  int best = -1, second = -1;
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const DesignResult& d = c.designs[i];
    if (!d.best) continue;
    if (!d.bom || !d.bom->usd_per_mtok || !d.bom->cost.complete) return;  // keep the rental view
    const int k = static_cast<int>(i);
    if (best < 0 || *d.bom->usd_per_mtok < *c.designs[best].bom->usd_per_mtok) {
      second = best;
      best = k;
    } else if (second < 0 || *d.bom->usd_per_mtok < *c.designs[second].bom->usd_per_mtok) {
      second = k;
    }
  }
  if (best < 0) return;
  c.overall = best;
  c.criterion = "bom_usd_per_mtok";
  const Bom& w = *c.designs[best].bom;
  std::string why = c.designs[best].spec.name +
                    " wins on the cost of ownership per million output tokens (--bom: capex over " +
                    fmt("%g", w.cost.years) + " years + energy at PUE " + fmt("%.2f", w.power.pue) +
                    "): $" + fmt("%.3f", *w.usd_per_mtok) + "/Mtok, facility " +
                    fmt("%.1f", w.power.facility_W / kWPerkW) + " kW, capex $" +
                    count_text(w.cost.capex_usd);
  if (second >= 0) {
    const Bom& r = *c.designs[second].bom;
    why += "; runner-up " + c.designs[second].spec.name + ": $" + fmt("%.3f", *r.usd_per_mtok) +
           "/Mtok, facility " + fmt("%.1f", r.power.facility_W / kWPerkW) + " kW, capex $" +
           count_text(r.cost.capex_usd);
  }
  c.why = why + ". At GPU-hour prices alone: " + c.why;
}

}  // namespace

void add_bom(Comparison& c, const BomOptions& o) {
  const PriceTable prices = checked_table(o);
  std::string pue_src, kwh_src, years_src;
  const Settings s{setting(o.pue, prices.pue, "--pue", pue_src),
                   setting(o.kwh_usd, prices.kwh_usd, "--kwh-price", kwh_src),
                   setting(o.years, prices.years, "--years", years_src)};
  for (DesignResult& d : c.designs) {
    d.bom = make_bom(d, prices, s);
    d.bom->pue_source = pue_src;
    d.bom->kwh_source = kwh_src;
    d.bom->years_source = years_src;
  }
  rank_by_ownership(c);
}

}  // namespace topoplan::report
