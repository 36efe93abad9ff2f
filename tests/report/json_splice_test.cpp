// Streamed arrays spliced into a dump print exactly what the tree would have (json_splice.hpp).
#include <doctest/doctest.h>

#include <sstream>

#include "report/json_splice.hpp"

using nlohmann::ordered_json;
using namespace topoplan::report;

namespace {

struct Row {
  int rank;
  std::string device;
};

// Ids with what JSON must escape: a quote, a backslash, a control character, non-ASCII.
const std::vector<Row> kRows = {{0, "n0/gpu0"}, {1, "a\"b\\c"}, {2, "tab\there"}, {3, "ü-gpu"}};

ordered_json rows_tree(const std::vector<Row>& rows) {
  ordered_json a = ordered_json::array();
  for (const Row& r : rows) a.push_back({{"rank", r.rank}, {"device", r.device}});
  return a;
}

std::string spliced(const ordered_json& doc, const std::vector<Splice>& s) {
  std::ostringstream os;
  dump_spliced(os, doc, 2, s);
  return os.str();
}

}  // namespace

TEST_CASE("spliced arrays equal the tree's dump at every depth, empty ones too") {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, kRows.size()}) {
    CAPTURE(n);
    const std::vector<Row> rows(kRows.begin(), kRows.begin() + static_cast<long>(n));
    std::vector<std::string> ids;
    for (const Row& r : rows) ids.push_back(r.device);
    ordered_json tree{
        {"a", 1}, {"ids", ids}, {"plans", {{{"x", 2.5}, {"placement", rows_tree(rows)}}}}};
    std::vector<Splice> s;
    s.push_back({splice_placeholder(0),
                 [&](std::ostream& os, int depth) { write_string_array(os, 2, depth, ids); }});
    s.push_back(
        {splice_placeholder(1), [&](std::ostream& os, int depth) {
           write_flat_array(os, 2, depth, rows.size(), [&](std::size_t i, auto& f) {
             f = {{"rank", std::to_string(rows[i].rank)}, {"device", json_string(rows[i].device)}};
           });
         }});
    ordered_json holes{{"a", 1},
                       {"ids", s[0].placeholder},
                       {"plans", {{{"x", 2.5}, {"placement", s[1].placeholder}}}}};
    CHECK(spliced(holes, s) == tree.dump(2));
  }
}

TEST_CASE("a placeholder missing or repeated is an internal error, not silent output") {
  std::vector<Splice> s{{splice_placeholder(0), [](std::ostream& os, int) { os << "[]"; }}};
  CHECK_THROWS_AS(spliced(ordered_json{{"a", 1}}, s), std::logic_error);
  ordered_json twice{{"a", s[0].placeholder}, {"b", s[0].placeholder}};
  CHECK_THROWS_AS(spliced(twice, s), std::logic_error);
  CHECK(spliced(ordered_json{{"a", s[0].placeholder}}, s) == "{\n  \"a\": []\n}");
}
