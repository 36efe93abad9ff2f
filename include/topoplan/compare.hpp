// `topoplan compare`: the best plan of one workload on several cluster designs, side by side,
// with power, tokens per joule and $ per million output tokens (docs/report.md).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "topoplan/bom.hpp"
#include "topoplan/disagg.hpp"
#include "topoplan/plan.hpp"
#include "topoplan/topology_io.hpp"
#include "topoplan/train.hpp"

namespace topoplan::report {

// One design: "TOPO[:key=value]..." with keys nodes, fabric, fabric-link, tiers,
// oversubscription, price (USD per GPU-hour), price.GPU (one GPU kind's, for a mixed cluster)
// and name (the column label).
struct DesignSpec {
  std::string text;      // as given
  std::string topology;  // built-in name or file
  ClusterOptions cluster;
  std::optional<double> usd_per_gpu_hour;
  std::vector<std::pair<std::string, double>> gpu_prices;  // price.H20=1.2: (GPU model, USD/h)
  std::string name;    // label; default: the topology name (+ "x<nodes>")
  bool named = false;  // name= given
};
// Throws InputError naming `--topology` and the bad key or value.
DesignSpec parse_design(const std::string& text);
// Designs whose default labels collide ("hgx-h100-8 x4" for a rail-optimized and a fat-tree
// design) are labelled by their text instead, so every row and `overall` names one design.
std::vector<DesignSpec> with_unique_names(std::vector<DesignSpec> designs);

// A figure with where it came from.
struct Sourced {
  double value = 0;
  std::string source;
};

struct DesignResult {
  DesignSpec spec;
  Topology topology;
  PlanOutput plan;
  std::optional<PlanResult> best;  // plans[0] when it fits and meets the limits
  int gpus = 0, servers = 0;
  std::string gpu_model;
  Sourced gpu_W;              // TDP per GPU (catalog)
  Sourced server_overhead_W;  // per server beyond the GPUs (costs.json)
  double power_W = 0;         // gpus × TDP + servers × overhead
  std::optional<Sourced> usd_per_gpu_hour;
  // Derived from best (absent when no plan fits, or no price for $/Mtok).
  std::optional<double> tokens_per_joule, usd_per_mtok, headroom_bytes;
  std::optional<Bom> bom;  // with --bom (add_bom)
};

// A column of the comparison: how to read it and which way is better.
struct CompareColumn {
  std::string key;    // JSON key ("tokens_per_s_per_gpu")
  std::string title;  // table header
  int better = 0;     // +1 higher wins, -1 lower wins, 0 no winner
};
const std::vector<CompareColumn>& compare_columns();
// The value of `column` for a design (nullopt when not applicable).
std::optional<double> column_value(const DesignResult& d, const std::string& column);

// ---- Pareto fronts side by side (issue 30 part 1) -------------------------------------------

// One design's best point of its front at or above a per-user speed.
struct FrontPick {
  ParetoPoint point;
  double tokens_per_s_per_mw = 0;      // tok/s/GPU × GPUs ÷ the design's IT power
  std::optional<double> usd_per_mtok;  // with a GPU-hour price
};
// A named per-user speed ("interactive": >= 50 tok/s/user) and each design's pick there.
struct OperatingPoint {
  std::string name;
  double min_tokens_per_s_per_user = 0;
  std::vector<std::optional<FrontPick>> picks;  // per design; nullopt: its front never gets there
  int winner = -1;
  std::vector<int> tied;  // other designs equal to the winner (to a part in a million)
};
// Who wins over a range of per-user speeds (from, to]: where the fronts cross.
struct FrontRange {
  double from_tokens_per_s_per_user = 0, to_tokens_per_s_per_user = 0;
  int winner = -1;
  std::vector<int> tied;  // other designs equal to the winner over the whole range
};
struct Fronts {
  std::string criterion;  // "usd_per_mtok" (every design priced) or "tokens_per_s_per_gpu"
  std::vector<OperatingPoint> points;
  std::vector<FrontRange> ranges;
  std::string summary;  // which design wins where, in words
};
// The operating points' per-user speeds: interactive 50, balanced 20, max throughput 0 tok/s/user.
const std::vector<std::pair<std::string, double>>& operating_point_speeds();

struct Comparison {
  std::string model;
  PlanRequest request;
  std::vector<DesignResult> designs;
  std::vector<int> winner;  // per compare_columns() entry: design index, -1 none
  int overall = -1;
  std::string criterion;  // "usd_per_mtok" or "tokens_per_s_per_gpu"
  std::string why;
  Fronts fronts;  // every design's Pareto front compared at named speeds and where they cross
};
// The fronts of `c`'s designs (compare_designs calls it; exposed for tests).
Fronts compare_fronts(const Comparison& c);

// Plans every design with the same request. `prices` (USD per GPU-hour): empty, one for all, or
// one per design; a design's own price= wins, then `prices`, then the dated catalog default.
Comparison compare_designs(const ModelSpec& model, const std::vector<DesignSpec>& designs,
                           const PlanRequest& request, const std::vector<double>& prices);

// Counts, powers and prices every design's bill of materials (`compare --bom`, bom.hpp).
// Throws FieldError (pue, kwh_usd, years, item_prices) or InputError (the prices file).
void add_bom(Comparison& c, const BomOptions& options);
// The same checks without a comparison, so bad prices are refused before planning.
void check_bom_options(const BomOptions& options);

void print_compare(std::ostream& os, const Comparison& c);
// The bill of each design that has one (after print_compare).
void print_bom(std::ostream& os, const Comparison& c);
void print_compare_json(std::ostream& os, const Comparison& c);

// ---- compare --mode train: a token budget on every design (issue 30, part 4) ----------------

// One design's fastest fitting training plan and what the budget costs on it.
struct TrainDesignResult {
  DesignSpec spec;
  std::string topology, gpu_model;
  int gpus = 0, servers = 0;
  std::optional<TrainPlan> best;  // the planner's first plan when it fits
  std::string reason;             // why no plan fits ("" when one does)
  Sourced gpu_W, server_overhead_W;
  double power_W = 0;  // IT power: gpus × TDP + servers × overhead (as serving compare)
  std::optional<Sourced> usd_per_gpu_hour;
  // With best: wall time of the budget, GPU-hours, IT energy, cost at the GPU-hour price.
  double days = 0, gpu_hours = 0, energy_MWh = 0;
  std::optional<double> usd;
};

struct TrainComparison {
  std::string model;
  TrainRequest request;  // request.train_tokens is the budget
  std::vector<TrainDesignResult> designs;
  int overall = -1;
  std::string criterion;  // "usd" when every fitting design has a price, else "days"
  std::string why;
};

// Plans training of `model` on every design with the same request (train_tokens > 0 required);
// prices as compare_designs.
TrainComparison compare_training(const ModelSpec& model, const std::vector<DesignSpec>& designs,
                                 const TrainRequest& request, const std::vector<double>& prices);
void print_train_compare(std::ostream& os, const TrainComparison& c);
void print_train_compare_json(std::ostream& os, const TrainComparison& c);

// ---- compare --disagg: aggregated vs disaggregated serving per design (issue 27) ------------

// One way of serving on a design: the best aggregated plan on its GPUs, or its best xPyD split.
struct ServingRow {
  std::string mode;      // "aggregated" or "disaggregated"
  int gpus = 0;          // GPUs the row serves with (disaggregated: prefill + decode pools)
  std::string split;     // "4P:8D" for disaggregated rows, "" for aggregated
  std::string strategy;  // aggregated: its strategy; disaggregated: "prefill ... / decode ..."
  double ttft_ms = 0, tpot_ms = 0;
  double tokens_per_s = 0;  // output tokens/s within the limits (disaggregated: goodput)
  double tokens_per_s_per_gpu = 0;
  double usd_per_hour = 0;             // every GPU of the row at its GPU-hour price (0: unpriced)
  std::optional<double> usd_per_mtok;  // usd_per_hour over tokens_per_s, when priced
};

struct DisaggDesignResult {
  DesignSpec spec;
  std::string topology, gpu;  // gpu: "H100-SXM", or "H200-SXM + H20" on a mixed cluster
  int gpus = 0, servers = 0;
  std::vector<std::pair<std::string, int>> gpu_counts;  // GPUs of each kind, in node order
  double power_W = 0;  // IT power of every GPU and server of the design (as compare's)
  // Each pool's GPU-hour price, with its source (one entry per distinct GPU kind).
  std::vector<std::pair<std::string, std::optional<Sourced>>> prices;
  DisaggOutput out;              // the planner's answer (splits, KV transfer, verdict)
  std::vector<ServingRow> rows;  // aggregated (when the design has one GPU kind), disaggregated
  int best_row = -1;             // on the comparison's criterion
};

struct DisaggComparison {
  std::string model;
  PlanRequest request;
  std::vector<DisaggDesignResult> designs;
  std::string criterion;  // "usd_per_mtok" when every row with a plan is priced, else per GPU
  int overall = -1, overall_row = -1;  // design and row index of the winner
  std::string why;
};

// Plans every design both ways with the same request (serve mode; mixed clusters allowed: their
// pools are their server groups and no aggregated row is priced); prices as compare_designs,
// a mixed design's GPUs each at their own kind's price.
DisaggComparison compare_disagg(const ModelSpec& model, const std::vector<DesignSpec>& designs,
                                const PlanRequest& request, const std::vector<double>& prices);
void print_disagg_compare(std::ostream& os, const DisaggComparison& c);
void print_disagg_compare_json(std::ostream& os, const DisaggComparison& c);

}  // namespace topoplan::report
