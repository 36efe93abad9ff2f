// Help-page headings: a long flag list (plan has ~70) reads better cut into named groups
// ("Training (--mode train)", "Disaggregated serving (--disagg)"). Only the help text changes:
// CLI11's Option::group is a heading, not an option group with its own parsing.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace topoplan::cli {

using OptionGroups = std::vector<std::pair<std::string, std::vector<std::string>>>;

// Puts each named flag ("--seq") under its heading; throws CLI::OptionNotFound for a name the
// command lacks, so a renamed flag cannot silently drop out of its group.
void group_options(CLI::App& sub, const OptionGroups& groups);

}  // namespace topoplan::cli
