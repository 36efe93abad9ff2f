// Bracket ranges in topology ids: "gpu[0-7]" → gpu0..gpu7, "nic[0-3,6]" → nic0..nic3, nic6.
#pragma once

#include <string>
#include <vector>

namespace topoplan::detail {

// Expands one id pattern (at most one bracket group). Throws InputError(source, pointer, ...) on
// an unclosed bracket, a reversed or non-numeric range, or more than one bracket group.
std::vector<std::string> expand_range(const std::string& pattern, const std::string& source,
                                      const std::string& pointer);

}  // namespace topoplan::detail
