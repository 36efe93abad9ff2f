// Output of `topoplan compare --mode train`: one row per design (strategy, speed, the budget's
// days, GPU-hours, energy and cost), the sources of power and price, why the winner wins; or JSON.
#include <nlohmann/json.hpp>

#include "report/compare.hpp"
#include "report/compare_parts.hpp"
#include "report/json_number.hpp"
#include "report/table.hpp"

namespace topoplan::report {

namespace {

using nlohmann::ordered_json;

ordered_json number_or_null(bool present, double v) {
  return present ? ordered_json(json_number(v)) : ordered_json(nullptr);
}

std::string mark(const TrainComparison& c, std::size_t i) {
  return c.overall == static_cast<int>(i) ? " *" : "";
}

}  // namespace

void print_train_compare(std::ostream& os, const TrainComparison& c) {
  const TrainRequest& q = c.request;
  os << "topoplan compare: " << c.model << ", mode train, " << count_text(q.train_tokens)
     << " tokens, seq " << fmt("%.0f", q.seq) << ", global batch " << q.global_batch << "\n\n";
  Table t({"design", "strategy", "GPUs", "tok/s/GPU", "MFU", "step s", "days", "GPU-hours", "MWh",
           "$", "power kW"});
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    const TrainDesignResult& d = c.designs[i];
    if (!d.best) {
      t.add_row({d.spec.name, "-", fmt("%.0f", d.gpus), "-", "-", "-", "-", "-", "-", "-",
                 fmt("%.1f", d.power_W / 1e3)});
      continue;
    }
    const TrainPlan& p = *d.best;
    t.add_row({d.spec.name, describe(p.strategy), fmt("%.0f", d.gpus),
               fmt("%.0f", p.tokens_per_s_per_gpu), fmt("%.1f", 100 * p.mfu) + "%",
               fmt("%.2f", p.step_time_ms / 1e3),
               fmt("%.1f", d.days) + (c.criterion == "days" ? mark(c, i) : ""),
               count_text(d.gpu_hours), fmt("%.0f", d.energy_MWh),
               d.usd ? count_text(*d.usd) + (c.criterion == "usd" ? mark(c, i) : "") : "-",
               fmt("%.1f", d.power_W / 1e3)});
  }
  t.print(os);
  os << "* the winner; days = tokens / (tokens/s); GPU-hours = GPUs x hours; MWh = IT power x "
        "hours (GPUs x TDP + servers x overhead, no PUE); $ = GPU-hours x $/GPU-h\n\n";
  for (const TrainDesignResult& d : c.designs) {
    os << d.spec.name << ": " << d.gpus << " x " << d.gpu_model << " on " << d.servers
       << " server(s)";
    if (!d.best) os << " -- no plan fits: " << d.reason;
    os << "\n  price " << price_text(d.usd_per_gpu_hour) << "\n";
  }
  os << "\n" << c.why << "\n";
}

void print_train_compare_json(std::ostream& os, const TrainComparison& c) {
  ordered_json designs = ordered_json::array();
  for (const TrainDesignResult& d : c.designs) {
    const bool fits = d.best.has_value();
    ordered_json j{{"name", d.spec.name},
                   {"spec", d.spec.text},
                   {"topology", d.topology},
                   {"gpu", d.gpu_model},
                   {"servers", d.servers},
                   {"gpus", d.gpus},
                   {"fits", fits},
                   {"reason", fits ? ordered_json(nullptr) : ordered_json(d.reason)},
                   {"strategy", fits ? ordered_json(describe(d.best->strategy)) : nullptr}};
    j["step_time_ms"] = number_or_null(fits, fits ? d.best->step_time_ms : 0);
    j["tokens_per_s"] = number_or_null(fits, fits ? d.best->tokens_per_s : 0);
    j["tokens_per_s_per_gpu"] = number_or_null(fits, fits ? d.best->tokens_per_s_per_gpu : 0);
    j["tflops_per_gpu"] = number_or_null(fits, fits ? d.best->tflops_per_gpu : 0);
    j["mfu"] = number_or_null(fits, fits ? d.best->mfu : 0);
    j["days"] = number_or_null(fits, d.days);
    j["gpu_hours"] = number_or_null(fits, d.gpu_hours);
    j["energy_MWh"] = number_or_null(fits, d.energy_MWh);
    j["usd"] = number_or_null(d.usd.has_value(), d.usd.value_or(0));
    j["power"] = power_json(d.gpu_W, d.server_overhead_W, d.power_W);
    j["price"] = price_json(d.usd_per_gpu_hour);
    designs.push_back(std::move(j));
  }
  ordered_json out{{"model", c.model},
                   {"mode", "train"},
                   {"tokens", json_number(c.request.train_tokens)},
                   {"seq", json_number(c.request.seq)},
                   {"global_batch", c.request.global_batch},
                   {"designs", designs},
                   {"criterion", c.criterion},
                   {"overall", c.overall < 0 ? ordered_json(nullptr)
                                             : ordered_json(c.designs[c.overall].spec.name)},
                   {"why", c.why}};
  os << out.dump(2) << "\n";
}

}  // namespace topoplan::report
