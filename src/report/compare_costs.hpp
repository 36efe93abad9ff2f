// Cost catalog of `topoplan compare` (topologies/catalog/costs.json, embedded).
#pragma once

#include <optional>
#include <string>

#include "report/compare.hpp"

namespace topoplan::report {

// Power of one server beyond its GPUs for servers of `gpu_model` (default figure when unknown).
Sourced server_overhead_W(const std::string& gpu_model);
// Whole-number design keys (nodes=, tiers=) above this are refused before the cast to int; the
// cluster's own GPU cap (limits.hpp) is far lower, so no real design is refused here.
inline constexpr int kMaxSpecCount = 1'000'000'000;

// A GPU-hour is priced at 1-10 USD (costs.json's dated list prices); 10^4 is a typo, and keeps
// power, $/Mtok and their ratios finite.
inline constexpr double kMaxGpuHourUsd = 1e4;

// Why `usd` is not a usable GPU-hour price (NaN, inf, negative, above kMaxGpuHourUsd), or "".
std::string gpu_hour_price_problem(double usd);

// `text` as a whole finite number (std::stod also reads "nan", "inf", "1e999" and "5x"'s 5),
// nullopt otherwise. Design keys and --price items.
std::optional<double> finite_number(const std::string& text);

// Dated default price per GPU-hour of `gpu_model`, nullopt when the catalog has none.
std::optional<Sourced> default_gpu_hour_price(const std::string& gpu_model);

}  // namespace topoplan::report
