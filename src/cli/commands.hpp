// Subcommand registration. Each add_*_command adds one subcommand to `app`; when that subcommand
// is chosen, CLI11 runs its callback, which stores the work to do in `action`. main() runs the
// action after parsing, so every error goes through one place that maps it to an exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "topoplan/plan.hpp"
#include "topoplan/train.hpp"

namespace topoplan::cli {

using Action = std::function<int()>;

// Exit code of a well-formed request that no plan satisfies (README "Exit codes"): `plan`,
// `plan --mode train` and `compare` when no design has a plan.
inline constexpr int kExitNoPlan = 3;

// Counts (--nodes, --gpus, --tp, ...): a whole number >= 1. Replaces CLI::PositiveNumber, whose
// message spells out the range up to DBL_MAX ("Value 0 not in range 0.000000 to 1797...").
inline CLI::Validator positive_count() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::size_t used = 0;
        long value = 0;
        try {
          value = std::stol(text, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == text.size() && value >= 1) return "";
        return "must be a whole number >= 1, got '" + text + "'";
      },
      "POSITIVE");
}

// Every --help ends with an example command line.
// Each call adds one example line under "Example:" ("Examples:" from the second on); every line
// is run by tests/cli/help_examples.cmake. A subcommand starts from its parent's footer (CLI11
// copies it), so the lines are kept per command here rather than read back from the footer.
// The lines per command; make_app() clears them, since a new app may reuse a freed one's address.
inline std::map<const CLI::App*, std::vector<std::string>>& example_lines() {
  static std::map<const CLI::App*, std::vector<std::string>> examples;
  return examples;
}
inline void add_example(CLI::App& cmd, const std::string& example) {
  std::vector<std::string>& mine = example_lines()[&cmd];
  mine.push_back(example);
  std::string footer = mine.size() == 1 ? "\nExample:" : "\nExamples:";
  for (const std::string& e : mine) footer += "\n  " + e;
  cmd.footer(footer);
}

void add_topo_command(CLI::App& app, Action& action);
// topo import / topo export (cmd_topo_import.cpp), added by add_topo_command.
void add_topo_import_subcommands(CLI::App& topo, Action& action);
void add_topo_render_subcommand(CLI::App& topo, Action& action);  // topo render (cmd_render.cpp)
void add_collective_command(CLI::App& app, Action& action);
void add_model_command(CLI::App& app, Action& action);  // model list / show (cmd_model.cpp)
void add_model_roofline_subcommand(CLI::App& model,
                                   Action& action);  // model roofline (cmd_roofline.cpp)
void add_plan_command(CLI::App& app, Action& action);
// validate / calibrate against measurements (cmd_validate.cpp).
void add_validate_command(CLI::App& app, Action& action);
void add_compare_command(CLI::App& app, Action& action);  // compare (cmd_compare.cpp)
// What plan's workload, strategy and training flags give `compare` after parsing, so `compare`
// plans exactly as `plan` does: the --mode text, the serving request and the training request
// (each throws InputError on a bad value).
struct PlanRequestFlags {
  std::function<std::string()> mode;
  std::function<PlanRequest()> serve;
  std::function<TrainRequest()> train;
};
// Adds them to `sub` (training's flags too: --mode train plans training on every design).
PlanRequestFlags add_plan_request_flags(CLI::App& sub);

}  // namespace topoplan::cli
