// topoplan-probe result files (include/topoplan/probe.hpp).
#include "hw/json_fields.hpp"
#include "topoplan/error.hpp"
#include "topoplan/probe.hpp"

namespace topoplan {
namespace {

std::string text_or(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

std::string gpu_name_of(const nlohmann::json& j) {
  if (j.contains("facts") && j["facts"].contains("devices") && j["facts"]["devices"].is_array() &&
      !j["facts"]["devices"].empty())
    return text_or(j["facts"]["devices"][0], "name");
  if (j.contains("meta")) {
    const std::string g = text_or(j["meta"], "gpu");
    return g.empty() ? text_or(j["meta"], "gpu_torch") : g;
  }
  return "";
}

std::vector<ProbeHostLink> host_links_of(const nlohmann::json& j, const std::string& source) {
  std::vector<ProbeHostLink> out;
  if (!j.contains("host_links") || !j["host_links"].contains("alone")) return out;
  const auto& alone = j["host_links"]["alone"];
  if (!alone.is_array()) throw InputError(source, "/host_links/alone", "expected an array");
  for (std::size_t i = 0; i < alone.size(); ++i) {
    const detail::Fields f(alone[i], source, "/host_links/alone/" + std::to_string(i));
    out.push_back({f.integer("gpu", 0), f.number("h2d_GBps", 0, true),
                   f.number("d2h_GBps", 0, true), f.number("bidirectional_GBps", 0, false)});
  }
  return out;
}

}  // namespace

ProbeResult parse_probe_file(const std::string& json_text, const std::string& source) {
  const auto j = detail::parse_json_text(json_text, source);
  if (!j.is_object()) throw InputError(source, "", "expected a JSON object");
  ProbeResult r;
  r.source = source;
  r.kernels = parse_probe_results(json_text, source);
  r.gpu_name = gpu_name_of(j);
  const nlohmann::json meta = j.contains("meta") ? j["meta"] : nlohmann::json::object();
  r.date = text_or(j, "date").empty() ? text_or(meta, "date") + text_or(meta, "date_utc")
                                      : text_or(j, "date");
  r.driver_version = text_or(j, "driver_version");
  r.cuda_version = text_or(j, "cuda_version").empty() ? text_or(meta, "cuda_runtime")
                                                      : text_or(j, "cuda_version");
  r.nccl_version = text_or(j, "nccl_version");
  r.host_links = host_links_of(j, source);
  if (j.contains("nccl") && j["nccl"].contains("runs") && j["nccl"]["runs"].is_array()) {
    const auto& runs = j["nccl"]["runs"];
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const detail::Fields f(runs[i], source, "/nccl/runs/" + std::to_string(i));
      r.nccl_logs.emplace_back(source + "#" + f.pointer_to("log"), f.str("log"));
    }
  }
  return r;
}

}  // namespace topoplan
