// Output files (src/io/output_file.cpp): written beside the target and renamed, every write and
// the close checked; a failure names the path and leaves the target as it was.
#include "io/output_file.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "topoplan/error.hpp"

using namespace topoplan;
namespace fs = std::filesystem;

namespace {
std::string error_of(const std::string& path, const std::string& text) {
  try {
    detail::write_output_file(path, text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("output files: written whole, failures named, nothing left behind") {
  const fs::path dir = fs::temp_directory_path() / ("topoplan-out-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string target = (dir / "t.json").string();
  CHECK(error_of(target, "old") == "");
  CHECK(error_of(target, "new") == "");
  CHECK(slurp(target) == "new");
  CHECK(error_of((dir / "nodir" / "x.svg").string(), "x") ==
        (dir / "nodir" / "x.svg").string() + ": cannot write the file: no folder " +
            (dir / "nodir").string());
  CHECK(error_of(dir.string(), "x") == dir.string() + ": cannot write the file: it is a directory");
  CHECK(error_of("/dev/full", "x") == "/dev/full: write failed: No space left on device");
  CHECK(error_of("/dev/null", "x") == "");
  // A writer that fails or writes nothing leaves the target as it was.
  CHECK_THROWS_AS(detail::write_output_via(target, [](const std::string&) {}), InputError);
  CHECK_THROWS_AS(detail::write_output_via(
                      target, [](const std::string&) { throw InputError("renderer failed"); }),
                  InputError);
  CHECK(slurp(target) == "new");
  detail::write_output_via(target, [](const std::string& temp) {
    CHECK(temp.size() > 6);
    CHECK(temp.substr(temp.size() - 6) == "t.json");
    std::ofstream(temp) << "drawn";
  });
  CHECK(slurp(target) == "drawn");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator()) == 1);
  fs::remove_all(dir);
}
