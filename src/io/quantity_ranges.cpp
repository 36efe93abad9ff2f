// The range checks of io/quantity_ranges.hpp, shared by the JSON reader (files) and the library's
// request checks (flags), so that both print a range the same way.
#include "io/quantity_ranges.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "topoplan/error.hpp"

namespace topoplan::io {
namespace {
// A bound as typed in docs/limits.md: whole numbers without ".0", others in the shortest form.
std::string bound_text(double x) {
  if (x == std::floor(x) && std::fabs(x) < 1e16) return std::to_string(static_cast<long long>(x));
  char buf[32] = "";
  for (int digits = 1; digits <= 17; ++digits) {  // the fewest digits that read back as x
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    if (std::strtod(buf, nullptr) == x) break;
  }
  return buf;
}
}  // namespace

bool in_range(double x, const QuantityRange& r, bool zero_ok) {
  return (zero_ok && x == 0) || (std::isfinite(x) && x >= r.min && x <= r.max);
}

std::string range_text(const QuantityRange& r, bool zero_ok) {
  return std::string(zero_ok ? "0 or " : "") + bound_text(r.min) + " to " + bound_text(r.max) +
         (*r.unit ? std::string(" ") + r.unit : std::string()) + " (docs/limits.md)";
}

std::string out_of_range(double x, const QuantityRange& r, bool zero_ok) {
  return in_range(x, r, zero_ok) ? ""
                                 : "must be " + range_text(r, zero_ok) + ", got " + bound_text(x);
}

void require_in_range(double x, const QuantityRange& r, const char* field, bool zero_ok) {
  if (const std::string p = out_of_range(x, r, zero_ok); !p.empty()) throw FieldError(field, p);
}

}  // namespace topoplan::io
