// Plain-text tables: columns as wide as their widest cell in terminal columns, so a header with
// a multi-byte character ("µs") lines up with its numbers (issue 28's walk).
#include <doctest/doctest.h>

#include <sstream>

#include "report/table.hpp"

using namespace topoplan::report;

TEST_CASE("table: widths count characters, not bytes") {
  Table t({"term", "µs"});
  t.add_row({"weights", "1234.5"});
  std::ostringstream os;
  t.print(os);
  // "µs" is 3 bytes, 2 columns: the column is 6 wide ("1234.5"), the header right-aligned in
  // it: "term" + 3 (to 7) + 2 between + 4 = 9 spaces before "µs".
  CHECK(os.str() == "term         µs\n-------  ------\nweights  1234.5\n");
}

TEST_CASE("table: numbers right-aligned, the first column left, short rows padded") {
  Table t({"name", "n"});
  t.add_row({"a", "10"});
  t.add_row({"bb"});
  std::ostringstream os;
  t.print(os, "  ");
  CHECK(os.str() == "  name   n\n  ----  --\n  a     10\n  bb      \n");
}
