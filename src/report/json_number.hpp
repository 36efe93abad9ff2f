// Numbers for JSON output that do not change with the last floating-point bit.
#pragma once

#include <nlohmann/json.hpp>

namespace topoplan::report {

// `x` rounded so that golden files compare equal across Debug (-O0), release (-O2) and sanitizer
// builds, which may differ in the last bit of a double (12828504063.999998 vs 12828504064):
// 6 significant digits, but never fewer than the integer digits (a byte or FLOP count keeps
// every whole unit: 12828504064, not 12828500000) and at most 15 (a double holds 15-17, and the
// noise sits in the last one or two). 0, NaN and infinities pass through unchanged.
// Integer quantities (counts, ids) should stay integer-typed and not go through this.
double json_number(double x);

// Counts (sequences, tokens) are whole numbers: JSON integers. A fractional one (an average)
// stays a float.
nlohmann::ordered_json json_count(double v);

}  // namespace topoplan::report
