// Hardware catalog: parsed once from the embedded topologies/catalog/{gpus,links,nics}.json.
#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <string_view>

#include "hw/kind_names.hpp"
#include "io/json_reader.hpp"
#include "io/quantity_ranges.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/units.hpp"

namespace topoplan {
namespace {

using nlohmann::json;

LinkKind parse_kind(const io::JsonReader& f, const std::string& key) {
  const std::string text = f.str(key);
  std::string known;
  for (const auto& [kind, name] : detail::kLinkKindNames) {
    if (name == text) return kind;
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  throw InputError(f.source(), f.pointer_to(key),
                   "unknown link kind '" + text + "' (" + known + ")");
}

// "0x2330" → 0x2330; -1 unless the whole text is a hexadecimal number.
int parse_hex_id(const std::string& text) {
  std::size_t used = 0;
  try {
    const int id = std::stoi(text, &used, 16);
    return used == text.size() && id >= 0 ? id : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

// The optional array of strings `key`; `check` returns "" for a bad entry (reported as `bad`).
template <class Check>
std::vector<std::string> string_list(const io::JsonReader& f, const std::string& key,
                                     const char* bad, Check check) {
  std::vector<std::string> out;
  if (!f.has(key)) return out;
  const json& list = f.at(key);
  if (!list.is_array()) throw InputError(f.source(), f.pointer_to(key), "expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string text = list[i].is_string() ? check(list[i].get<std::string>()) : "";
    if (text.empty())
      throw InputError(f.source(), f.pointer_to(key) + "/" + std::to_string(i), bad);
    out.push_back(text);
  }
  return out;
}

// The figures an entry's "assumed" list may name (the numeric and link fields of GpuSpec).
constexpr std::array<std::string_view, 15> kGpuFigures = {
    "memory_GiB",   "memory_GB",   "usable_MiB", "hbm_GBps",   "bf16_TFLOPS",
    "fp16_TFLOPS",  "fp8_TFLOPS",  "int8_TOPS",  "fp4_TFLOPS", "nvlink_type",
    "nvlink_count", "nvlink_GBps", "pcie_type",  "pcie_lanes", "power_W"};

GpuSpec parse_gpu(const io::JsonReader& f) {
  GpuSpec g;
  g.name = f.str("name");
  g.vendor_name = f.str("vendor_name");
  g.aliases = string_list(f, "aliases", "an alias must be a non-empty string",
                          [](const std::string& text) { return text; });
  for (const std::string& id :
       string_list(f, "pci_device_ids", "expected a hexadecimal PCI device id such as \"0x2330\"",
                   [](const std::string& text) { return parse_hex_id(text) < 0 ? "" : text; }))
    g.pci_device_ids.push_back(parse_hex_id(id));
  g.sm_version = f.integer("sm_version", 1);
  g.p2p = f.boolean_or("p2p", true);
  // Capacity in decimal GB ("memory_GB") or binary GiB ("memory_GiB"), as the datasheet states it.
  if (f.has("memory_GiB")) {
    g.memory_bytes = f.quantity("memory_GiB", io::ranges::kGpuMemoryGB) * kGiB;
  } else {
    g.memory_bytes = f.quantity("memory_GB", io::ranges::kGpuMemoryGB) * kGB;
  }
  // nvidia-smi's total (MiB), the memory frameworks actually see; its source is in "source".
  if (f.has("usable_MiB"))
    g.memory_usable_bytes = f.quantity("usable_MiB", io::ranges::kGpuMemoryMiB) * kMiB;
  g.hbm_GBps = f.quantity("hbm_GBps", io::ranges::kGpuHbmGBps);
  g.bf16_TFLOPS = f.quantity("bf16_TFLOPS", io::ranges::kGpuTFLOPS);
  g.fp16_TFLOPS = f.quantity("fp16_TFLOPS", io::ranges::kGpuTFLOPS);
  g.fp8_TFLOPS = f.quantity("fp8_TFLOPS", io::ranges::kGpuTFLOPS, true);  // 0: no FP8
  g.int8_TOPS = f.quantity("int8_TOPS", io::ranges::kGpuTFLOPS, true);
  g.fp4_TFLOPS = f.quantity("fp4_TFLOPS", io::ranges::kGpuTFLOPS, true);
  g.nvlink_type = f.str_or("nvlink_type", "");
  g.nvlink_count = f.has("nvlink_count") ? f.integer("nvlink_count", 0) : 0;
  g.nvlink_GBps = f.has("nvlink_GBps") ? f.quantity("nvlink_GBps", io::ranges::kLinkGBps, true) : 0;
  g.pcie_type = f.str("pcie_type");
  g.pcie_lanes = f.integer("pcie_lanes", 1);
  g.power_W = f.quantity("power_W", io::ranges::kGpuPowerW);
  g.sm_count = f.has("sm_count") ? f.integer("sm_count", 1) : 0;
  g.source = f.str("source");
  g.assumed = string_list(
      f, "assumed", "expected the name of one of this entry's figures",
      [](const std::string& text) {
        return std::find(kGpuFigures.begin(), kGpuFigures.end(), text) != kGpuFigures.end() ? text
                                                                                            : "";
      });
  return g;
}

LinkSpec parse_link(const io::JsonReader& f) {
  LinkSpec l;
  l.name = f.str("name");
  l.kind = parse_kind(f, "kind");
  l.GBps = f.quantity("GBps", io::ranges::kLinkGBps);
  l.efficiency = f.has("efficiency") ? f.quantity("efficiency", io::ranges::kLinkEfficiency) : 1.0;
  l.latency_us = f.quantity("latency_us", io::ranges::kLinkLatency_us, true);
  l.source = f.str("source");
  return l;
}

NicSpec parse_nic(const io::JsonReader& f) {
  NicSpec n;
  n.name = f.str("name");
  n.GBps = f.quantity("GBps", io::ranges::kNicGBps);
  n.port_link = f.str("port_link");
  n.pcie_type = f.str("pcie_type");
  n.pcie_lanes = f.integer("pcie_lanes", 1);
  n.source = f.str("source");
  return n;
}

// Appends the entries of the JSON array `arr` (at JSON pointer `ptr`) to `out`, parsed with
// `parse_one`; a name already in `out` (or earlier in the array) is an error.
template <class Spec, class Fn>
void parse_array(const json& arr, const std::string& file, const std::string& ptr, Fn parse_one,
                 std::vector<Spec>& out) {
  if (!arr.is_array()) throw InputError(file, ptr, "expected an array");
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string at = ptr + "/" + std::to_string(i);
    Spec s = parse_one(io::JsonReader::object_at(arr[i], file, at));
    for (const Spec& prev : out) {
      if (prev.name == s.name)
        throw InputError(file, at + "/name", "duplicate name '" + s.name + "'");
    }
    out.push_back(std::move(s));
  }
}

// Parses `{"<key>": [ {...}, ... ]}` with `parse_one` per entry; names must be unique.
template <class Spec, class Fn>
std::vector<Spec> parse_list(const std::string& text, const std::string& file, const char* key,
                             Fn parse_one) {
  const json doc = io::parse_json_text(text, file);
  if (!doc.is_object() || !doc.contains(key) || !doc[key].is_array()) {
    throw InputError(file, "", std::string("expected an object with an array '") + key + "'");
  }
  std::vector<Spec> out;
  parse_array(doc[key], file, std::string("/") + key, parse_one, out);
  return out;
}

template <class Spec>
std::vector<std::string> names_of(const std::vector<Spec>& specs) {
  std::vector<std::string> names;
  for (const Spec& s : specs) names.push_back(s.name);
  return names;
}

template <class Spec>
const Spec* find_in(const std::vector<Spec>& specs, const std::string& name) {
  for (const Spec& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

// Lower case with runs of whitespace as one space, trimmed: "NVIDIA  H100 80GB hbm3 " matches
// "NVIDIA H100 80GB HBM3" (tools pad and vary case; the catalog key stays exact).
std::string name_key(const std::string& name) {
  std::string key;
  for (char c : name) {
    const bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (space && (key.empty() || key.back() == ' ')) continue;
    key += space ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!key.empty() && key.back() == ' ') key.pop_back();
  return key;
}

// Aliases must not collide with another entry's name or alias, or a lookup would depend on order.
void check_aliases(const std::vector<GpuSpec>& gpus, const std::string& file,
                   const std::string& ptr, std::size_t first) {
  std::map<std::string, std::string> owner;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    std::vector<std::string> keys{gpus[i].name};
    keys.insert(keys.end(), gpus[i].aliases.begin(), gpus[i].aliases.end());
    for (const std::string& k : keys) {
      auto [it, fresh] = owner.emplace(name_key(k), gpus[i].name);
      if (!fresh && it->second != gpus[i].name)
        throw InputError(file, ptr + "/" + std::to_string(i - std::min(i, first)) + "/aliases",
                         "name '" + k + "' already belongs to '" + it->second + "'");
    }
  }
}

void check_link_ref(const std::vector<LinkSpec>& links, const std::string& name,
                    const std::string& file, const std::string& ptr) {
  if (name.empty() || find_in(links, name)) return;
  throw InputError(file, ptr, UnknownNameError("link type", name, names_of(links)).what());
}

}  // namespace

// Cross references of the GPUs from `first_gpu` and NICs from `first_nic` on must resolve, so
// that a server file never meets a dangling catalog name.
void Catalog::check_references(std::size_t first_gpu, std::size_t first_nic,
                               const std::string& gfile, const std::string& gptr,
                               const std::string& nfile, const std::string& nptr) const {
  for (std::size_t i = first_gpu; i < gpus_.size(); ++i) {
    const std::string ptr = gptr + "/" + std::to_string(i - first_gpu);
    check_link_ref(links_, gpus_[i].nvlink_type, gfile, ptr + "/nvlink_type");
    check_link_ref(links_, gpus_[i].pcie_type, gfile, ptr + "/pcie_type");
  }
  check_aliases(gpus_, gfile, gptr, first_gpu);
  for (std::size_t i = first_nic; i < nics_.size(); ++i) {
    const std::string ptr = nptr + "/" + std::to_string(i - first_nic);
    check_link_ref(links_, nics_[i].port_link, nfile, ptr + "/port_link");
    check_link_ref(links_, nics_[i].pcie_type, nfile, ptr + "/pcie_type");
  }
}

Catalog Catalog::parse(const std::string& gpus_json, const std::string& links_json,
                       const std::string& nics_json, const std::string& source) {
  const std::string gfile = source + "/gpus.json", lfile = source + "/links.json",
                    nfile = source + "/nics.json";
  Catalog c;
  c.links_ = parse_list<LinkSpec>(links_json, lfile, "links", parse_link);
  c.gpus_ = parse_list<GpuSpec>(gpus_json, gfile, "gpus", parse_gpu);
  c.nics_ = parse_list<NicSpec>(nics_json, nfile, "nics", parse_nic);
  c.check_references(0, 0, gfile, "/gpus", nfile, "/nics");
  return c;
}

Catalog Catalog::extended(const std::string& catalog_json, const std::string& source,
                          const std::string& pointer) const {
  const json doc = io::parse_json_text(catalog_json, source);
  if (!doc.is_object()) throw InputError(source, pointer, "expected an object");
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() != "gpus" && it.key() != "links" && it.key() != "nics" && it.key() != "comment")
      throw InputError(
          source, pointer + "/" + it.key(),
          UnknownNameError("field", it.key(), {"gpus", "links", "nics", "comment"}).what());
  }
  Catalog c = *this;
  const std::size_t first_gpu = c.gpus_.size(), first_nic = c.nics_.size();
  // Entries are appended to the built-in lists, so a name the catalog has is a duplicate.
  if (doc.contains("links"))
    parse_array(doc["links"], source, pointer + "/links", parse_link, c.links_);
  if (doc.contains("gpus")) parse_array(doc["gpus"], source, pointer + "/gpus", parse_gpu, c.gpus_);
  if (doc.contains("nics")) parse_array(doc["nics"], source, pointer + "/nics", parse_nic, c.nics_);
  c.check_references(first_gpu, first_nic, source, pointer + "/gpus", source, pointer + "/nics");
  c.extension_json_ = extension_json_.empty() ? catalog_json : extension_json_;
  return c;
}

std::string assumed_figures_note(const GpuSpec& gpu) {
  if (gpu.assumed.empty()) return "";
  std::string fields;
  for (const std::string& f : gpu.assumed) fields += (fields.empty() ? "" : ", ") + f;
  return gpu.name + ": " + fields + " not public (assumed; the catalog source says why)";
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    auto text = [](const char* path) {
      auto t = embedded_file(path);
      if (!t) throw InternalError(std::string("embedded file missing: ") + path);
      return std::string(*t);
    };
    return parse(text("topologies/catalog/gpus.json"), text("topologies/catalog/links.json"),
                 text("topologies/catalog/nics.json"), "builtin:catalog");
  }();
  return catalog;
}

const GpuSpec* Catalog::find_gpu(const std::string& name) const {
  if (const GpuSpec* exact = find_in(gpus_, name)) return exact;
  const std::string key = name_key(name);
  for (const GpuSpec& g : gpus_) {
    if (name_key(g.name) == key) return &g;
    for (const std::string& a : g.aliases)
      if (name_key(a) == key) return &g;
  }
  return nullptr;
}
const GpuSpec* Catalog::find_gpu_by_pci_id(int device_id) const {
  for (const GpuSpec& g : gpus_)
    for (int id : g.pci_device_ids)
      if (id == device_id) return &g;
  return nullptr;
}
const LinkSpec* Catalog::find_link(const std::string& name) const {
  return find_in(links_, name);
}
const NicSpec* Catalog::find_nic(const std::string& name) const {
  return find_in(nics_, name);
}

const GpuSpec& Catalog::gpu(const std::string& name) const {
  if (const GpuSpec* g = find_gpu(name)) return *g;
  throw UnknownNameError("GPU model", name, names_of(gpus_));
}

const LinkSpec& Catalog::link(const std::string& name) const {
  if (const LinkSpec* l = find_link(name)) return *l;
  throw UnknownNameError("link type", name, names_of(links_));
}

const NicSpec& Catalog::nic(const std::string& name) const {
  if (const NicSpec* n = find_nic(name)) return *n;
  throw UnknownNameError("NIC model", name, names_of(nics_));
}

}  // namespace topoplan
