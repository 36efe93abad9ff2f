// NcclTuning: NCCL's latency and bandwidth constants, parsed from topologies/tuning/nccl.json.
#include <nlohmann/json.hpp>
#include <string>

#include "comm/tuning_keys.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"

namespace topoplan {

namespace {
using comm::kAlgoKeys;
using comm::kHwKeys;
using nlohmann::json;

struct Reader {
  const std::string& source;

  const json& at(const json& j, const std::string& key, const std::string& ptr) const {
    if (!j.is_object() || !j.contains(key))
      throw InputError(source, ptr + "/" + key, "missing field '" + key + "'");
    return j.at(key);
  }
  double number(const json& j, const std::string& ptr) const {
    if (!j.is_number()) throw InputError(source, ptr, "expected a number");
    const double v = j.get<double>();
    if (v < 0) throw InputError(source, ptr, "must be ≥ 0");
    return v;
  }
  template <std::size_t N>
  void row(const json& j, const std::string& ptr, double (&out)[N]) const {
    if (!j.is_array() || j.size() != N)
      throw InputError(source, ptr, "expected an array of " + std::to_string(N) + " numbers");
    for (std::size_t i = 0; i < N; ++i) out[i] = number(j[i], ptr + "/" + std::to_string(i));
  }
  template <std::size_t R, std::size_t C>
  void table(const json& j, const std::string& ptr, double (&out)[R][C]) const {
    if (!j.is_array() || j.size() != R)
      throw InputError(source, ptr, "expected " + std::to_string(R) + " rows");
    for (std::size_t r = 0; r < R; ++r) row(j[r], ptr + "/" + std::to_string(r), out[r]);
  }
};
}  // namespace

NcclTuning NcclTuning::parse(const std::string& json_text, const std::string& source) {
  json doc;
  try {
    doc = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw InputError(source, "", std::string("invalid JSON: ") + e.what());
  }
  Reader rd{source};
  NcclTuning t;
  t.source = source;
  const json& ver = rd.at(doc, "nccl_version", "");
  t.nccl_version = ver.is_string() ? ver.get<std::string>() : "";
  const json& base = rd.at(doc, "base_latency_us", "");
  for (int a = 0; a < 6; ++a)
    rd.row(rd.at(base, kAlgoKeys[a], "/base_latency_us"),
           std::string("/base_latency_us/") + kAlgoKeys[a], t.base_latency_us[a]);
  const json& hw = rd.at(doc, "hw_latency_us", "");
  for (int h = 0; h < 3; ++h) {
    const std::string hp = std::string("/hw_latency_us/") + kHwKeys[h];
    const json& hj = rd.at(hw, kHwKeys[h], "/hw_latency_us");
    for (int a = 0; a < 6; ++a)
      rd.row(rd.at(hj, kAlgoKeys[a], hp), hp + "/" + kAlgoKeys[a], t.hw_latency_us[h][a]);
  }
  const json& arch = rd.at(doc, "per_arch", "");
  rd.table(rd.at(arch, "ll_max_GBps", "/per_arch"), "/per_arch/ll_max_GBps", t.ll_max_GBps);
  rd.table(rd.at(arch, "per_ch_max_ring_ll128_GBps", "/per_arch"),
           "/per_arch/per_ch_max_ring_ll128_GBps", t.per_ch_max_ring_ll128_GBps);
  rd.table(rd.at(arch, "per_ch_max_tree_ll128_GBps", "/per_arch"),
           "/per_arch/per_ch_max_tree_ll128_GBps", t.per_ch_max_tree_ll128_GBps);
  rd.table(rd.at(arch, "per_ch_max_tree_GBps", "/per_arch"), "/per_arch/per_ch_max_tree_GBps",
           t.per_ch_max_tree_GBps);
  rd.row(rd.at(arch, "nvls_efficiency", "/per_arch"), "/per_arch/nvls_efficiency",
         t.nvls_efficiency);
  const json& pb = rd.at(doc, "protocol_bw", "");
  t.ll_bw_factor = rd.number(rd.at(pb, "ll_factor", "/protocol_bw"), "/protocol_bw/ll_factor");
  t.ll128_bw_factor =
      rd.number(rd.at(pb, "ll128_factor", "/protocol_bw"), "/protocol_bw/ll128_factor");
  t.tree_ll_divisor =
      rd.number(rd.at(pb, "tree_ll_divisor", "/protocol_bw"), "/protocol_bw/tree_ll_divisor");
  t.simple_bw_factor =
      rd.number(rd.at(pb, "simple_factor", "/protocol_bw"), "/protocol_bw/simple_factor");
  const json& misc = rd.at(doc, "misc", "");
  t.net_overhead_us = rd.number(rd.at(misc, "net_overhead_us", "/misc"), "/misc/net_overhead_us");
  if (misc.contains("net_overhead_amd_us"))  // optional: older calibration files lack it
    t.net_overhead_amd_us = rd.number(misc["net_overhead_amd_us"], "/misc/net_overhead_amd_us");
  t.ring_plateau_factor =
      rd.number(rd.at(misc, "ring_plateau_factor", "/misc"), "/misc/ring_plateau_factor");
  t.p2p_ll_threshold_bytes =
      rd.number(rd.at(misc, "p2p_ll_threshold_bytes", "/misc"), "/misc/p2p_ll_threshold_bytes");
  t.nvls_min_sm = rd.number(rd.at(misc, "nvls_min_sm", "/misc"), "/misc/nvls_min_sm");
  if (doc.contains("link_efficiency")) {  // written by `topoplan calibrate`
    const json& le = doc["link_efficiency"];
    if (!le.is_object()) throw InputError(source, "/link_efficiency", "expected an object");
    for (auto it = le.begin(); it != le.end(); ++it) {
      const double e = rd.number(it.value(), "/link_efficiency/" + it.key());
      if (e <= 0 || e > 1)
        throw InputError(source, "/link_efficiency/" + it.key(), "must be in (0, 1]");
      t.link_efficiency.emplace_back(it.key(), e);
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
