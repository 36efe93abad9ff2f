// `topoplan compare --mode train`: the training planner (train.hpp) on every design, and what
// a token budget costs on each: days, GPU-hours, IT energy and dollars at the GPU-hour price.
#include <algorithm>

#include "report/compare.hpp"
#include "report/compare_costs.hpp"
#include "report/table.hpp"
#include "topoplan/error.hpp"
#include "topoplan/route.hpp"

namespace topoplan::report {

namespace {

constexpr double kHoursPerDay = 24;
constexpr double kWhPerMWh = 1e6;

TrainDesignResult run_train_design(const ModelSpec& model, const DesignSpec& spec,
                                   const TrainRequest& q, std::optional<double> price) {
  TrainDesignResult d;
  d.spec = spec;
  const Topology t = load_design_topology(spec);
  d.topology = t.name;
  d.gpu_model = t.device(t.gpus().front()).model;
  d.servers = t.node_count();
  const Router router(t);
  const TrainingResult r = plan_training(model, router, q);
  if (!r.plans.empty() && r.plans.front().fits)
    d.best = r.plans.front();
  else
    d.reason = r.plans.empty() ? "no strategy divides the GPUs" : r.plans.front().reason;
  d.gpus = d.best ? d.best->strategy.gpus() : r.gpus;
  const DesignPower power = design_power(t, spec, d.gpu_model, d.gpus, d.servers, price);
  d.gpu_W = power.gpu_W;
  d.server_overhead_W = power.server_overhead_W;
  d.power_W = power.power_W;
  d.usd_per_gpu_hour = power.usd_per_gpu_hour;
  if (!d.best || d.best->tokens_per_s <= 0) return d;
  // days = tokens ÷ (tokens/s) ÷ 86,400 (train_step.cpp's days_to_train); the rest follow.
  d.days = d.best->days_to_train;
  const double hours = d.days * kHoursPerDay;
  d.gpu_hours = d.gpus * hours;
  d.energy_MWh = d.power_W * hours / kWhPerMWh;
  if (d.usd_per_gpu_hour) d.usd = d.gpu_hours * d.usd_per_gpu_hour->value;
  return d;
}

double criterion_value(const TrainDesignResult& d, const std::string& criterion) {
  return criterion == "usd" ? d.usd.value_or(0) : d.days;
}

std::string summary(const TrainDesignResult& d) {
  std::string s = d.spec.name + " (" + describe(d.best->strategy) + ", MFU " +
                  fmt("%.0f", 100 * d.best->mfu) + "%): " + fmt("%.1f", d.days) + " days, " +
                  count_text(d.gpu_hours) + " GPU-hours, " + fmt("%.0f", d.energy_MWh) + " MWh";
  if (d.usd) s += ", $" + count_text(*d.usd);
  return s;
}

std::string explain(const TrainComparison& c) {
  if (c.overall < 0) return "no design has a training plan that fits in memory";
  const TrainDesignResult& w = c.designs[c.overall];
  std::string why = "Cheapest";
  if (c.criterion == "days") why = "Fastest";
  why += ": " + summary(w) + ".";
  int second = -1;
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    if (static_cast<int>(i) == c.overall || !c.designs[i].best) continue;
    if (second < 0 || criterion_value(c.designs[i], c.criterion) <
                          criterion_value(c.designs[second], c.criterion))
      second = static_cast<int>(i);
  }
  if (second < 0) return why + " No other design has a plan that fits.";
  const TrainDesignResult& r = c.designs[second];
  why += " Runner-up " + summary(r) + ". Per GPU the winner trains " +
         fmt("%.2f", w.best->tokens_per_s_per_gpu / r.best->tokens_per_s_per_gpu) +
         "x the tokens/s on " + fmt("%.2f", static_cast<double>(w.gpus) / r.gpus) + "x the GPUs";
  if (w.usd_per_gpu_hour && r.usd_per_gpu_hour)
    why += " at " + fmt("%.2f", w.usd_per_gpu_hour->value / r.usd_per_gpu_hour->value) +
           "x the GPU-hour price";
  return why + ".";
}

}  // namespace

TrainComparison compare_training(const ModelSpec& model, const std::vector<DesignSpec>& designs,
                                 const TrainRequest& request, const std::vector<double>& prices) {
  check_prices(designs, prices);
  if (request.train_tokens <= 0)
    throw FieldError("train_tokens", "compare --mode train needs the token budget (e.g. 15T)");
  TrainComparison c;
  c.model = model.name;
  c.request = request;
  const std::vector<DesignSpec> unique = with_unique_names(designs);
  for (std::size_t i = 0; i < unique.size(); ++i)
    c.designs.push_back(run_train_design(model, unique[i], request, design_flag_price(prices, i)));
  // Cheapest when every fitting design has a price, else fastest.
  bool priced = true;
  for (const TrainDesignResult& d : c.designs) priced &= !d.best || d.usd.has_value();
  c.criterion = priced ? "usd" : "days";
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    if (!c.designs[i].best) continue;
    if (c.overall < 0 || criterion_value(c.designs[i], c.criterion) <
                             criterion_value(c.designs[c.overall], c.criterion))
      c.overall = static_cast<int>(i);
  }
  c.why = explain(c);
  return c;
}

}  // namespace topoplan::report
