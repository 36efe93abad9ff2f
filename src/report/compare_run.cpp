// `topoplan compare`: plans each design with the planner's API (plan.hpp), prices power and
// GPU-hours, marks the winner of each column and says why the overall winner wins.
#include <cmath>

#include "io/cluster_errors.hpp"
#include "report/compare.hpp"
#include "report/compare_costs.hpp"
#include "report/table.hpp"
#include "topoplan/error.hpp"
#include "topoplan/route.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

void price_design(DesignResult& d, std::optional<double> flag_price) {
  const DesignPower power =
      design_power(d.topology, d.spec, d.gpu_model, d.gpus, d.servers, flag_price);
  d.gpu_W = power.gpu_W;
  d.server_overhead_W = power.server_overhead_W;
  d.power_W = power.power_W;
  d.usd_per_gpu_hour = power.usd_per_gpu_hour;
  if (!d.best) return;
  const PlanResult& p = *d.best;
  // Output tokens per joule = (tokens/s) / W; $/Mtok = (GPUs × $/GPU-h) / (tokens/h) × 1e6.
  d.tokens_per_joule = d.power_W > 0 ? p.tokens_per_s / d.power_W : 0;
  d.headroom_bytes = p.memory.capacity_bytes - p.memory.used_bytes();
  if (d.usd_per_gpu_hour && p.tokens_per_s > 0)
    d.usd_per_mtok = usd_per_mtok(d.gpus * d.usd_per_gpu_hour->value, p.tokens_per_s);
}

DesignResult run_design(const ModelSpec& model, const DesignSpec& spec, const PlanRequest& req,
                        std::optional<double> price) {
  DesignResult d;
  d.spec = spec;
  d.topology = load_design_topology(spec);
  Router router(d.topology);
  d.plan = plan(model, router, req);
  if (!d.plan.plans.empty() && d.plan.plans.front().fits && d.plan.plans.front().meets_limits)
    d.best = d.plan.plans.front();
  d.gpus = d.best ? d.best->strategy.gpus() : static_cast<int>(d.topology.gpus().size());
  d.servers = d.topology.node_count();
  d.gpu_model = d.topology.device(d.topology.gpus().front()).model;
  price_design(d, price);
  return d;
}

std::string ratio(double a, double b) {
  return b > 0 ? fmt("%.2f", a / b) + "x" : "n/a";
}

// The winner and the runner-up on the criterion, and what drives the difference.
std::string explain(const Comparison& c) {
  if (c.overall < 0) return "no design has a plan that fits and meets the limits";
  const DesignResult& w = c.designs[c.overall];
  const PlanResult& p = *w.best;
  std::string why = w.spec.name + " wins on " +
                    (c.criterion == "usd_per_mtok" ? std::string("$ per million output tokens")
                                                   : std::string("tokens/s/GPU")) +
                    " with " + to_string(p.strategy) + ": " + fmt("%.1f", p.tokens_per_s_per_gpu) +
                    " tok/s/GPU at TPOT " + fmt("%.1f", p.tpot_ms) + " ms, batch " +
                    fmt("%.0f", p.batch);
  if (w.usd_per_mtok) why += ", $" + fmt("%.3f", *w.usd_per_mtok) + "/Mtok";
  why += ".";
  int second = -1;
  for (std::size_t i = 0; i < c.designs.size(); ++i) {
    if (static_cast<int>(i) == c.overall || !c.designs[i].best) continue;
    const auto v = column_value(c.designs[i], c.criterion);
    const auto best = second < 0 ? std::nullopt : column_value(c.designs[second], c.criterion);
    if (!v) continue;
    const int better = c.criterion == "usd_per_mtok" ? -1 : 1;
    if (second < 0 || !best || better * (*v - *best) > 0) second = static_cast<int>(i);
  }
  if (second < 0) return why + " No other design has a fitting plan.";
  // A tie is not a win (issue 28): equal on the criterion to a part in a million.
  const double mine = *column_value(w, c.criterion),
               theirs = *column_value(c.designs[second], c.criterion);
  if (std::fabs(mine - theirs) <= 1e-6 * std::max(std::fabs(mine), std::fabs(theirs)))
    return w.spec.name + " and " + c.designs[second].spec.name + " tie on " +
           (c.criterion == "usd_per_mtok" ? std::string("$ per million output tokens")
                                          : std::string("tokens/s/GPU")) +
           " (" + to_string(p.strategy) + ", " + fmt("%.1f", p.tokens_per_s_per_gpu) +
           " tok/s/GPU at TPOT " + fmt("%.1f", p.tpot_ms) + " ms).";
  const DesignResult& r = c.designs[second];
  const PlanResult& q = *r.best;
  why += " Against the runner-up " + r.spec.name + " (" + to_string(q.strategy) +
         "): " + ratio(p.tokens_per_s_per_gpu, q.tokens_per_s_per_gpu) + " the tokens/s/GPU";
  if (w.usd_per_gpu_hour && r.usd_per_gpu_hour)
    why += " at " + ratio(w.usd_per_gpu_hour->value, r.usd_per_gpu_hour->value) +
           " the GPU-hour price";
  why += "; it holds " + ratio(p.max_batch / w.gpus, q.max_batch / r.gpus) +
         " the sequences per GPU (KV room " + fmt("%.1f", p.memory.kv_capacity_bytes / kGiB) +
         " vs " + fmt("%.1f", q.memory.kv_capacity_bytes / kGiB) + " GiB/GPU)";
  // The largest term of each decode step says what bounds it (memory, compute or comm).
  auto top_term = [](const TimeBreakdown& b) {
    std::pair<std::string, double> top{"", -1};
    for (const auto& t : terms(b))
      if (t.second > top.second) top = t;
    return top.first + " " + fmt("%.0f", 100 * top.second / std::max(b.total_us(), 1e-9)) + "%";
  };
  why += "; decode step bound by " + top_term(p.decode) + " vs " + top_term(q.decode) + ".";
  return why;
}

}  // namespace

Topology load_design_topology(const DesignSpec& spec, bool one_gpu_kind) {
  Topology t;
  try {
    t = load_topology(spec.topology, spec.cluster);
  } catch (const InputError& e) {
    const std::string key = detail::design_key_of_flag(e.source());
    if (key.empty()) throw;
    throw FieldError("designs", spec.text + ": " + key + "=: " + e.detail());
  }
  const std::vector<Diagnostic> problems = t.validate();
  if (!problems.empty())
    throw InputError(spec.topology, problems.front().location, problems.front().message);
  if (t.gpus().empty()) throw InputError(spec.topology, "", "the design has no GPUs");
  if (one_gpu_kind) t.uniform_gpu_spec("a compare design");  // mixed GPUs refused before planning
  return t;
}

DesignPower design_power(const Topology& t, const DesignSpec& spec, const std::string& gpu_model,
                         int gpus, int servers, std::optional<double> flag_price) {
  DesignPower p;
  // The design's own catalog: a topology file may define its GPU (issue 28).
  const GpuSpec& gpu = t.catalog().gpu(gpu_model);
  p.gpu_W = {gpu.power_W, "catalog gpus.json " + gpu.name + ": " + gpu.source};
  p.server_overhead_W = server_overhead_W(gpu_model);
  p.power_W = gpus * p.gpu_W.value + servers * p.server_overhead_W.value;
  check_gpu_prices(spec, {gpu_model});
  p.usd_per_gpu_hour = design_gpu_price(spec, gpu_model, flag_price);
  return p;
}

void check_prices(const std::vector<DesignSpec>& designs, const std::vector<double>& prices) {
  if (designs.size() < 2) throw FieldError("designs", "compare needs at least 2 designs");
  if (prices.size() > 1 && prices.size() != designs.size())
    throw FieldError("gpu_hour_price", "give one price for all designs or one per design (" +
                                           std::to_string(designs.size()) + "), not " +
                                           std::to_string(prices.size()));
  for (double p : prices)
    if (const std::string bad = gpu_hour_price_problem(p); !bad.empty())
      throw FieldError("gpu_hour_price", bad + ", got " + fmt("%g", p));
}

std::optional<double> design_flag_price(const std::vector<double>& prices, std::size_t i) {
  if (prices.empty()) return std::nullopt;
  return prices[prices.size() == 1 ? 0 : i];
}

const std::vector<CompareColumn>& compare_columns() {
  static const std::vector<CompareColumn> cols = {
      {"gpus", "GPUs", 0},
      {"ttft_ms", "TTFT ms", -1},
      {"tpot_ms", "TPOT ms", -1},
      {"max_batch", "max batch", +1},
      {"tokens_per_s", "tok/s", +1},
      {"tokens_per_s_per_gpu", "tok/s/GPU", +1},
      {"tokens_per_s_per_user", "tok/s/user", +1},
      {"memory_headroom_bytes", "headroom/GPU", +1},
      {"power_W", "power kW", -1},
      {"tokens_per_joule", "tok/J", +1},
      {"usd_per_mtok", "$/Mtok", -1},
  };
  return cols;
}

std::optional<double> column_value(const DesignResult& d, const std::string& column) {
  if (column == "gpus") return d.gpus;
  if (column == "power_W") return d.power_W;
  if (!d.best) return std::nullopt;
  const PlanResult& p = *d.best;
  if (column == "ttft_ms") return p.ttft_ms;
  if (column == "tpot_ms") return p.tpot_ms;
  if (column == "max_batch") return p.max_batch;
  if (column == "tokens_per_s") return p.tokens_per_s;
  if (column == "tokens_per_s_per_gpu") return p.tokens_per_s_per_gpu;
  if (column == "tokens_per_s_per_user") return p.tokens_per_s_per_user;
  if (column == "memory_headroom_bytes") return d.headroom_bytes;
  if (column == "tokens_per_joule") return d.tokens_per_joule;
  if (column == "usd_per_mtok") return d.usd_per_mtok;
  return std::nullopt;
}

Comparison compare_designs(const ModelSpec& model, const std::vector<DesignSpec>& designs,
                           const PlanRequest& request, const std::vector<double>& prices) {
  check_prices(designs, prices);
  Comparison c;
  c.model = model.name;
  c.request = request;
  const std::vector<DesignSpec> unique = with_unique_names(designs);
  for (std::size_t i = 0; i < unique.size(); ++i)
    c.designs.push_back(run_design(model, unique[i], request, design_flag_price(prices, i)));
  for (const CompareColumn& col : compare_columns()) {
    int best = -1;
    for (std::size_t i = 0; i < c.designs.size() && col.better != 0; ++i) {
      const auto v = column_value(c.designs[i], col.key);
      if (!v || !c.designs[i].best) continue;
      const auto b = best < 0 ? std::nullopt : column_value(c.designs[best], col.key);
      if (best < 0 || col.better * (*v - *b) > 0) best = static_cast<int>(i);
    }
    c.winner.push_back(best);
  }
  // Overall: cheapest per output token when every fitting design has a price, else the
  // planner's serve objective (tokens/s/GPU).
  bool priced = true;
  for (const DesignResult& d : c.designs) priced &= !d.best || d.usd_per_mtok.has_value();
  c.criterion = priced ? "usd_per_mtok" : "tokens_per_s_per_gpu";
  for (std::size_t k = 0; k < compare_columns().size(); ++k)
    if (compare_columns()[k].key == c.criterion) c.overall = c.winner[k];
  c.why = explain(c);
  c.fronts = compare_fronts(c);
  return c;
}

}  // namespace topoplan::report
