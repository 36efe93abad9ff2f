#include <doctest/doctest.h>

#include <string>

#include "topoplan/error.hpp"

using namespace topoplan;

TEST_CASE("InputError names file and pointer, exits 2") {
  InputError e("topo.json", "/links/3/type", "unknown link type 'nvlink9'");
  CHECK(std::string(e.what()) == "topo.json: /links/3/type: unknown link type 'nvlink9'");
  CHECK(e.exit_code() == 2);
}

TEST_CASE("UnknownNameError suggests close names") {
  UnknownNameError e("topology", "hgx-h20", {"hgx-h20-8", "hgx-h100-8", "dgx-a100-8"});
  std::string msg = e.what();
  CHECK(msg.find("did you mean 'hgx-h20-8'") != std::string::npos);
  CHECK(e.exit_code() == 2);
}

TEST_CASE("closest_names ignores far names") {
  CHECK(closest_names("zzzzzz", {"llama-3-8b", "deepseek-r1"}).empty());
  auto c = closest_names("deepseek-r2", {"llama-3-8b", "deepseek-r1", "deepseek-v3"});
  REQUIRE(!c.empty());
  CHECK(c[0] == "deepseek-r1");
}

TEST_CASE("line_column_location counts lines and columns from 1") {
  // "ab\ncd": offset 0 = 'a' (1,1); offset 3 = 'c' (2,1); offset 4 = 'd' (2,2).
  CHECK(line_column_location("ab\ncd", 0) == "line 1, column 1");
  CHECK(line_column_location("ab\ncd", 3) == "line 2, column 1");
  CHECK(line_column_location("ab\ncd", 4) == "line 2, column 2");
}

TEST_CASE("FieldError names a request field, references render through the caller's table") {
  FieldError e("mtp_draft", "must be at most {output} tokens, got '{1}'");
  CHECK(e.field() == "mtp_draft");
  CHECK(e.exit_code() == 2);
  // The library's own rendering names fields; braces around non-field text stay as written.
  CHECK(std::string(e.what()) == "mtp_draft: must be at most output tokens, got '{1}'");
  auto flag = [](const std::string& f) { return "--" + f; };
  CHECK(e.detail_with(flag) == "must be at most --output tokens, got '{1}'");
}
