// Design specs ("hgx-h800-8:nodes=2:fabric=rail-optimized:price=2.1") and the cost catalog.
#include <nlohmann/json.hpp>

#include "report/compare_costs.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

// A design spec is the request field "designs" (the CLI's --topology); `text` is the spec.
[[noreturn]] void bad_spec(const std::string& text, const std::string& detail) {
  throw FieldError("designs", text + ": " + detail);
}

double number_of(const std::string& key, const std::string& value, const std::string& text) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty())
    bad_spec(text, key + "=" + value + ": expected a number");
  return v;
}

int count_of(const std::string& key, const std::string& value, const std::string& text) {
  const double v = number_of(key, value, text);
  if (v < 1 || v != static_cast<int>(v))
    bad_spec(text, key + "=" + value + ": expected a whole number >= 1");
  return static_cast<int>(v);
}

const nlohmann::json& costs() {
  static const nlohmann::json j = [] {
    const auto text = embedded_file("topologies/catalog/costs.json");
    if (!text) throw Error("costs.json is not embedded");
    return nlohmann::json::parse(*text);
  }();
  return j;
}

}  // namespace

DesignSpec parse_design(const std::string& text) {
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
    else if (key == "price") {
      d.usd_per_gpu_hour = number_of(key, value, text);
      if (*d.usd_per_gpu_hour < 0) bad_spec(text, "price must be >= 0 USD per GPU-hour");
    } else if (key == "name")
      d.name = value;
    else
      throw UnknownNameError(
          "design key", key,
          {"fabric", "fabric-link", "name", "nodes", "oversubscription", "price", "tiers"});
  }
  if (d.name.empty())
    d.name = d.topology + (d.cluster.nodes > 1 ? " x" + std::to_string(d.cluster.nodes) : "");
  return d;
}

Sourced server_overhead_W(const std::string& gpu_model) {
  for (const auto& s : costs()["server_overhead"])
    if (s["gpu"] == gpu_model) return {s["overhead_W"].get<double>(), s["source"]};
  const auto& d = costs()["default_server_overhead"];
  return {d["overhead_W"].get<double>(), d["source"]};
}

std::optional<Sourced> default_gpu_hour_price(const std::string& gpu_model) {
  for (const auto& p : costs()["gpu_hour_prices"])
    if (p["gpu"] == gpu_model)
      return Sourced{p["usd"].get<double>(),
                     p["source"].get<std::string>() + ", " + p["date"].get<std::string>()};
  return std::nullopt;
}

}  // namespace topoplan::report
