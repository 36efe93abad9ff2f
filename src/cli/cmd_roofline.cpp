// Placeholder registration; replaced by the subcommand's implementation.
#include "cli/commands.hpp"

namespace topoplan::cli {
void add_model_roofline_subcommand(CLI::App& model, Action& action) {
  auto* sub = model.add_subcommand("roofline", "(not implemented yet)");
  sub->callback([&action] { action = [] { return 1; }; });
}
}  // namespace topoplan::cli
