// NcclTuning: NCCL's latency and bandwidth constants, parsed from topologies/tuning/nccl.json (or a
// `topoplan calibrate` file of the same schema) with the one JSON reader.
#include <string>

#include "comm/tuning_keys.hpp"
#include "io/json_reader.hpp"
#include "io/quantity_ranges.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"

namespace topoplan {

namespace {
using comm::kAlgoKeys;
using comm::kHwKeys;
using io::JsonReader;
using nlohmann::json;

// Every constant of the file is a required number within its plausible range
// (io/quantity_ranges.hpp): 1e300 µs of latency or a denormal bandwidth gave 300-digit times.
double required(const JsonReader& r, const std::string& key, const io::QuantityRange& range) {
  r.at(key);  // "missing field"
  return r.quantity(key, range);
}

// `j` (at `ptr`): N numbers in `range`, one per protocol or per architecture; `zero_ok`: 0 is
// "not on this architecture" (NVLS before Hopper, collnet cells NCCL leaves '-').
template <std::size_t N>
void numbers(const JsonReader& r, const json& j, const std::string& ptr, double (&out)[N],
             const io::QuantityRange& range, bool zero_ok) {
  if (!j.is_array() || j.size() != N)
    r.fail(ptr, "expected an array of " + std::to_string(N) + " numbers");
  for (std::size_t i = 0; i < N; ++i) {
    if (!j[i].is_number())
      r.fail(ptr + "/" + std::to_string(i), "expected a number, got " + j[i].dump());
    out[i] = j[i].get<double>();
    if (const std::string p = io::out_of_range(out[i], range, zero_ok); !p.empty())
      r.fail(ptr + "/" + std::to_string(i), p);
  }
}

template <std::size_t N>
void row(const JsonReader& r, const std::string& key, double (&out)[N],
         const io::QuantityRange& range, bool zero_ok) {
  numbers(r, r.at(key), r.pointer_to(key), out, range, zero_ok);
}

// R rows of C bandwidths (architecture × protocol).
template <std::size_t R, std::size_t C>
void table(const JsonReader& r, const std::string& key, double (&out)[R][C]) {
  const json& j = r.at(key);
  const std::string ptr = r.pointer_to(key);
  if (!j.is_array() || j.size() != R) r.fail(ptr, "expected " + std::to_string(R) + " rows");
  for (std::size_t i = 0; i < R; ++i)
    numbers(r, j[i], ptr + "/" + std::to_string(i), out[i], io::ranges::kTuningGBps, false);
}
}  // namespace

NcclTuning NcclTuning::parse(const std::string& json_text, const std::string& source) {
  const json doc = io::parse_json_text(json_text, source);
  const JsonReader top = JsonReader::object_at(doc, source, "");
  NcclTuning t;
  t.source = source;
  const json& version = top.at("nccl_version");
  t.nccl_version = version.is_string() ? version.get<std::string>() : "";
  namespace rg = io::ranges;
  const JsonReader base = top.object("base_latency_us");
  for (int a = 0; a < 6; ++a)
    row(base, kAlgoKeys[a], t.base_latency_us[a], rg::kTuningLatency_us, false);
  const JsonReader hw = top.object("hw_latency_us");
  for (int h = 0; h < 3; ++h) {
    const JsonReader hj = hw.object(kHwKeys[h]);
    for (int a = 0; a < 6; ++a)
      row(hj, kAlgoKeys[a], t.hw_latency_us[h][a], rg::kTuningLatency_us, false);
  }
  const JsonReader arch = top.object("per_arch");
  table(arch, "ll_max_GBps", t.ll_max_GBps);
  table(arch, "per_ch_max_ring_ll128_GBps", t.per_ch_max_ring_ll128_GBps);
  table(arch, "per_ch_max_tree_ll128_GBps", t.per_ch_max_tree_ll128_GBps);
  table(arch, "per_ch_max_tree_GBps", t.per_ch_max_tree_GBps);
  row(arch, "nvls_efficiency", t.nvls_efficiency, rg::kProtocolFactor, true);
  const JsonReader pb = top.object("protocol_bw");
  t.ll_bw_factor = required(pb, "ll_factor", rg::kProtocolFactor);
  t.ll128_bw_factor = required(pb, "ll128_factor", rg::kProtocolFactor);
  t.tree_ll_divisor = required(pb, "tree_ll_divisor", rg::kTreeLlDivisor);
  t.simple_bw_factor = required(pb, "simple_factor", rg::kProtocolFactor);
  const JsonReader misc = top.object("misc");
  t.net_overhead_us = required(misc, "net_overhead_us", rg::kTuningLatency_us);
  // Optional: older calibration files lack it.
  if (misc.has("net_overhead_amd_us"))
    t.net_overhead_amd_us = required(misc, "net_overhead_amd_us", rg::kTuningLatency_us);
  t.ring_plateau_factor = required(misc, "ring_plateau_factor", rg::kRingPlateauFactor);
  t.p2p_ll_threshold_bytes = required(misc, "p2p_ll_threshold_bytes", rg::kP2pLlThreshold_bytes);
  t.nvls_min_sm = required(misc, "nvls_min_sm", rg::kSmVersion);
  if (top.has("link_efficiency")) {  // written by `topoplan calibrate`
    const JsonReader le = top.object("link_efficiency");
    for (const auto& [type, value] : le.raw().items())
      t.link_efficiency.emplace_back(type, required(le, type, rg::kLinkEfficiency));
  }
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
