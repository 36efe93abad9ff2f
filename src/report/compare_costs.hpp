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

// $ per million output tokens of `usd_per_hour` spent on `tokens_per_s`: usd_per_hour ÷
// (tokens/s × 3600 s/h) × 10^6. One formula for the compare table, its fronts, its chart and the
// bill of materials (a GPU's price with tok/s/GPU, or a design's with its tok/s).
inline double usd_per_mtok(double usd_per_hour, double tokens_per_s) {
  constexpr double kSecondsPerHour = 3600, kPerMillion = 1e6;
  return usd_per_hour / (tokens_per_s * kSecondsPerHour) * kPerMillion;
}

// A GPU-hour is priced at 1-10 USD (costs.json's dated list prices); 10^4 is a typo, and keeps
// power, $/Mtok and their ratios finite.
inline constexpr double kMaxGpuHourUsd = 1e4;

// Why `usd` is not a usable GPU-hour price (NaN, inf, negative, above kMaxGpuHourUsd), or "".
std::string gpu_hour_price_problem(double usd);

// `text` as a whole finite number (std::stod also reads "nan", "inf", "1e999" and "5x"'s 5),
// nullopt otherwise. Design keys and --price items.
std::optional<double> finite_number(const std::string& text);

// The price of one GPU kind on a design: price.GPU=, then price=, then --gpu-hour-price, then
// the catalog's dated default; nullopt when none.
std::optional<Sourced> design_gpu_price(const DesignSpec& spec, const std::string& gpu_model,
                                        std::optional<double> flag_price);
// Refuses a price.GPU= key that names none of `gpu_models` (the design's GPU kinds).
void check_gpu_prices(const DesignSpec& spec, const std::vector<std::string>& gpu_models);

// Dated default price per GPU-hour of `gpu_model`, nullopt when the catalog has none.
std::optional<Sourced> default_gpu_hour_price(const std::string& gpu_model);

// A design's topology, loaded, validated and checked to hold one GPU kind (serve and train;
// `compare --disagg` lets a mixed cluster through, one kind per server group).
// Throws FieldError ("designs") for a bad design key, InputError for a bad topology.
Topology load_design_topology(const DesignSpec& spec, bool one_gpu_kind = true);

// Power and price of a design (the same for serving and training comparisons).
struct DesignPower {
  Sourced gpu_W, server_overhead_W;
  double power_W = 0;                       // gpus × TDP + servers × overhead
  std::optional<Sourced> usd_per_gpu_hour;  // price=, then --gpu-hour-price, then the catalog
};
DesignPower design_power(const Topology& t, const DesignSpec& spec, const std::string& gpu_model,
                         int gpus, int servers, std::optional<double> flag_price);

// At least two designs; prices empty, one, or one per design, each plausible (FieldError).
void check_prices(const std::vector<DesignSpec>& designs, const std::vector<double>& prices);
// Design i's --gpu-hour-price: none, the one for all, or its own.
std::optional<double> design_flag_price(const std::vector<double>& prices, std::size_t i);

}  // namespace topoplan::report
