// Cost catalog of `topoplan compare` (topologies/catalog/costs.json, embedded).
#pragma once

#include <optional>
#include <string>

#include "report/compare.hpp"

namespace topoplan::report {

// Power of one server beyond its GPUs for servers of `gpu_model` (default figure when unknown).
Sourced server_overhead_W(const std::string& gpu_model);
// Dated default price per GPU-hour of `gpu_model`, nullopt when the catalog has none.
std::optional<Sourced> default_gpu_hour_price(const std::string& gpu_model);

}  // namespace topoplan::report
