// Bill of materials of a cluster design (`topoplan compare --bom`, docs/report.md): what the
// design needs, counted from its topology graph, its power and what it costs to own.
//
// Counts: servers, GPUs, NICs, network switches per tier, cables and transceivers per tier
// (one cable per link of the generated fabric, one transceiver per cable end), NVLink switch
// trays of rack-scale systems (NVLink ports into the rack's switch ÷ ports per tray). Power:
// GPUs (gpus.json TDP), the rest of each server (costs.json overhead; a rack-scale system's
// published rack power, of which its trays), network switches and optics, times PUE.
// Cost: capex from a dated, sourced price table (topologies/catalog/bom.json, a --prices file,
// --price items) amortized over `years`, plus energy at `kwh_usd`.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace topoplan {

class Topology;

namespace report {

// One level of a generated fabric: its switches and the cables from the level below
// (level 1: NIC → leaf, 2: leaf → spine, 3: spine → core, 4: core → supercore).
struct BomLevel {
  int level = 0;
  std::string switch_name;  // "leaf", "spine", "core", "supercore"
  std::string cable_name;   // "nic-leaf", "leaf-spine", "spine-core", "core-supercore"
  std::string link;         // catalog link type of the cables ("ib-ndr400")
  long long switches = 0;
  long long switch_ports_used = 0;  // cable ends on this level's switches (down and up)
  long long cables = 0;
  long long optics = 0;  // transceivers: one per cable end, 2 per cable
};

struct BomCounts {
  int servers = 0, gpus = 0, nics = 0;
  std::string gpu_model, nic_model;  // the first GPU's and NIC's (designs are uniform)
  long long nvlink_tray_ports = 0;   // GPU NVLinks into a rack-scale NVLink switch
  long long nvlink_switch_trays = 0;
  std::vector<BomLevel> levels;  // index = level − 1; empty without a fabric
  long long switches() const;
  long long cables() const;
  long long optics() const;
};
// A figure of the price table with where it came from.
struct BomFigure {
  std::string kind;  // "switch", "optic", "cable", "nic", "server", "nvlink_switch_tray"
  std::string key;   // link type, NIC model or GPU model
  std::string name;  // the product
  int ports = 0;     // switches and trays
  double W = 0;      // per unit (switches without optics, optics per transceiver, trays)
  double usd = 0;    // per unit
  std::string date, source;
};
struct BomDefault {
  double value = 0;
  std::string source;
};
struct PriceTable {
  std::vector<BomFigure> figures;
  BomDefault pue, kwh_usd, years;
  const BomFigure* find(const std::string& kind, const std::string& key) const;
};
// The built-in table (bom.json, embedded), then `file`'s entries replace or add by (kind, key)
// (InputError naming the file and JSON pointer on a bad entry).
PriceTable load_price_table(const std::string& file = "");
// Applies one `KIND:KEY=USD` override (FieldError "item_prices" on an unknown item or a bad
// price).
void apply_item_price(PriceTable& table, const std::string& item);

// Counts what `t` needs from its graph. Trays are counted for GPU models with an
// nvlink_switch_trays entry in `prices` (rack-scale systems).
BomCounts count_bom(const Topology& t, const PriceTable& prices);

struct BomOptions {
  std::string prices_file;               // --prices
  std::vector<std::string> item_prices;  // --price KIND:KEY=USD
  std::optional<double> pue, kwh_usd, years;
};

// A priced line of the bill: count × unit figures, with the source.
struct BomLine {
  std::string kind;  // the price table's kind ("switch", "optic", ...)
  std::string item;  // "server", "nic", "leaf", "spine", ..., "optic nic-leaf", "cable leaf-spine"
  std::string name;
  long long count = 0;
  std::optional<double> unit_W, unit_usd;  // nullopt: no figure in the table
  std::string source;
};

struct BomPower {
  double gpus_W = 0;
  double server_rest_W =
      0;  // CPUs, NICs, fans, PSU loss (a rack: its published power − GPUs − trays)
  double nvlink_trays_W = 0;
  double switches_W = 0;
  double optics_W = 0;
  double it_W = 0;
  double pue = 0;
  double facility_W = 0;
};

struct BomCost {
  double capex_usd = 0;
  double years = 0, kwh_usd = 0;
  double capex_usd_per_h = 0, energy_usd_per_h = 0, usd_per_h = 0;
  bool complete = true;  // every line had a price
};

struct Bom {
  BomCounts counts;
  std::vector<BomLine> lines;
  BomPower power;
  BomCost cost;
  std::vector<std::string> missing;  // items without a figure ("switch ib-ndr200")
  // Per design throughput (tokens/s per GPU × the design's GPUs), absent without a plan.
  std::optional<double> tokens_per_s, tokens_per_joule, usd_per_mtok;
  std::string pue_source, kwh_source, years_source;
};

}  // namespace report
}  // namespace topoplan
