#include "cli/app.hpp"

namespace topoplan::cli {

namespace {

// Every option that takes a value refuses an empty one: CLI11 converts "" to 0 for a number, so
// `--batch ''` was taken as "not given" (issue 29). No description: --help is unchanged.
void refuse_empty_values(CLI::App& app) {
  for (CLI::Option* o : app.get_options())
    if (o->get_expected_min() > 0)
      o->check(CLI::Validator(
          [](std::string& text) {
            return text.empty() ? std::string("empty value (give one, or leave the flag out)")
                                : std::string();
          },
          ""));
  for (CLI::App* sub : app.get_subcommands({})) refuse_empty_values(*sub);
}

}  // namespace

std::unique_ptr<CLI::App> make_app(Action& action) {
  example_lines().clear();
  auto app = std::make_unique<CLI::App>(
      "topoplan: plan how a large model is sharded and placed on multi-GPU systems");
  app->require_subcommand(1);
  app->set_version_flag("--version", "topoplan 0.1.0");
  add_example(*app,
              "topoplan plan --model llama-3.1-8b --topology hgx-h100-8 --tp 4 --pp 1 --dp 1");
  add_plan_command(*app, action);
  add_compare_command(*app, action);
  add_topo_command(*app, action);
  add_collective_command(*app, action);
  add_model_command(*app, action);
  add_validate_command(*app, action);
  refuse_empty_values(*app);
  return app;
}

}  // namespace topoplan::cli
