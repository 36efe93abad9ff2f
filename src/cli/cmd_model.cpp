// Placeholder registration; replaced by the subcommand's implementation.
#include "cli/commands.hpp"

namespace topoplan::cli {
void add_model_command(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("model", "(not implemented yet)");
  add_model_roofline_subcommand(*sub, action);
}
}  // namespace topoplan::cli
