// JSON of a design's bill of materials (the "bom" key of each design in `compare --bom --json`).
#include "report/bom_json.hpp"

#include "report/json_number.hpp"

namespace topoplan::report {

namespace {

using nlohmann::ordered_json;

ordered_json number_or_null(const std::optional<double>& v) {
  return v ? ordered_json(json_number(*v)) : ordered_json(nullptr);
}

ordered_json counts_json(const BomCounts& n) {
  ordered_json tiers = ordered_json::array();
  for (const BomLevel& l : n.levels)
    tiers.push_back({{"level", l.level},
                     {"switch", l.switch_name},
                     {"cable", l.cable_name},
                     {"link", l.link},
                     {"switches", l.switches},
                     {"switch_ports_used", l.switch_ports_used},
                     {"cables", l.cables},
                     {"optics", l.optics}});
  return {{"servers", n.servers},
          {"gpus", n.gpus},
          {"gpu", n.gpu_model},
          {"nics", n.nics},
          {"nic", n.nic_model},
          {"nvlink_tray_ports", n.nvlink_tray_ports},
          {"nvlink_switch_trays", n.nvlink_switch_trays},
          {"switches", n.switches()},
          {"cables", n.cables()},
          {"optics", n.optics()},
          {"tiers", tiers}};
}

ordered_json lines_json(const std::vector<BomLine>& lines) {
  ordered_json out = ordered_json::array();
  for (const BomLine& l : lines)
    out.push_back({{"kind", l.kind},
                   {"item", l.item},
                   {"name", l.name},
                   {"count", l.count},
                   {"unit_W", number_or_null(l.unit_W)},
                   {"unit_usd", number_or_null(l.unit_usd)},
                   {"source", l.source}});
  return out;
}

ordered_json power_json(const Bom& b) {
  const BomPower& p = b.power;
  return {{"gpus_W", json_number(p.gpus_W)},
          {"server_rest_W", json_number(p.server_rest_W)},
          {"nvlink_trays_W", json_number(p.nvlink_trays_W)},
          {"switches_W", json_number(p.switches_W)},
          {"optics_W", json_number(p.optics_W)},
          {"it_W", json_number(p.it_W)},
          {"pue", json_number(p.pue)},
          {"pue_source", b.pue_source},
          {"facility_W", json_number(p.facility_W)},
          {"facility_MW", json_number(p.facility_W / 1e6)}};
}

ordered_json cost_json(const Bom& b) {
  const BomCost& c = b.cost;
  return {{"capex_usd", json_number(c.capex_usd)},
          {"years", json_number(c.years)},
          {"years_source", b.years_source},
          {"kwh_usd", json_number(c.kwh_usd)},
          {"kwh_source", b.kwh_source},
          {"capex_usd_per_h", json_number(c.capex_usd_per_h)},
          {"energy_usd_per_h", json_number(c.energy_usd_per_h)},
          {"usd_per_h", json_number(c.usd_per_h)},
          {"complete", c.complete},
          {"missing", b.missing}};
}

}  // namespace

ordered_json bom_json(const Bom& b) {
  return {{"counts", counts_json(b.counts)},
          {"lines", lines_json(b.lines)},
          {"power", power_json(b)},
          {"cost", cost_json(b)},
          {"tokens_per_s", number_or_null(b.tokens_per_s)},
          {"tokens_per_joule", number_or_null(b.tokens_per_joule)},
          {"usd_per_mtok", number_or_null(b.usd_per_mtok)}};
}

}  // namespace topoplan::report
