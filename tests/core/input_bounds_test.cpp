// Input bounds of the readers every format goes through (issue 16, docs/limits.md): the file
// reader, JSON depth, integer wrap, upper bounds, path-derived names and the did-you-mean cost.
#include <doctest/doctest.h>

#include "core/error_of.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>

#include "io/json_reader.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"

using namespace topoplan;
using nlohmann::json;

namespace {
using test::error_of;
// An endless stream of '0' bytes, like `yes` or /dev/zero piped to stdin: only a bound ends it.
class EndlessBuf : public std::streambuf {
 public:
  EndlessBuf() { setg(block_, block_, block_ + sizeof block_); }

 protected:
  int_type underflow() override {
    ++refills;
    setg(block_, block_, block_ + sizeof block_);
    return traits_type::to_int_type(block_[0]);
  }

 public:
  int refills = 0;

 private:
  char block_[4096] = {};
};

std::string nested(int depth) {
  return std::string(static_cast<std::size_t>(depth), '[') +
         std::string(static_cast<std::size_t>(depth), ']');
}
}  // namespace

TEST_CASE("read_text_file: regular files only, devices and directories are refused") {
  CHECK(error_of([] { read_text_file("/dev/zero"); }).find("/dev/zero: not a regular file") == 0);
  CHECK(error_of([] { read_text_file("/dev/urandom"); }).find("not a regular file") !=
        std::string::npos);
  const auto dir = std::filesystem::temp_directory_path();
  CHECK(error_of([&] { read_text_file(dir.string()); }).find("not a regular file") !=
        std::string::npos);
  CHECK(error_of([] { read_text_file("no/such/file.json"); }) ==
        "no/such/file.json: cannot open file (no such file)");
  const auto f = dir / "topoplan_bounds_test.txt";
  std::ofstream(f) << "{\"a\": 1}";
  CHECK(read_text_file(f.string()) == "{\"a\": 1}");
  std::filesystem::remove(f);
}

TEST_CASE("read_text_stream: a stream (stdin) is bounded like a file") {
  // At the bound exactly: read whole. One byte more: refused, naming the source and the bound.
  std::istringstream at(std::string(1000, 'x'));
  CHECK(read_text_stream(at, "<stdin>", 1000).size() == 1000);
  std::istringstream over(std::string(1001, 'x'));
  CHECK(error_of([&] { read_text_stream(over, "<stdin>", 1000); }) ==
        "<stdin>: input larger than 1000 bytes (docs/limits.md)");
  // The real bound is the file bound, and says it in MiB.
  std::istringstream small("{}");
  CHECK(read_text_stream(small, "<stdin>") == "{}");
  // An endless stream ends at the bound: 1 MiB asked, at most one 64 KiB read past it, so about
  // 1 MiB / 4 KiB = 256 refills of the 4 KiB buffer, far from endless.
  EndlessBuf endless;
  std::istream in(&endless);
  CHECK(error_of([&] { read_text_stream(in, "<stdin>", std::size_t{1} << 20); }) ==
        "<stdin>: input larger than 1 MiB (docs/limits.md)");
  CHECK(endless.refills >= 256);
  CHECK(endless.refills <= 256 + 16);
}

TEST_CASE("JSON depth: 64 levels parse, 65 are refused at the bracket that passes the limit") {
  CHECK(limits::kMaxJsonDepth == 64);
  CHECK(io::parse_json_text(nested(64), "d.json").is_array());
  // The 65th '[' is byte 64 (0-based), column 65.
  CHECK(error_of([] { io::parse_json_text(nested(65), "d.json"); }) ==
        "d.json: line 1, column 65: JSON nested deeper than 64 levels (docs/limits.md)");
  // 100,000 levels: refused before the recursive parser sees them (it overflowed the stack).
  CHECK(error_of([] { io::parse_json_text(nested(100000), "d.json"); }).find("column 65") !=
        std::string::npos);
  // Brackets inside strings, escaped quotes included, are text, not nesting.
  const std::string text = "{\"s\": \"" + std::string(100, '[') + "\\\"" + "\", \"n\": 1}";
  CHECK(io::parse_json_text(text, "s.json").at("n") == 1);
}

TEST_CASE("integers: an unsigned above 1e9 is refused, not wrapped to a negative") {
  const json j = json::parse(R"({"node": 18446744073709551615, "ok": 1000000000})");
  const io::JsonReader r(j, "f.json");
  CHECK(error_of([&] { r.integer("node", -1); }) ==
        "f.json: /node: must be <= 1000000000, got 18446744073709551615");
  CHECK(r.integer("ok", 0) == 1000000000);
}

TEST_CASE("number_at_most: finite, above the minimum and below the bound") {
  const json j = json::parse(R"({"lat": 1e308, "ok": 5, "neg": -1})");
  const io::JsonReader r(j, "f.json");
  CHECK(error_of([&] { r.number_at_most("lat", 0, 1e6, false); }).find("/lat: must be <= ") !=
        std::string::npos);
  CHECK(r.number_at_most("ok", 0, 1e6, false) == 5);
  CHECK(error_of([&] { r.number_at_most("neg", 0, 1e6, false); }) ==
        "f.json: /neg: must be >= 0.0, got -1");
}

TEST_CASE("utf8_or_replaced: well-formed UTF-8 kept, every bad byte one '?'") {
  CHECK(io::utf8_or_replaced("Meta-Llama-3-8B") == "Meta-Llama-3-8B");
  CHECK(io::utf8_or_replaced("caf\xc3\xa9") == "caf\xc3\xa9");            // U+00E9
  CHECK(io::utf8_or_replaced("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");  // U+1F600
  CHECK(io::utf8_or_replaced("bad\xff"
                             "dir") == "bad?dir");            // never a lead byte
  CHECK(io::utf8_or_replaced("\xc0\xaf") == "??");            // overlong '/'
  CHECK(io::utf8_or_replaced("\xed\xa0\x80") == "???");       // UTF-16 surrogate
  CHECK(io::utf8_or_replaced("\xf4\x90\x80\x80") == "????");  // above U+10FFFF
  CHECK(io::utf8_or_replaced("x\xe2\x82") == "x??");          // cut short
  // The result always dumps as JSON (the crash was nlohmann's type_error 316 on the raw name).
  CHECK(json(io::utf8_or_replaced("a\xfe\xff")).dump() == "\"a??\"");
}

TEST_CASE("did you mean: bounded on long names and huge lists, same answers on short ones") {
  // Unchanged: close names by edit distance, substrings count as close.
  CHECK(closest_names("hgx-h10-8", {"hgx-h100-8", "dgx-a100-8", "zzz"}) ==
        std::vector<std::string>{"hgx-h100-8", "dgx-a100-8"});
  CHECK(closest_names("h20", {"hgx-h20-8", "pcie-l40s-8"}) ==
        std::vector<std::string>{"hgx-h20-8"});
  // A name past 128 characters gets no suggestion (its edit distances would cost |name|^2).
  CHECK(closest_names(std::string(129, 'a'), {std::string(129, 'a')}).empty());
  // Only the first 100,000 names are scored: a match at 150,000 is not looked at.
  std::vector<std::string> ids;
  for (int i = 0; i < 200000; ++i) ids.push_back("dev" + std::to_string(i));
  ids[10] = "gpu7x";
  CHECK(closest_names("gpu7", ids) == std::vector<std::string>{"gpu7x"});
  ids[10] = "dev10";
  ids[150000] = "gpu7x";
  CHECK(closest_names("gpu7", ids).empty());
  // With no close name the known list stops at 30 and says how many there are.
  const std::string msg = UnknownNameError("device id", "zz", ids).what();
  CHECK(msg.find("dev29, ... (200000 in all)") != std::string::npos);
}
