// Design specs ("hgx-h800-8:nodes=2:fabric=rail-optimized:price=2.1") and the cost catalog.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <vector>

#include "io/json_reader.hpp"
#include "io/utf8.hpp"
#include "report/compare_costs.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

// A design spec is the request field "designs" (the CLI's --topology); `text` is the spec.
[[noreturn]] void bad_spec(const std::string& text, const std::string& detail) {
  throw FieldError("designs", text + ": " + detail);
}

// A finite number: std::stod reads "nan", "inf" and "1e999" (as inf) too, and a NaN price
// compared as neither cheaper nor dearer, so the "cheapest" design was whichever came first.
double number_of(const std::string& key, const std::string& value, const std::string& text) {
  const std::optional<double> v = finite_number(value);
  if (!v) bad_spec(text, key + "=" + value + ": expected a finite number");
  return *v;
}

// Checked in double before the cast: converting 1e30 to int is undefined behaviour.
int count_of(const std::string& key, const std::string& value, const std::string& text) {
  const double v = number_of(key, value, text);
  if (v < 1 || v > kMaxSpecCount || v != std::floor(v))
    bad_spec(text, key + "=" + value + ": expected a whole number from 1 to " +
                       std::to_string(kMaxSpecCount));
  return static_cast<int>(v);
}

// costs.json (embedded, topologies/catalog/) read like every input file: through the bounded
// reader, each field checked and located, so a bad edit to it is a located error, not an
// nlohmann exception or a missing key read through const operator[] (undefined behaviour).
struct GpuFigure {
  std::string gpu;
  Sourced figure;
};
struct CostCatalog {
  std::vector<GpuFigure> overhead_W, gpu_hour_usd;
  Sourced default_overhead_W;
};

constexpr const char* kCostsPath = "topologies/catalog/costs.json";

std::vector<GpuFigure> gpu_figures(const io::JsonReader& doc, const std::string& key,
                                   const char* value_key, bool dated) {
  std::vector<GpuFigure> out;
  const nlohmann::json& list = doc.at(key);
  if (!list.is_array()) doc.fail(doc.pointer_to(key), "expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto e = io::JsonReader::object_at(list[i], doc.source(),
                                             doc.pointer_to(key) + "/" + std::to_string(i));
    std::string source = e.str("source");
    if (dated) source += ", " + e.str("date");
    out.push_back({e.str("gpu"), {e.number(value_key, 0, true), source}});
  }
  return out;
}

CostCatalog read_costs() {
  const auto text = embedded_file(kCostsPath);
  if (!text) throw Error(std::string(kCostsPath) + " is not embedded");
  const nlohmann::json j = io::parse_json_text(std::string(*text), kCostsPath);
  const auto doc = io::JsonReader::object_at(j, kCostsPath, "");
  const auto fallback = doc.object("default_server_overhead");
  return {gpu_figures(doc, "server_overhead", "overhead_W", false),
          gpu_figures(doc, "gpu_hour_prices", "usd", true),
          {fallback.number("overhead_W", 0, true), fallback.str("source")}};
}

const CostCatalog& costs() {
  static const CostCatalog c = read_costs();
  return c;
}

}  // namespace

DesignSpec parse_design(const std::string& text) {
  // A design's text names it in every table and JSON answer (name= or the topology): bytes that
  // are not UTF-8 made the JSON writer throw, an internal error.
  if (!io::is_utf8(text))
    throw FieldError("designs", io::utf8_or_replaced(text) + ": not UTF-8 text");
  DesignSpec d;
  d.text = text;
  std::size_t start = 0;
  bool first = true;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(':', start), text.size());
    const std::string part = text.substr(start, end - start);
    start = end + 1;
    if (first) {
      if (part.empty()) bad_spec(text, "no topology name before ':'");
      d.topology = part;
      first = false;
      continue;
    }
    const auto eq = part.find('=');
    if (eq == std::string::npos) bad_spec(text, "'" + part + "' is not key=value");
    const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
    if (key == "nodes")
      d.cluster.nodes = count_of(key, value, text);
    else if (key == "fabric")
      d.cluster.fabric = parse_fabric_kind(value);
    else if (key == "fabric-link")
      d.cluster.link = value;
    else if (key == "tiers")
      d.cluster.tiers = count_of(key, value, text);
    else if (key == "oversubscription")
      d.cluster.oversubscription = number_of(key, value, text);
    else if (key == "price" || key.rfind("price.", 0) == 0) {
      const double usd = number_of(key, value, text);
      if (const std::string bad = gpu_hour_price_problem(usd); !bad.empty())
        bad_spec(text, key + "=" + value + ": " + bad);
      if (key == "price")
        d.usd_per_gpu_hour = usd;
      else if (key.size() == 6)
        bad_spec(text, "price.=: name the GPU model (price.H20=1.2)");
      else
        d.gpu_prices.emplace_back(key.substr(6), usd);
    } else if (key == "name") {
      d.name = value;
      d.named = true;
    } else
      throw UnknownNameError("design key", key,
                             {"fabric", "fabric-link", "name", "nodes", "oversubscription", "price",
                              "price.GPU", "tiers"});
  }
  // A file design is labelled by its file name without folders and .json (a path in every row
  // and sentence is hard to read; with_unique_names falls back to the text if two collide).
  if (d.name.empty()) {
    const std::filesystem::path file(d.topology);
    const std::string base = file.extension() == ".json" ? file.stem().string() : d.topology;
    d.name = base + (d.cluster.nodes > 1 ? " x" + std::to_string(d.cluster.nodes) : "");
  }
  return d;
}

std::vector<DesignSpec> with_unique_names(std::vector<DesignSpec> designs) {
  std::vector<std::string> names;
  for (const DesignSpec& d : designs) names.push_back(d.name);
  for (DesignSpec& d : designs)
    if (!d.named && std::count(names.begin(), names.end(), d.name) > 1) d.name = d.text;
  // A default that collided is now its text; two identical texts stay as given (a user's choice).
  return designs;
}

std::optional<double> finite_number(const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || text.empty() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string gpu_hour_price_problem(double usd) {
  if (!std::isfinite(usd) || usd < 0 || usd > kMaxGpuHourUsd)
    return "must be a finite price from 0 to " + std::to_string(static_cast<int>(kMaxGpuHourUsd)) +
           " USD per GPU-hour";
  return "";
}

Sourced server_overhead_W(const std::string& gpu_model) {
  for (const GpuFigure& f : costs().overhead_W)
    if (f.gpu == gpu_model) return f.figure;
  return costs().default_overhead_W;
}

std::optional<Sourced> design_gpu_price(const DesignSpec& spec, const std::string& gpu_model,
                                        std::optional<double> flag_price) {
  for (const auto& [gpu, usd] : spec.gpu_prices)
    if (gpu == gpu_model) return Sourced{usd, "price." + gpu + "= in --topology " + spec.text};
  if (spec.usd_per_gpu_hour)
    return Sourced{*spec.usd_per_gpu_hour, "price= in --topology " + spec.text};
  if (flag_price) return Sourced{*flag_price, "--gpu-hour-price"};
  return default_gpu_hour_price(gpu_model);
}

void check_gpu_prices(const DesignSpec& spec, const std::vector<std::string>& gpu_models) {
  for (const auto& entry : spec.gpu_prices) {
    if (std::find(gpu_models.begin(), gpu_models.end(), entry.first) != gpu_models.end()) continue;
    std::string known;
    for (const std::string& g : gpu_models) known += (known.empty() ? "" : ", ") + g;
    bad_spec(spec.text, "price." + entry.first + "=: the design has no GPU '" + entry.first +
                            "' (its GPUs: " + known + ")");
  }
}

std::optional<Sourced> default_gpu_hour_price(const std::string& gpu_model) {
  for (const GpuFigure& f : costs().gpu_hour_usd)
    if (f.gpu == gpu_model) return f.figure;
  return std::nullopt;
}

}  // namespace topoplan::report
