// topoplan: plan model sharding and placement on multi-GPU systems.
#include <cstdio>
#include <exception>
#include <iostream>

#include "cli/app.hpp"
#include "cli/field_flags.hpp"
#include "cli/keep_until_exit.hpp"
#include "cli/malloc_policy.hpp"
#include "cli/suggest.hpp"
#include "topoplan/error.hpp"

int main(int argc, char** argv) {
  topoplan::cli::process_exits_after_command = true;  // cli/keep_until_exit.hpp
  topoplan::cli::Action action;
  const std::unique_ptr<CLI::App> owned = topoplan::cli::make_app(action);
  CLI::App& app = *owned;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and succeed; an error says what and the closest name first.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::cerr << "topoplan: " << topoplan::cli::parse_error_text(e, app, argc, argv)
              << "\nRun with --help for more information.\n";
    return 2;
  }
  // Only `collective` gains from it; cli/malloc_policy.hpp says why.
  if (app.got_subcommand("collective")) topoplan::cli::set_malloc_policy();
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
