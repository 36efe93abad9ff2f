// Topology → topology JSON (docs/topology-format.md), one entry per device and per link. Figures
// equal to the catalog's are left out, so a file written here reads back to the same graph and
// later catalog corrections still apply to it.
#include <cmath>
#include <nlohmann/json.hpp>

#include "hw/kind_names.hpp"
#include "topoplan/topology_import.hpp"

namespace topoplan {

std::string write_topology_json(const Topology& t) {
  using nlohmann::ordered_json;
  ordered_json doc;
  doc["name"] = t.name;
  if (!t.description.empty()) doc["description"] = t.description;
  if (!t.catalog().extension_json().empty())
    doc["catalog"] = ordered_json::parse(t.catalog().extension_json());
  ordered_json devices = ordered_json::array(), links = ordered_json::array();
  for (std::size_t i = 0; i < t.device_count(); ++i) {
    const Device& d = t.device(static_cast<int>(i));
    ordered_json e;
    e["id"] = d.id;
    e["type"] = std::string(to_string(d.type));
    if (!d.model.empty()) e["model"] = d.model;
    const int default_node = d.type == DeviceType::NetSwitch ? -1 : 0;
    if (d.node != default_node) e["node"] = d.node;
    if (d.type == DeviceType::NetSwitch && d.tier != 1) e["tier"] = d.tier;
    devices.push_back(e);
  }
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    const LinkSpec& spec = t.catalog().link(l.type);
    ordered_json e;
    e["from"] = t.device(l.a).id;
    e["to"] = t.device(l.b).id;
    e["type"] = l.type;
    if (l.count != 1) e["count"] = l.count;
    if (std::abs(l.bw_GBps - l.count * spec.GBps) > 1e-9 * l.bw_GBps) e["bw_GBps"] = l.bw_GBps;
    if (l.efficiency != spec.efficiency) e["efficiency"] = l.efficiency;
    if (l.latency_us != spec.latency_us) e["latency_us"] = l.latency_us;
    links.push_back(e);
  }
  // One entry per line: a machine's file stays readable and diffable (hundreds of entries).
  std::string out = "{\n";
  for (auto it = doc.begin(); it != doc.end(); ++it)
    out += "  " + ordered_json(it.key()).dump() + ": " + it.value().dump() + ",\n";
  auto list = [&](const char* key, const ordered_json& entries, bool last) {
    out += std::string("  \"") + key + "\": [\n";
    for (std::size_t i = 0; i < entries.size(); ++i)
      out += "    " + entries[i].dump() + (i + 1 < entries.size() ? ",\n" : "\n");
    out += last ? "  ]\n" : "  ],\n";
  };
  list("devices", devices, false);
  list("links", links, true);
  return out + "}\n";
}

}  // namespace topoplan
