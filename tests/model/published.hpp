// Comparison of a computed count with a published figure.
#pragma once

#include <doctest/doctest.h>

#include <cmath>

namespace topoplan::test {

// |computed - published| within `tol` of published.
inline void check_close(double computed, double published, double tol) {
  CAPTURE(computed);
  CAPTURE(published);
  CHECK(std::abs(computed - published) <= tol * published);
}

}  // namespace topoplan::test
