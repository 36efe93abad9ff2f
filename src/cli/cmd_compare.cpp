// `topoplan compare`: flags here; planning every design, costs and winners in report/compare.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/csv_option.hpp"
#include "cli/mode_flags.hpp"
#include "cli/option_groups.hpp"
#include "report/chart_views.hpp"
#include "report/compare.hpp"
#include "report/html_report.hpp"
#include "topoplan/error.hpp"
#include "topoplan/json.hpp"
#include "topoplan/model.hpp"

namespace topoplan::cli {

namespace {

struct CompareArgs {
  std::string model = "deepseek-r1";
  std::vector<std::string> designs;
  std::vector<double> prices;
  PlanRequestFlags request;
  bool json = false;
  std::string chart, html;
  CsvOption csv;  // --csv [FILE]: one row per design
  bool bom = false;
  bool disagg = false;  // --disagg: aggregated vs disaggregated rows per design (issue 27)
  report::BomOptions bom_options;
  double pue = 0, kwh_usd = 0, years = 0;  // given when their option's count() > 0
};

std::vector<report::DesignSpec> design_specs(const CompareArgs& a) {
  std::vector<report::DesignSpec> designs;
  for (const std::string& d : a.designs) designs.push_back(report::parse_design(d));
  return designs;
}

// --bom, --chart and --html draw the serving comparison only: refused with `what`.
void refuse_serving_outputs(const CompareArgs& a, const std::string& what) {
  for (const auto& [flag, given] : {std::pair<const char*, bool>{"--bom", a.bom},
                                    {"--chart", !a.chart.empty()},
                                    {"--html", !a.html.empty()}})
    if (given)
      throw InputError(flag, "", "not available with " + what + " yet; use --json or --csv");
}

// A comparison `c` as --csv, --json or its table; exit 3 when no design has a plan.
template <typename Comparison, typename Json, typename Text>
int print_comparison(const CompareArgs& a, const Comparison& c, Json print_json, Text print_text) {
  const int rc = c.overall >= 0 ? 0 : kExitNoPlan;
  std::ostringstream json;
  print_json(json, c);
  if (write_csv(a.csv, json.str(), "designs")) return rc;
  if (a.json)
    std::cout << json.str();
  else
    print_text(std::cout, c);
  return rc;
}

// --mode train: the training planner on every design with a token budget (issue 30).
int run_compare_train(const CompareArgs& a) {
  refuse_serving_outputs(a, "--mode train");
  const TrainRequest q = a.request.train();
  const ModelSpec m = load_model(a.model);
  return print_comparison(a, report::compare_training(m, design_specs(a), q, a.prices),
                          report::print_train_compare_json, report::print_train_compare);
}

// --disagg: each design's best aggregated plan and best prefill/decode split, side by side.
int run_compare_disagg(const CompareArgs& a) {
  refuse_serving_outputs(a, "--disagg");
  if (a.request.mode() == "train")
    throw InputError("--disagg", "", "compares serving, not --mode train");
  const ModelSpec m = load_model(a.model);
  return print_comparison(a,
                          report::compare_disagg(m, design_specs(a), a.request.serve(), a.prices),
                          report::print_disagg_compare_json, report::print_disagg_compare);
}

int run_compare(const CompareArgs& a) {
  if (a.disagg) return run_compare_disagg(a);
  if (a.request.mode() == "train") return run_compare_train(a);
  if (a.bom) report::check_bom_options(a.bom_options);  // before planning
  const ModelSpec m = load_model(a.model);
  report::Comparison c = report::compare_designs(m, design_specs(a), a.request.serve(), a.prices);
  if (a.bom) report::add_bom(c, a.bom_options);
  if (!a.chart.empty()) report::write_compare_chart(c, a.chart);
  if (!a.html.empty()) report::write_compare_html(c, a.html);
  if (write_csv(a.csv, to_json(c), "designs")) return c.overall >= 0 ? 0 : kExitNoPlan;
  if (a.json)
    report::print_compare_json(std::cout, c);
  else {
    report::print_compare(std::cout, c);
    report::print_bom(std::cout, c);
  }
  // The table is printed either way (each design says why it has no plan), but a script must
  // not read an all-dash table as an answer.
  return c.overall >= 0 ? 0 : kExitNoPlan;
}

// --bom and what prices it (docs/report.md, "Bill of materials").
void add_bom_flags(CLI::App& sub, CompareArgs& a) {
  sub.add_flag("--bom", a.bom,
               "bill of materials per design from its topology: switches, NICs, optics and "
               "cables per tier, power (IT and facility), capex and $/Mtok");
  sub.add_option("--prices", a.bom_options.prices_file,
                 "JSON file replacing or adding entries of the built-in price table "
                 "(topologies/catalog/bom.json layout)");
  sub.add_option("--price", a.bom_options.item_prices,
                 "one item's price, repeated: KIND:KEY=USD (switch:ib-ndr400=25000, "
                 "optic:ib-ndr400=600, server:H100-SXM=240000)");
  sub.add_option("--pue", a.pue, "power usage effectiveness, 1 to 5 (default: bom.json's)");
  sub.add_option("--kwh-price", a.kwh_usd, "electricity in USD per kWh (default: bom.json's)");
  sub.add_option("--years", a.years, "years the capex is amortized over (default: bom.json's)");
}

// The --pue, --kwh-price and --years values that were given.
void take_bom_settings(const CLI::App& sub, CompareArgs& a) {
  if (sub.count("--pue") > 0) a.bom_options.pue = a.pue;
  if (sub.count("--kwh-price") > 0) a.bom_options.kwh_usd = a.kwh_usd;
  if (sub.count("--years") > 0) a.bom_options.years = a.years;
}

// Flags compare accepts (shared with plan, or pricing --bom) but would not read here: refused,
// so that output identical to the run without them is never taken as their answer.
void refuse_unread_flags(const CLI::App& sub, const CompareArgs& a) {
  if (!a.bom)
    for (const char* flag : {"--prices", "--price", "--pue", "--kwh-price", "--years"})
      if (sub.count(flag) > 0)
        throw InputError(flag, "", "prices the bill of materials: use it with --bom");
  if (sub.count("--top") > 0 && a.request.mode() != "train")  // training keeps top plans
    throw InputError("--top", "",
                     "compare shows each design's best plan; `topoplan plan --top N` ranks one "
                     "design's strategies");
  if (sub.count("--workload") > 0 && sub.get_option("--workload")->as<std::string>() == "burst")
    throw InputError("--workload", "",
                     "burst is not compared (it schedules one burst on one plan): run `topoplan "
                     "plan --workload burst` per design");
}

}  // namespace

// compare --help's headings (plan's, less what compare does not take, plus cost).
OptionGroups compare_groups() {
  return {
      {"Designs and cost", {"--topology", "--gpu-hour-price"}},
      {"Model and workload",
       {"--model", "--mode", "--batch", "--prompt", "--output", "--context", "--tpot-max",
        "--ttft-max", "--mtp-accept", "--mtp-draft", "--workload", "--requests", "--concurrency"}},
      {"Engine",
       {"--engine", "--mem-util", "--prefill-chunk", "--fp8-block-gemm", "--cuda-graphs",
        "--two-batch-overlap", "--nvls", "--moe-comm"}},
      {"Search (pins, placement, progress)",
       {"--gpus", "--tp", "--pp", "--dp", "--ep", "--attention-dp", "--max-tp-class", "--placement",
        "--top", "--threads", "--quiet"}},
      {"Training (--mode train)", train_only_flags()},
      {"Disaggregated serving (--disagg)", {"--disagg"}},
      {"Bill of materials (--bom)",
       {"--bom", "--prices", "--price", "--pue", "--kwh-price", "--years"}},
      {"Output", {"--chart", "--html", "--json", "--csv"}},
  };
}

void add_compare_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<CompareArgs>();
  auto* sub = app.add_subcommand(
      "compare", "best plan of one workload on several cluster designs, side by side, with cost");
  sub->add_option("--model", a->model, "built-in model name or JSON/config.json file")
      ->capture_default_str();
  sub->add_option("--topology", a->designs,
                  "a design, repeated: TOPO[:nodes=N][:fabric=F][:fabric-link=L][:tiers=T]"
                  "[:oversubscription=X][:price=USD_PER_GPU_HOUR][:name=LABEL]")
      ->required();
  sub->add_option("--gpu-hour-price", a->prices,
                  "USD per GPU-hour: one for all designs or one per design (price= wins)");
  a->request = add_plan_request_flags(*sub);
  sub->add_option("--chart", a->chart,
                  "every design's Pareto front: tok/s/GPU and Mtok per $ (or per MW) vs tok/s/user "
                  "(.svg, .png, .pdf)");
  sub->add_option("--html", a->html, "write one self-contained HTML report page");
  sub->add_flag("--json", a->json, "print JSON (stable keys, docs/report.md)");
  add_csv_option(*sub, a->csv, "one row per design");
  sub->add_flag("--disagg", a->disagg,
                "each design served aggregated and disaggregated (best prefill/decode split) at "
                "the same limits; a mixed cluster file is one design with its server groups as "
                "pools");
  add_bom_flags(*sub, *a);
  add_example(*sub,
              "topoplan compare --model deepseek-r1 --topology hgx-h20-8:nodes=2 "
              "--topology hgx-h200-8 --tpot-max 50");
  add_example(*sub,
              "topoplan compare --model llama-3-8b --topology hgx-h100-8 --topology hgx-h200-8 "
              "--csv designs.csv");
  add_example(*sub,
              "topoplan compare --model llama-3-8b --topology hgx-h100-8:nodes=4 "
              "--topology hgx-h100-8:nodes=4:fabric=fat-tree --bom --pue 1.2");
  add_example(*sub,
              "topoplan compare --disagg --model deepseek-r1 --topology hgx-h200-8:nodes=12 "
              "--topology examples/mixed-pools/h200-prefill-h20-decode.json --ttft-max 3000 "
              "--tpot-max 50");
  add_example(*sub,
              "topoplan compare --mode train --model llama-3-8b --tokens 15T "
              "--topology hgx-h100-8:nodes=4 --topology hgx-h200-8:nodes=4 --topology "
              "hgx-b200-8:nodes=4");
  group_options(*sub, compare_groups());
  sub->callback([&action, a, sub] {
    take_bom_settings(*sub, *a);
    action = [a, sub] {
      refuse_unread_flags(*sub, *a);
      return run_compare(*a);
    };
  });
}

}  // namespace topoplan::cli
