// Free text in text output: bounded prefix, ellipsis and full length in characters.
#include "report/text_prefix.hpp"
#include "report/table.hpp"

#include <doctest/doctest.h>

#include <string>

using topoplan::report::count_text;
using topoplan::report::grouped;
using topoplan::report::text_prefix;

TEST_CASE("text_prefix: short text unchanged, the bound itself included") {
  CHECK(text_prefix("") == "");
  CHECK(text_prefix("abc", 3) == "abc");
  CHECK(text_prefix(std::string(1000, 'x')) == std::string(1000, 'x'));  // default bound 1000
}

TEST_CASE("text_prefix: one past the bound and far past it") {
  CHECK(text_prefix("abcd", 3) == "abc\xe2\x80\xa6 (4 characters)");
  // The brief's example: 50 MiB = 52,428,800 characters.
  const std::string big(52428800, 'a');
  CHECK(text_prefix(big) == std::string(1000, 'a') + "\xe2\x80\xa6 (52,428,800 characters)");
}

TEST_CASE("text_prefix: counts and cuts UTF-8 characters, never a partial sequence") {
  // "é" is 2 bytes, "…" 3: 5 characters in 1 + 2 + 1 + 3 + 1 = 8 bytes.
  const std::string s =
      "a\xc3\xa9"
      "b\xe2\x80\xa6"
      "c";
  CHECK(text_prefix(s, 5) == s);
  CHECK(text_prefix(s, 2) == "a\xc3\xa9\xe2\x80\xa6 (5 characters)");
  CHECK(text_prefix(s, 4) ==
        "a\xc3\xa9"
        "b\xe2\x80\xa6\xe2\x80\xa6 (5 characters)");
}

TEST_CASE("grouped: thousands separated by commas") {
  CHECK(grouped(0) == "0");
  CHECK(grouped(999) == "999");
  CHECK(grouped(1000) == "1,000");
  CHECK(grouped(65536) == "65,536");
  CHECK(grouped(52428800) == "52,428,800");
  CHECK(grouped(1234567890123) == "1,234,567,890,123");
}

TEST_CASE("count_text: rounded, thousands grouped, sign kept, huge values in %.3g") {
  CHECK(count_text(49151612.4) == "49,151,612");
  CHECK(count_text(6834176) == "6,834,176");
  CHECK(count_text(999.5) == "1,000");
  CHECK(count_text(12) == "12");
  CHECK(count_text(0) == "0");
  CHECK(count_text(-0.2) == "0");  // no "-0"
  CHECK(count_text(-1234) == "-1,234");
  CHECK(count_text(2e20) == "2e+20");
}

TEST_CASE("fmt: a negative value that prints as zero prints without its sign") {
  using topoplan::report::fmt;
  CHECK(fmt("%.2f", -0.0) == "0.00");    // was "-0.00"
  CHECK(fmt("%.2f", -0.001) == "0.00");  // rounds to zero
  CHECK(fmt("%.1f%%", -0.01) == "0.0%");
  CHECK(fmt("%.2f", -0.005001) == "-0.01");
  CHECK(fmt("%g", -0.001) == "-0.001");
  CHECK(fmt("%.2f", 1.5) == "1.50");
}
