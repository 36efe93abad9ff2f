#include "report/json_number.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <limits>

using topoplan::report::json_number;

TEST_CASE("json_number: 6 significant digits below a million") {
  CHECK(json_number(1.0 / 3.0) == 0.333333);
  CHECK(json_number(123.4567) == 123.457);    // rounds the 7th digit up
  CHECK(json_number(-123.4564) == -123.456);  // sign kept, 7th digit rounds down
  CHECK(json_number(2.5e-7) == 2.5e-7);       // small magnitudes keep their digits
  CHECK(json_number(1.23456789e-5) == 1.23457e-5);
  CHECK(json_number(999999.4) == 999999.0);
}

TEST_CASE("json_number: whole units kept from a million up, at most 15 digits") {
  // The case that motivated it: -O0 and -O2 builds differ in the last bit of a FLOP count.
  CHECK(json_number(12828504063.999998) == 12828504064.0);
  CHECK(json_number(12828504064.000002) == 12828504064.0);
  CHECK(json_number(150754820096.0) == 150754820096.0);  // exact byte counts stay exact
  CHECK(json_number(1234567.4) == 1234567.0);
  // 1.2345678901234567e18 has 19 integer digits: 15 significant kept.
  CHECK(json_number(1.2345678901234567e18) == 1.23456789012346e18);
}

TEST_CASE("json_number: identities") {
  CHECK(json_number(0.0) == 0.0);
  CHECK(json_number(8.0) == 8.0);
  CHECK(std::isnan(json_number(std::numeric_limits<double>::quiet_NaN())));
  CHECK(json_number(std::numeric_limits<double>::infinity()) ==
        std::numeric_limits<double>::infinity());
  // Idempotent: a rounded value rounds to itself.
  for (double x : {0.333333, 123.457, 12828504064.0, 1.23456789012346e18})
    CHECK(json_number(json_number(x)) == x);
}

TEST_CASE("json_number: negative zero is written as 0") {
  CHECK_FALSE(std::signbit(json_number(-0.0)));  // dump() wrote "-0.0"
  CHECK(std::signbit(json_number(-1e-300)));     // a real negative keeps its sign
}
