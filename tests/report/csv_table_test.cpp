// --csv tables (report/csv_table.hpp): RFC 4180 quoting and the flattening of JSON lists, each
// expected value written out by hand.
#include <doctest/doctest.h>

#include "report/csv_table.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;

TEST_CASE("csv: a field is quoted only when RFC 4180 asks") {
  CHECK(report::csv_field("tp8 pp1") == "tp8 pp1");
  CHECK(report::csv_field("a,b") == "\"a,b\"");
  CHECK(report::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(report::csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(report::csv_field("") == "");
}

TEST_CASE("csv: nested keys joined with dots, union of columns, null and absent empty") {
  const std::string doc = R"({"model": "m", "plans": [
    {"strategy": {"tp": 8, "pp": 1}, "fits": true, "reason": null, "gpus": ["gpu0", "gpu1"]},
    {"strategy": {"tp": 4, "pp": 2}, "fits": false, "reason": "weights, KV", "extra": 1.5}]})";
  CHECK(report::json_list_csv(doc, "plans") ==
        "strategy.tp,strategy.pp,fits,reason,gpus,extra\r\n"
        "8,1,true,,\"[\"\"gpu0\"\",\"\"gpu1\"\"]\",\r\n"
        "4,2,false,\"weights, KV\",,1.5\r\n");
}

TEST_CASE("csv: an empty list is a header-less table, a missing list an internal error") {
  CHECK(report::json_list_csv(R"({"plans": []})", "plans") == "\r\n");
  CHECK_THROWS_AS(report::json_list_csv(R"({"plans": 3})", "plans"), InternalError);
  CHECK_THROWS_AS(report::json_list_csv(R"({})", "designs"), InternalError);
}
