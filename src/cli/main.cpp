// topoplan: plan model sharding and placement on multi-GPU systems.
#include <cstdio>
#include <exception>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/field_flags.hpp"
#include "cli/suggest.hpp"
#include "topoplan/error.hpp"

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

int main(int argc, char** argv) {
  CLI::App app{"topoplan: plan how a large model is sharded and placed on multi-GPU systems"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "topoplan 0.1.0");
  topoplan::cli::add_example(
      app, "topoplan plan --model llama-3.1-8b --topology hgx-h100-8 --tp 4 --pp 1 --dp 1");
  topoplan::cli::Action action;
  topoplan::cli::add_plan_command(app, action);
  topoplan::cli::add_compare_command(app, action);
  topoplan::cli::add_topo_command(app, action);
  topoplan::cli::add_collective_command(app, action);
  topoplan::cli::add_model_command(app, action);
  topoplan::cli::add_validate_command(app, action);
  refuse_empty_values(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);  // prints help or the parse error
    if (rc != 0) {
      std::string hint = topoplan::cli::suggest(app, argc, argv);
      if (!hint.empty()) std::cerr << hint << "\n";
    }
    return rc == 0 ? 0 : 2;
  }
  try {
    const int rc = action ? action() : 0;
    // Standard output that could not be written (a full disk, /dev/full, a closed pipe) is a
    // failure, not a success with the answer lost.
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::cerr << "topoplan: cannot write to standard output\n";
      return rc != 0 ? rc : 2;
    }
    return rc;
  } catch (const topoplan::FieldError& e) {
    std::cerr << "topoplan: " << topoplan::cli::flag_message(e) << "\n";
    return e.exit_code();
  } catch (const topoplan::Error& e) {
    std::cerr << "topoplan: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "topoplan: internal error: " << e.what() << "\n";
    return 1;
  }
}
