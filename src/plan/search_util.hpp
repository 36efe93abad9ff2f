// Small helpers shared by the serving and training strategy enumerations.
#pragma once

#include <optional>
#include <vector>

namespace topoplan::detail {

// Every divisor of n in ascending order (n ≥ 1).
inline std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

// True when a pin is set and `value` differs from it.
inline bool pinned_out(const std::optional<int>& pin, int value) {
  return pin && *pin != value;
}

}  // namespace topoplan::detail
