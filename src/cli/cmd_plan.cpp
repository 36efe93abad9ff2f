// Placeholder registration; replaced by the subcommand's implementation.
#include "cli/commands.hpp"

namespace topoplan::cli {
void add_plan_command(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("plan", "(not implemented yet)");
  sub->callback([&action] { action = [] { return 1; }; });
}
}  // namespace topoplan::cli
