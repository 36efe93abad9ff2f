// Pieces both compare reports print (serving: compare_report.cpp, training:
// compare_train_report.cpp): the power and price of a design with their sources.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "report/compare.hpp"

namespace topoplan::report {

// {gpu_W, gpu_source, server_overhead_W, server_overhead_source, total_W}
nlohmann::ordered_json power_json(const Sourced& gpu_W, const Sourced& server_overhead_W,
                                  double total_W);
// {usd_per_gpu_hour, source}, nulls when there is no price.
nlohmann::ordered_json price_json(const std::optional<Sourced>& price);
// "$2.99/GPU-h (source)" or how to give one.
// "none (...)" names the flags that price it; with `gpu` (one kind of a mixed design) also
// price.GPU=.
std::string price_text(const std::optional<Sourced>& price, const std::string& gpu = "");

}  // namespace topoplan::report
