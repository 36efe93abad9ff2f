// io::JsonReader, the one reader of every input format: every error names the file and the JSON
// pointer, and missing and null mean the same ("not given").
#include "io/json_reader.hpp"

#include <doctest/doctest.h>

#include "core/error_of.hpp"

#include "topoplan/error.hpp"

using namespace topoplan;
using io::JsonReader;
using nlohmann::json;

namespace {
using test::error_of;
}  // namespace

TEST_CASE("json reader: pointers escape ~ and / (RFC 6901)") {
  const json j = json::parse(R"({"a/b": 1, "m~n": 2})");
  const JsonReader r(j, "f.json", "/top");
  CHECK(r.pointer_to("a/b") == "/top/a~1b");
  CHECK(r.pointer_to("m~n") == "/top/m~0n");
  CHECK(error_of([&] { r.str("a/b"); }) == "f.json: /top/a~1b: expected a string, got 1");
}

TEST_CASE("json reader: missing and null are 'not given'") {
  const json j = json::parse(R"({"n": null, "k": 3})");
  const JsonReader r(j, "f.json");
  CHECK_FALSE(r.has("n"));
  CHECK_FALSE(r.has("absent"));
  CHECK(r.has("k"));
  CHECK(r.integer_or("n", 7) == 7);
  CHECK(r.str_or("n", "x") == "x");
  CHECK(r.boolean_or("absent", true));
  CHECK(r.number("n", 0, false) == 0);  // optional number: 0 when not given
  CHECK(error_of([&] { r.integer("absent", 1); }) == "f.json: /absent: missing field");
  CHECK(error_of([&] { r.integer("n", 1); }) == "f.json: /n: expected an integer, got null");
}

TEST_CASE("json reader: bounds name the bound and the value") {
  const json j = json::parse(R"({"zero": 0, "neg": -2, "big": 2000000000, "half": 0.5})");
  const JsonReader r(j, "f.json");
  CHECK(error_of([&] { r.integer("zero", 1); }) == "f.json: /zero: must be >= 1, got 0");
  CHECK(error_of([&] { r.integer_or("neg", 0); }) == "f.json: /neg: must be >= 0, got -2");
  CHECK(error_of([&] { r.integer("big", 0); }) ==
        "f.json: /big: must be <= 1000000000, got 2000000000");
  CHECK(error_of([&] { r.integer("half", 0); }) == "f.json: /half: expected an integer, got 0.5");
  CHECK(error_of([&] { r.number("zero", 0, true); }) == "f.json: /zero: must be > 0, got 0");
  CHECK(error_of([&] { r.number("half", 1, false); }) ==
        "f.json: /half: must be >= 1.0, got 0.5");  // bounds print as JSON doubles
  CHECK(r.number("half", 0, true) == 0.5);
}

TEST_CASE("json reader: objects, unknown keys and syntax errors") {
  const json j = json::parse(R"({"o": {"hiden": 1}, "s": "x"})");
  const JsonReader r = JsonReader::object_at(j, "f.json", "");
  const JsonReader o = r.object("o");
  CHECK(o.pointer() == "/o");
  CHECK(error_of([&] { o.only({"hidden"}); }) == "f.json: /o/hiden: unknown key \"hiden\"");
  CHECK(error_of([&] { r.object("s"); }) == "f.json: /s: expected an object");
  CHECK(error_of([&] { JsonReader::object_at(json::array(), "f.json", ""); }) ==
        "f.json: /: expected an object");
  // "{\n  \"a\": }": the error is at the '}' of line 2, column 8.
  CHECK(error_of([] {
          io::parse_json_text("{\n  \"a\": }", "f.json");
        }).find("f.json: line 2, column 8: malformed JSON") == 0);
}
