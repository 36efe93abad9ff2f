#include "report/compare_parts.hpp"

#include "report/json_number.hpp"
#include "report/table.hpp"

namespace topoplan::report {

using nlohmann::ordered_json;

ordered_json power_json(const Sourced& gpu_W, const Sourced& server_overhead_W, double total_W) {
  return {{"gpu_W", json_number(gpu_W.value)},
          {"gpu_source", gpu_W.source},
          {"server_overhead_W", json_number(server_overhead_W.value)},
          {"server_overhead_source", server_overhead_W.source},
          {"total_W", json_number(total_W)}};
}

ordered_json price_json(const std::optional<Sourced>& price) {
  return {{"usd_per_gpu_hour", price ? ordered_json(json_number(price->value)) : nullptr},
          {"source", price ? ordered_json(price->source) : nullptr}};
}

std::string price_text(const std::optional<Sourced>& price, const std::string& gpu) {
  if (price) return "$" + fmt("%.2f", price->value) + "/GPU-h (" + price->source + ")";
  return gpu.empty() ? "none (pass price= or --gpu-hour-price)"
                     : "none (pass price." + gpu + "=, price= or --gpu-hour-price)";
}

}  // namespace topoplan::report
