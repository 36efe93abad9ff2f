// The price and power table of `compare --bom`: topologies/catalog/bom.json (embedded), a
// --prices file in the same layout (entries replace or add by kind and key), --price items.
// Every entry is read through io::JsonReader, so a bad one is an InputError naming the file
// and the JSON pointer (exit 2).

#include "io/json_reader.hpp"
#include "report/compare_costs.hpp"
#include "topoplan/bom.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

constexpr const char* kBomPath = "topologies/catalog/bom.json";
// Plausibility bounds: a GB300 rack is ~$4M and ~132 kW; a price of 10^10 or a switch of
// 10^7 W is a typo.
constexpr double kMaxUsd = 1e9;
constexpr double kMaxW = 1e6;
constexpr int kMaxPorts = 100000;

struct ListKind {
  const char* list;  // array in the file
  const char* kind;  // BomFigure::kind
  const char* key;   // the entry's key field
  bool ports, W;     // which figures it has
};
constexpr ListKind kLists[] = {
    {"switches", "switch", "link", true, true},
    {"optics", "optic", "link", false, true},
    {"cables", "cable", "link", false, false},
    {"nics", "nic", "nic", false, false},
    {"servers", "server", "gpu", false, false},
    {"nvlink_switch_trays", "nvlink_switch_tray", "gpu", true, true},
};

// A figure is required for a new entry and optional when it replaces a known one.
double figure(const io::JsonReader& e, const char* key, double max, bool required) {
  if (required) e.at(key);  // "missing field"
  return e.number_at_most(key, 0, max, false);
}

// Reads one entry; `known` is the entry it replaces (nullptr: a new one, every field needed).
BomFigure read_entry(const io::JsonReader& e, const ListKind& k, const BomFigure* known,
                     bool overrides) {
  BomFigure f = known ? *known : BomFigure{};
  const bool all = known == nullptr;
  f.kind = k.kind;
  f.key = e.str(k.key);
  if (all || e.has("name")) f.name = e.str("name");
  if (k.ports && (all || e.has("ports"))) f.ports = e.integer("ports", 1);
  if (f.ports > kMaxPorts) e.fail(e.pointer_to("ports"), "must be <= 100000");
  if (k.W && (all || e.has("W"))) f.W = figure(e, "W", kMaxW, all);
  if (all || e.has("usd")) f.usd = figure(e, "usd", kMaxUsd, all);
  if (all || e.has("date")) f.date = e.str("date");
  const std::string here = e.source() + e.pointer();
  if (!overrides)
    f.source = e.str("source");
  else
    f.source = "--prices " + here + (e.has("source") ? ": " + e.str("source") : "");
  return f;
}

void read_list(const io::JsonReader& doc, const ListKind& k, PriceTable& t, bool overrides) {
  if (!doc.has(k.list)) return;
  const nlohmann::json& list = doc.at(k.list);
  if (!list.is_array()) doc.fail(doc.pointer_to(k.list), "expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto e = io::JsonReader::object_at(list[i], doc.source(),
                                             doc.pointer_to(k.list) + "/" + std::to_string(i));
    e.only({k.key, "name", "ports", "W", "usd", "date", "source"});
    BomFigure* known = nullptr;
    for (BomFigure& f : t.figures)
      if (f.kind == k.kind && f.key == e.str(k.key)) known = &f;
    BomFigure f = read_entry(e, k, known, overrides);
    if (known)
      *known = std::move(f);
    else
      t.figures.push_back(std::move(f));
  }
}

void read_default(const io::JsonReader& d, const char* key, double min, double max, BomDefault& out,
                  bool overrides) {
  if (!d.has(key)) {
    if (!overrides) d.at(key);  // "missing field"
    return;
  }
  const auto e = d.object(key);
  e.only({"value", "date", "source"});
  out.value = e.number_at_most("value", min, max, true);
  out.source = overrides ? "--prices " + e.source() + e.pointer() : e.str("source");
  if (e.has("date")) out.source += ", " + e.str("date");
}

void read_table(const std::string& text, const std::string& source, PriceTable& t, bool overrides) {
  const nlohmann::json j = io::parse_json_text(text, source);
  const auto doc = io::JsonReader::object_at(j, source, "");
  doc.only({"description", "defaults", "switches", "optics", "cables", "nics", "servers",
            "nvlink_switch_trays"});
  for (const ListKind& k : kLists) read_list(doc, k, t, overrides);
  if (!doc.has("defaults") && overrides) return;
  const auto d = doc.object("defaults");
  d.only({"pue", "kwh_usd", "years"});
  read_default(d, "pue", 1, 5, t.pue, overrides);
  read_default(d, "kwh_usd", 0, 10, t.kwh_usd, overrides);
  read_default(d, "years", 0, 50, t.years, overrides);
}

std::vector<std::string> item_names(const PriceTable& t) {
  std::vector<std::string> names;
  for (const BomFigure& f : t.figures) names.push_back(f.kind + ":" + f.key);
  return names;
}

}  // namespace

const BomFigure* PriceTable::find(const std::string& kind, const std::string& key) const {
  for (const BomFigure& f : figures)
    if (f.kind == kind && f.key == key) return &f;
  return nullptr;
}

PriceTable load_price_table(const std::string& file) {
  PriceTable t;
  const auto text = embedded_file(kBomPath);
  if (!text) throw Error(std::string(kBomPath) + " is not embedded");
  read_table(std::string(*text), kBomPath, t, false);
  if (!file.empty()) read_table(read_text_file(file), file, t, true);
  return t;
}

void apply_item_price(PriceTable& table, const std::string& item) {
  const auto eq = item.find('=');
  const std::string name = item.substr(0, eq);
  const auto colon = name.find(':');
  if (eq == std::string::npos || colon == std::string::npos)
    throw FieldError("item_prices", item + ": expected KIND:KEY=USD (e.g. switch:ib-ndr400=25000)");
  BomFigure* f = nullptr;
  for (BomFigure& g : table.figures)
    if (g.kind + ":" + g.key == name) f = &g;
  if (!f)
    throw FieldError("item_prices",
                     item + ": " + UnknownNameError("priced item", name, item_names(table)).what());
  const std::optional<double> usd = finite_number(item.substr(eq + 1));
  if (!usd || *usd < 0 || *usd > kMaxUsd)
    throw FieldError("item_prices", item + ": the price must be a finite number of USD from 0 to " +
                                        std::to_string(static_cast<long long>(kMaxUsd)));
  f->usd = *usd;
  f->source = "--price " + item;
  f->date.clear();
}

}  // namespace topoplan::report
