// Topology JSON (docs/topology-format.md): devices and links with bracket ranges, or a cluster file
// that names a server and a fabric. Every fatal error names the file and the JSON pointer.
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "hw/kind_names.hpp"
#include "io/json_reader.hpp"
#include "io/quantity_ranges.hpp"
#include "io/topology_document.hpp"
#include "io/topology_ranges.hpp"
#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/topology_io.hpp"

namespace topoplan {
namespace {

using nlohmann::json;

// Unknown keys are errors: a typo such as "cout" would otherwise silently mean count = 1.
void check_keys(const io::JsonReader& f, std::initializer_list<const char*> allowed) {
  for (auto it = f.raw().begin(); it != f.raw().end(); ++it) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || it.key() == a;
    if (!ok) {
      std::vector<std::string> names(allowed.begin(), allowed.end());
      throw InputError(f.source(), f.pointer_to(it.key()),
                       UnknownNameError("field", it.key(), names).what());
    }
  }
}

// The names are hw's one table (kind_names.hpp), in its order for "did you mean".
DeviceType parse_device_type(const io::JsonReader& f) {
  const std::string text = f.str("type");
  try {
    return value_of(detail::kDeviceTypeNames, text, "device type",
                    [](std::string_view name, std::string_view t) { return name == t; });
  } catch (const UnknownNameError& e) {
    throw InputError(f.source(), f.pointer_to("type"), e.what());
  }
}

// Throws at `ptr` when `name` is not in the catalog, keeping the catalog's did-you-mean text.
template <class Lookup>
void require_catalog(Lookup lookup, const std::string& name, const io::JsonReader& f,
                     const std::string& key) {
  try {
    lookup(name);
  } catch (const UnknownNameError& e) {
    throw InputError(f.source(), f.pointer_to(key), e.what());
  }
}

// Parse state shared by the device and link passes: errors are collected per entry so that one
// run reports every bad entry, not just the first.
struct ParseState {
  std::string source;
  Topology& topo;
  const Catalog& cat;  // built-in, or extended by the file's "catalog"
  std::vector<InputError> errors;
  std::set<std::string>
      broken_ids;  // ids of device entries that failed (links to them are skipped)
  std::map<std::pair<int, DeviceType>, int> next_local;  // per (node, type): order of appearance
  std::size_t devices = 0, gpus = 0, links = 0;          // against topoplan/limits.hpp
};

// Thrown by resolve() for an id whose device entry already failed: not reported twice.
struct SkipEntry {};

// Adds `more` to `used`, refusing before anything is allocated when it would pass `cap`.
void check_budget(std::size_t& used, std::size_t more, std::size_t cap, const char* what,
                  const io::JsonReader& f) {
  if (more > cap - used)
    throw InputError(f.source(), f.pointer(),
                     std::string("more than ") + std::to_string(cap) + " " + what +
                         " in one topology (docs/limits.md)");
  used += more;
}

// Each id is non-empty, short, and new: not an earlier device's, nor twice in its own range
// ("gpu[0-7,3]"), which the device table would otherwise meet as a broken invariant.
void check_new_ids(const std::vector<std::string>& ids, const io::JsonReader& f, ParseState& st) {
  const std::string at = f.pointer_to("id");
  check_budget(st.devices, ids.size(), limits::kMaxDevices, "devices", f);
  std::set<std::string_view> seen;
  for (const std::string& id : ids) {
    if (id.empty()) throw InputError(st.source, at, "empty device id");
    if (id.size() > limits::kMaxIdLength)
      throw InputError(st.source, at,
                       "device id longer than " + std::to_string(limits::kMaxIdLength) +
                           " characters (docs/limits.md)");
    if (st.topo.find(id) || !seen.insert(id).second)
      throw InputError(st.source, at, "duplicate device id '" + id + "'");
  }
}

void parse_device(const io::JsonReader& f, ParseState& st) {
  const Catalog& cat = st.cat;
  check_keys(f, {"id", "type", "model", "node", "tier", "comment"});
  const std::vector<std::string> ids =
      detail::expand_range(f.str("id"), st.source, f.pointer_to("id"));
  check_new_ids(ids, f, st);
  try {
    const DeviceType type = parse_device_type(f);
    std::string model = f.str_or("model", "");
    if (type == DeviceType::Gpu) {
      require_catalog([&](const std::string& n) { cat.gpu(n); }, f.str("model"), f, "model");
      model = cat.gpu(model).name;  // an alias ("H100", "NVIDIA H100 80GB HBM3") → catalog key
    } else if (type == DeviceType::Nic && f.has("model")) {
      require_catalog([&](const std::string& n) { cat.nic(n); }, model, f, "model");
    }
    const int tier = f.has("tier") ? f.integer("tier", 0) : (type == DeviceType::NetSwitch ? 1 : 0);
    if (type == DeviceType::Gpu) check_budget(st.gpus, ids.size(), limits::kMaxGpus, "GPUs", f);
    // One server (node 0) unless "node" says otherwise; fabric switches sit outside servers (-1).
    const int node =
        f.has("node") ? f.integer("node", -1) : (type == DeviceType::NetSwitch ? -1 : 0);
    // Per-server tables are sized by the largest node number: it is bounded like the devices
    // (a server holds at least one), so "node": 999999999 cannot size a billion-entry table.
    if (node >= static_cast<int>(limits::kMaxDevices))
      f.fail(f.pointer_to("node"), "must be < " + std::to_string(limits::kMaxDevices) +
                                       " (a server number; docs/limits.md), got " +
                                       std::to_string(node));
    for (const std::string& id : ids) {
      Device d;
      d.id = id;
      d.type = type;
      d.model = model;
      d.node = node;
      d.local_index = st.next_local[{node, type}]++;
      d.tier = tier;
      st.topo.add_device(std::move(d));
    }
  } catch (const InputError&) {
    st.broken_ids.insert(ids.begin(), ids.end());
    throw;
  }
}

std::vector<int> resolve(const io::JsonReader& f, const std::string& key, const ParseState& st) {
  std::vector<int> out;
  for (const std::string& id : detail::expand_range(f.str(key), f.source(), f.pointer_to(key))) {
    auto index = st.topo.find(id);
    if (!index) {
      if (st.broken_ids.count(id)) throw SkipEntry{};
      std::vector<std::string> ids;
      for (std::size_t d = 0; d < st.topo.device_count(); ++d) {
        ids.push_back(st.topo.device(static_cast<int>(d)).id);
      }
      throw InputError(f.source(), f.pointer_to(key),
                       UnknownNameError("device id", id, ids).what());
    }
    out.push_back(*index);
  }
  return out;
}

void parse_link(const io::JsonReader& f, ParseState& st) {
  const Catalog& cat = st.cat;
  check_keys(f, {"from", "to", "type", "count", "bw_GBps", "latency_us", "efficiency", "comment"});
  const std::string type = f.str("type");
  const LinkSpec* spec = cat.find_link(type);
  if (!spec) require_catalog([&](const std::string& n) { cat.link(n); }, type, f, "type");
  const int count = f.has("count") ? f.integer("count", 1) : 1;
  if (count * spec->GBps > limits::kMaxLinkGBps)
    throw InputError(st.source, f.pointer_to("count"),
                     std::to_string(count) + " x " + type + " is more than " +
                         nlohmann::json(limits::kMaxLinkGBps).dump() +
                         " GB/s per direction (docs/limits.md)");
  Link proto;
  proto.kind = spec->kind;
  proto.type = type;
  proto.count = count;
  // bw_GBps overrides the whole bundle's per-direction bandwidth (a measured or derated link).
  proto.bw_GBps =
      f.has("bw_GBps") ? f.quantity("bw_GBps", io::ranges::kLinkGBps) : count * spec->GBps;
  proto.efficiency = spec->efficiency;
  if (f.has("efficiency")) {
    proto.efficiency = f.quantity("efficiency", io::ranges::kLinkEfficiency);
  }
  proto.latency_us = f.has("latency_us") ? f.quantity("latency_us", io::ranges::kLinkLatency_us)
                                         : spec->latency_us;
  const std::vector<int> from = resolve(f, "from", st), to = resolve(f, "to", st);
  if (from.size() != to.size() && from.size() != 1 && to.size() != 1) {
    throw InputError(st.source, f.pointer(),
                     "'from' expands to " + std::to_string(from.size()) + " devices and 'to' to " +
                         std::to_string(to.size()) +
                         "; ranges must have equal lengths, or one side must be a single device");
  }
  const std::size_t n = std::max(from.size(), to.size());
  check_budget(st.links, n, limits::kMaxLinks, "links", f);
  for (std::size_t k = 0; k < n; ++k) {
    Link l = proto;
    l.a = from[from.size() == 1 ? 0 : k];
    l.b = to[to.size() == 1 ? 0 : k];
    st.topo.add_link(std::move(l));
  }
}

// One InputError for all collected problems: the first one's location, the others on more lines.
[[noreturn]] void throw_collected(const ParseState& st) {
  const InputError& first = st.errors.front();
  std::string detail = first.detail();
  for (std::size_t i = 1; i < st.errors.size(); ++i)
    detail += std::string("\n") + st.errors[i].what();
  throw InputError(first.source(), first.location(), detail);
}

// Runs `parse_one` on every entry of `arr`, collecting InputErrors instead of stopping.
template <class Fn>
void parse_entries(const json& arr, const std::string& key, ParseState& st, Fn parse_one) {
  for (std::size_t i = 0; i < arr.size(); ++i) {
    try {
      parse_one(io::JsonReader::object_at(arr[i], st.source, "/" + key + "/" + std::to_string(i)),
                st);
    } catch (const InputError& e) {
      st.errors.push_back(e);
      // Enough to fix the file; the rest of a huge broken file is not worth a suggestion each.
      if (st.errors.size() >= limits::kMaxReportedErrors) {
        st.errors.push_back(InputError(st.source, "", "(further errors not checked)"));
        throw_collected(st);
      }
    } catch (const SkipEntry&) {
    }
  }
}

const json& require_array(const io::JsonReader& f, const std::string& key) {
  const json& v = f.at(key);
  if (!v.is_array()) throw InputError(f.source(), "/" + key, "expected an array");
  return v;
}

io::ClusterDocument parse_cluster(const io::JsonReader& top, const std::string& source);

}  // namespace

io::TopologyDocument io::parse_topology_document(const std::string& text,
                                                 const std::string& source) {
  const json doc = io::parse_json_text(text, source);
  const io::JsonReader top = io::JsonReader::object_at(doc, source, "");
  check_keys(
      top, {"name", "description", "devices", "links", "cluster", "sources", "comment", "catalog"});
  if (top.has("cluster")) return parse_cluster(top, source);
  Topology t;
  // The file's own GPU, link and NIC kinds, beside the built-in catalog (docs/topology-format.md).
  if (top.has("catalog"))
    t.set_catalog(std::make_shared<const Catalog>(
        Catalog::builtin().extended(top.at("catalog").dump(), source, "/catalog")));
  t.name = top.str("name");
  t.description = top.str_at_most("description", limits::kMaxDescriptionBytes);
  const json& devices = require_array(top, "devices");
  const json& links = require_array(top, "links");
  // Ranges make ~8 devices per entry in a server file; the caps keep a file of a million empty
  // entries from reserving billions.
  t.reserve(std::min(devices.size() * 8, limits::kMaxDevices),
            std::min(links.size() * 8, limits::kMaxLinks));
  ParseState st{source, t, t.catalog(), {}, {}, {}, 0, 0, 0};
  parse_entries(devices, "devices", st, parse_device);
  parse_entries(links, "links", st, parse_link);
  if (!st.errors.empty()) throw_collected(st);
  return t;
}

namespace {

// The cluster as written: the server stays a name (the loader resolves it), the fabric kind is
// parsed here, once, into its enum.
io::ClusterDocument parse_cluster(const io::JsonReader& top, const std::string& source) {
  const io::JsonReader c = io::JsonReader::object_at(top.at("cluster"), source, "/cluster");
  check_keys(c, {"server", "count", "servers", "fabric", "comment"});
  const bool mixed = c.has("servers");
  if (mixed && (c.has("server") || c.has("count")))
    c.fail(c.pointer_to("servers"), "give either \"servers\" or \"server\" and \"count\"");
  io::ClusterDocument doc{source,
                          top.str("name"),
                          top.str_at_most("description", limits::kMaxDescriptionBytes),
                          mixed ? std::string() : c.str("server"),
                          {},
                          {}};
  ClusterOptions& opts = doc.options;
  if (mixed) {
    const json& groups = c.at("servers");
    if (!groups.is_array() || groups.empty())
      c.fail(c.pointer_to("servers"), "expected a non-empty array of {\"server\", \"count\"}");
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const io::JsonReader g = io::JsonReader::object_at(
          groups[i], source, c.pointer_to("servers") + "/" + std::to_string(i));
      check_keys(g, {"server", "count", "comment"});
      doc.groups.emplace_back(g.str("server"), g.integer("count", 1));
    }
  } else {
    opts.nodes = c.integer("count", 1);
  }
  if (c.has("fabric")) {
    const io::JsonReader fab = io::JsonReader::object_at(c.at("fabric"), source, "/cluster/fabric");
    check_keys(fab, {"kind", "link", "tiers", "oversubscription", "comment"});
    if (fab.has("kind")) {
      try {
        opts.fabric = parse_fabric_kind(fab.str("kind"));
      } catch (const UnknownNameError& e) {
        throw InputError(source, fab.pointer_to("kind"), e.what());
      }
    }
    opts.link = fab.str_or("link", "");
    if (!opts.link.empty()) {
      require_catalog([](const std::string& n) { Catalog::builtin().link(n); }, opts.link, fab,
                      "link");
    }
    if (fab.has("tiers")) opts.tiers = fab.integer("tiers", 0);
    if (fab.has("oversubscription"))
      opts.oversubscription = fab.number("oversubscription", 1, true);
  }
  return doc;
}

}  // namespace
}  // namespace topoplan
