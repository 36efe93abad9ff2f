#include "io/topology_ranges.hpp"

#include <algorithm>
#include <cctype>

#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"

namespace topoplan::detail {
namespace {

// One range never names more devices than a topology may hold GPUs ("gpu[0-999999999]" would
// exhaust memory before any count is checked), nor ids longer than limits::kMaxIdLength.
constexpr long kMaxExpansion = static_cast<long>(limits::kMaxGpus);

long parse_index(const std::string& text, const std::string& source, const std::string& pointer,
                 const std::string& pattern) {
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    throw InputError(source, pointer,
                     "bad range '" + pattern + "': '" + text + "' is not an index");
  }
  return std::stol(text);
}

}  // namespace

std::vector<std::string> expand_range(const std::string& pattern, const std::string& source,
                                      const std::string& pointer) {
  const auto open = pattern.find('[');
  const auto close = pattern.find(']');
  if (open == std::string::npos && close == std::string::npos) return {pattern};
  if (open == std::string::npos || close == std::string::npos || close < open) {
    throw InputError(source, pointer, "bad range '" + pattern + "': unbalanced brackets");
  }
  if (pattern.find('[', open + 1) != std::string::npos ||
      pattern.find(']', close + 1) != std::string::npos) {
    throw InputError(source, pointer,
                     "bad range '" + pattern + "': only one [..] group is allowed");
  }
  const std::string prefix = pattern.substr(0, open), suffix = pattern.substr(close + 1);
  const std::string body = pattern.substr(open + 1, close - open - 1);
  // An index has at most 9 digits (parse_index), so this bounds every id the range produces.
  if (prefix.size() + suffix.size() + 9 > limits::kMaxIdLength) {
    throw InputError(source, pointer,
                     "bad range: ids longer than " + std::to_string(limits::kMaxIdLength) +
                         " characters (docs/limits.md)");
  }
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= body.size()) {
    const auto comma = std::min(body.find(',', start), body.size());
    const std::string item = body.substr(start, comma - start);
    const auto dash = item.find('-');
    const long lo = parse_index(item.substr(0, dash), source, pointer, pattern);
    const long hi = dash == std::string::npos
                        ? lo
                        : parse_index(item.substr(dash + 1), source, pointer, pattern);
    if (hi < lo) {
      throw InputError(
          source, pointer,
          "bad range '" + pattern + "': " + std::to_string(lo) + " > " + std::to_string(hi));
    }
    if (static_cast<long>(out.size()) + (hi - lo + 1) > kMaxExpansion) {
      throw InputError(source, pointer,
                       "bad range '" + pattern + "': expands to more than " +
                           std::to_string(kMaxExpansion) + " ids (docs/limits.md)");
    }
    for (long i = lo; i <= hi; ++i) out.push_back(prefix + std::to_string(i) + suffix);
    start = comma + 1;
  }
  return out;
}

}  // namespace topoplan::detail
