// topoplan-probe result files (include/topoplan/probe.hpp).
#include "io/json_reader.hpp"
#include "io/quantity_ranges.hpp"
#include "topoplan/error.hpp"
#include "topoplan/probe.hpp"

namespace topoplan {
namespace {

// An optional string field of an optional object: "" where either is absent or not a string.
std::string text_or(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

const nlohmann::json& member_or_null(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null_json;
  return j.is_object() && j.contains(key) ? j[key] : null_json;
}

// The C++ probe writes facts.devices[0].name; the Python probes wrote meta.gpu / meta.gpu_torch.
std::string gpu_name_of(const nlohmann::json& j) {
  const auto& devices = member_or_null(member_or_null(j, "facts"), "devices");
  if (devices.is_array() && !devices.empty()) return text_or(devices[0], "name");
  const auto& meta = member_or_null(j, "meta");
  const std::string g = text_or(meta, "gpu");
  return g.empty() ? text_or(meta, "gpu_torch") : g;
}

std::vector<ProbeHostLink> host_links_of(const nlohmann::json& j, const std::string& source) {
  std::vector<ProbeHostLink> out;
  const auto& alone = member_or_null(member_or_null(j, "host_links"), "alone");
  if (alone.is_null()) return out;
  if (!alone.is_array()) throw InputError(source, "/host_links/alone", "expected an array");
  for (std::size_t i = 0; i < alone.size(); ++i) {
    const auto f =
        io::JsonReader::object_at(alone[i], source, "/host_links/alone/" + std::to_string(i));
    namespace rg = io::ranges;
    out.push_back({f.integer("gpu", 0), f.quantity("h2d_GBps", rg::kLinkGBps),
                   f.quantity("d2h_GBps", rg::kLinkGBps),
                   f.quantity("bidirectional_GBps", rg::kLinkGBps, true)});
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> nccl_logs_of(const nlohmann::json& j,
                                                              const std::string& source) {
  std::vector<std::pair<std::string, std::string>> out;
  const auto& runs = member_or_null(member_or_null(j, "nccl"), "runs");
  if (!runs.is_array()) return out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto f = io::JsonReader::object_at(runs[i], source, "/nccl/runs/" + std::to_string(i));
    out.emplace_back(source + "#" + f.pointer_to("log"), f.str("log"));
  }
  return out;
}

}  // namespace

ProbeResult parse_probe_file(const std::string& json_text, const std::string& source) {
  const auto j = io::parse_json_text(json_text, source);
  if (!j.is_object()) throw InputError(source, "", "expected a JSON object");
  ProbeResult r;
  r.source = source;
  r.kernels = parse_probe_results(json_text, source);
  r.gpu_name = gpu_name_of(j);
  const auto& meta = member_or_null(j, "meta");
  r.date = text_or(j, "date").empty() ? text_or(meta, "date") + text_or(meta, "date_utc")
                                      : text_or(j, "date");
  r.driver_version = text_or(j, "driver_version");
  r.cuda_version = text_or(j, "cuda_version").empty() ? text_or(meta, "cuda_runtime")
                                                      : text_or(j, "cuda_version");
  r.nccl_version = text_or(j, "nccl_version");
  r.host_links = host_links_of(j, source);
  r.nccl_logs = nccl_logs_of(j, source);
  const auto& nccl = member_or_null(j, "nccl");
  r.nccl_nvls_enable = text_or(nccl, "NCCL_NVLS_ENABLE");
  r.nccl_algo = text_or(nccl, "NCCL_ALGO");
  return r;
}

}  // namespace topoplan
