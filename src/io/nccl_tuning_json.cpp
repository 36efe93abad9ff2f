// NcclTuning: NCCL's latency and bandwidth constants, parsed from topologies/tuning/nccl.json (or a
// `topoplan calibrate` file of the same schema) with the one JSON reader.
#include <string>

#include "comm/tuning_keys.hpp"
#include "io/json_reader.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"

namespace topoplan {

namespace {
using comm::kAlgoKeys;
using comm::kHwKeys;
using io::JsonReader;
using nlohmann::json;

// Every constant of the file is a required number >= 0.
double required(const JsonReader& r, const std::string& key) {
  r.at(key);  // "missing field"
  return r.number(key, 0, false);
}

// `j` (at `ptr`): N numbers >= 0, one per protocol or per architecture.
template <std::size_t N>
void numbers(const JsonReader& r, const json& j, const std::string& ptr, double (&out)[N]) {
  if (!j.is_array() || j.size() != N)
    r.fail(ptr, "expected an array of " + std::to_string(N) + " numbers");
  for (std::size_t i = 0; i < N; ++i) {
    if (!j[i].is_number() || j[i].get<double>() < 0)
      r.fail(ptr + "/" + std::to_string(i), "must be a number >= 0, got " + j[i].dump());
    out[i] = j[i].get<double>();
  }
}

template <std::size_t N>
void row(const JsonReader& r, const std::string& key, double (&out)[N]) {
  numbers(r, r.at(key), r.pointer_to(key), out);
}

// R rows of C numbers >= 0 (architecture × protocol).
template <std::size_t R, std::size_t C>
void table(const JsonReader& r, const std::string& key, double (&out)[R][C]) {
  const json& j = r.at(key);
  const std::string ptr = r.pointer_to(key);
  if (!j.is_array() || j.size() != R) r.fail(ptr, "expected " + std::to_string(R) + " rows");
  for (std::size_t i = 0; i < R; ++i) numbers(r, j[i], ptr + "/" + std::to_string(i), out[i]);
}
}  // namespace

NcclTuning NcclTuning::parse(const std::string& json_text, const std::string& source) {
  const json doc = io::parse_json_text(json_text, source);
  const JsonReader top = JsonReader::object_at(doc, source, "");
  NcclTuning t;
  t.source = source;
  const json& version = top.at("nccl_version");
  t.nccl_version = version.is_string() ? version.get<std::string>() : "";
  const JsonReader base = top.object("base_latency_us");
  for (int a = 0; a < 6; ++a) row(base, kAlgoKeys[a], t.base_latency_us[a]);
  const JsonReader hw = top.object("hw_latency_us");
  for (int h = 0; h < 3; ++h) {
    const JsonReader hj = hw.object(kHwKeys[h]);
    for (int a = 0; a < 6; ++a) row(hj, kAlgoKeys[a], t.hw_latency_us[h][a]);
  }
  const JsonReader arch = top.object("per_arch");
  table(arch, "ll_max_GBps", t.ll_max_GBps);
  table(arch, "per_ch_max_ring_ll128_GBps", t.per_ch_max_ring_ll128_GBps);
  table(arch, "per_ch_max_tree_ll128_GBps", t.per_ch_max_tree_ll128_GBps);
  table(arch, "per_ch_max_tree_GBps", t.per_ch_max_tree_GBps);
  row(arch, "nvls_efficiency", t.nvls_efficiency);
  const JsonReader pb = top.object("protocol_bw");
  t.ll_bw_factor = required(pb, "ll_factor");
  t.ll128_bw_factor = required(pb, "ll128_factor");
  t.tree_ll_divisor = required(pb, "tree_ll_divisor");
  t.simple_bw_factor = required(pb, "simple_factor");
  const JsonReader misc = top.object("misc");
  t.net_overhead_us = required(misc, "net_overhead_us");
  // Optional: older calibration files lack it.
  if (misc.has("net_overhead_amd_us"))
    t.net_overhead_amd_us = required(misc, "net_overhead_amd_us");
  t.ring_plateau_factor = required(misc, "ring_plateau_factor");
  t.p2p_ll_threshold_bytes = required(misc, "p2p_ll_threshold_bytes");
  t.nvls_min_sm = required(misc, "nvls_min_sm");
  if (top.has("link_efficiency")) {  // written by `topoplan calibrate`
    const JsonReader le = top.object("link_efficiency");
    for (const auto& [type, value] : le.raw().items()) {
      const double e = required(le, type);
      if (e <= 0 || e > 1) le.fail(le.pointer_to(type), "must be in (0, 1]");
      t.link_efficiency.emplace_back(type, e);
    }
  }
  for (double f : {t.ll_bw_factor, t.ll128_bw_factor, t.simple_bw_factor})
    if (f <= 0 || f > 1) throw InputError(source, "/protocol_bw", "factors must be in (0, 1]");
  if (t.tree_ll_divisor < 1)
    throw InputError(source, "/protocol_bw/tree_ll_divisor", "must be ≥ 1");
  return t;
}

const NcclTuning& NcclTuning::builtin() {
  static const NcclTuning kBuiltin = [] {
    const auto text = embedded_file("topologies/tuning/nccl.json");
    if (!text) throw InternalError("embedded topologies/tuning/nccl.json is missing");
    return parse(std::string(*text), "builtin:tuning/nccl.json");
  }();
  return kBuiltin;
}

}  // namespace topoplan
