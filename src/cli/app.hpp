// The whole command line as one object: `topoplan`'s program (main.cpp) and the Python module
// (src/python) build the same app, so a flag means the same in both.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>

#include "cli/commands.hpp"

namespace topoplan::cli {

// Every subcommand registered on a fresh app; after app->parse(), `action` holds the chosen
// command's work. Each call builds a new app (its flags write into state owned by the app), so
// one process may parse many command lines, one app each.
std::unique_ptr<CLI::App> make_app(Action& action);

}  // namespace topoplan::cli
