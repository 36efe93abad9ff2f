#include "cli/option_groups.hpp"

namespace topoplan::cli {

void group_options(CLI::App& sub, const OptionGroups& groups) {
  for (const auto& [heading, names] : groups)
    for (const std::string& name : names) sub.get_option(name)->group(heading);
}

}  // namespace topoplan::cli
