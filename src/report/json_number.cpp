#include "report/json_number.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace topoplan::report {

namespace {
constexpr int kSignificantDigits = 6;
constexpr int kMaxDigits = 15;  // DBL_DIG: every 15-digit decimal survives a round trip
}  // namespace

double json_number(double x) {
  if (x == 0) return 0.0;  // -0.0 would be written "-0.0"
  if (!std::isfinite(x)) return x;
  // Digits before the decimal point (1 for |x| < 10; <= 0 below 1, where 6 significant win).
  const int int_digits = static_cast<int>(std::floor(std::log10(std::fabs(x)))) + 1;
  const int digits = std::clamp(int_digits, kSignificantDigits, kMaxDigits);
  // Decimal rounding through printf, then the nearest double: dump() prints that double's
  // shortest round-trip form, which is the rounded decimal itself.
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
  return std::strtod(buf, nullptr);
}

nlohmann::ordered_json json_count(double v) {
  if (std::floor(v) == v && std::fabs(v) < 9e15) return static_cast<long long>(v);
  return v;
}

}  // namespace topoplan::report
