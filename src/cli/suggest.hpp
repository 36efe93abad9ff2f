// "Did you mean" for mistyped flags and subcommands (issue 28): the closest name the command
// line's own subcommand knows, by edit distance.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace topoplan::cli {

// Edit distance: insertions, deletions, substitutions and swaps of neighbouring letters, each 1.
int edit_distance(const std::string& a, const std::string& b);

// A hint for a command line that failed to parse: "did you mean --topology?" for `--topolgy`
// under `plan`, "did you mean plan?" for `plna`; "" when nothing is close.
std::string suggest(const CLI::App& app, int argc, const char* const* argv);

// What a parse error says, in the order a reader needs it: CLI11's message (arguments that were
// not expected listed in command-line order; CLI11 joins them last first) and the hint on the
// same line: "The following arguments were not expected: --topolgy hgx-h100-8 (did you mean
// --topology?)". The CLI adds "Run with --help ..." on the next line.
std::string parse_error_text(const CLI::ParseError& e, const CLI::App& app, int argc,
                             const char* const* argv);

}  // namespace topoplan::cli
