// Subcommand registration. Each add_*_command adds one subcommand to `app`; when that subcommand
// is chosen, CLI11 runs its callback, which stores the work to do in `action`. main() runs the
// action after parsing, so every error goes through one place that maps it to an exit code.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace topoplan::cli {

using Action = std::function<int()>;

void add_topo_command(CLI::App& app, Action& action);
void add_collective_command(CLI::App& app, Action& action);
void add_model_command(CLI::App& app, Action& action);  // model list / show (cmd_model.cpp)
void add_model_roofline_subcommand(CLI::App& model,
                                   Action& action);  // model roofline (cmd_roofline.cpp)
void add_plan_command(CLI::App& app, Action& action);

}  // namespace topoplan::cli
