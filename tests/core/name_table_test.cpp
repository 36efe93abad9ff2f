#include "core/name_table.hpp"

#include <doctest/doctest.h>

#include <array>
#include <string>

namespace {
enum class Colour { Red, Green, Blue };
constexpr std::array<topoplan::NameEntry<Colour>, 2> kNames{{
    {Colour::Red, "red"},
    {Colour::Green, "green"},
}};  // Blue left out on purpose: the fallback case
constexpr std::array<topoplan::NameEntry<Colour>, 2> kSwapped{{
    {Colour::Green, "green"},
    {Colour::Red, "red"},
}};
static_assert(topoplan::names_every_value(kNames));
static_assert(!topoplan::names_every_value(kSwapped));  // entry 0 must name value 0
bool exact(std::string_view a, std::string_view b) {
  return a == b;
}
}  // namespace

TEST_CASE("name_table: name_of and value_of are inverse, a missing value gets the fallback") {
  using topoplan::name_of, topoplan::value_of;
  for (const auto& [v, name] : kNames) {
    CHECK(name_of(kNames, v) == name);
    CHECK(value_of(kNames, name, "colour", exact) == v);
  }
  CHECK(name_of(kNames, Colour::Blue) == "?");
  CHECK(name_of(kNames, Colour::Blue, "unknown") == "unknown");
  static_assert(name_of(kNames, Colour::Green) == "green");  // usable at compile time
}

TEST_CASE("name_table: an unknown name is an UnknownNameError that suggests the closest") {
  try {
    topoplan::value_of(kNames, "gren", "colour", exact);
    FAIL("no exception");
  } catch (const topoplan::UnknownNameError& e) {
    CHECK(e.exit_code() == 2);
    CHECK(std::string(e.what()).find("'gren'") != std::string::npos);
    CHECK(std::string(e.what()).find("did you mean 'green'") != std::string::npos);
  }
}
