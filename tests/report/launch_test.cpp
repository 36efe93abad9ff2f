// plan --emit (report/launch.hpp): every flag the emitters may print is cited, and the layout
// helpers say which server runs which ranks. The engines' commands themselves are checked against
// hand-written expected files by the CLI tests (tests/cli/launch.cmake).
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "report/launch.hpp"
#include "report/launch_internal.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;

TEST_CASE("launch: every flag names its engine, version and an https source, once") {
  std::set<std::string> seen;
  for (const report::LaunchFlag& f : report::launch_flags()) {
    CHECK(!f.engine.empty());
    CHECK(!f.flag.empty());
    CHECK(!f.meaning.empty());
    CHECK(!f.version.empty());
    CHECK(f.source.substr(0, 8) == "https://");
    CHECK(seen.insert(std::string(f.engine) + " " + std::string(f.flag)).second);
  }
  CHECK(report::launch_flag("sglang", "--tp-size") == "--tp-size");
  CHECK_THROWS_AS(report::launch_flag("sglang", "--tensor-parallel"), InternalError);
  CHECK_THROWS_AS(report::launch_flag("vllm", "--tp-size"), InternalError);
}

TEST_CASE("launch: servers of an instance and the engines' contiguous rank blocks") {
  // 16 ranks, tp fastest: n2 holds ranks 0-7 on GPUs 0-7, n3 ranks 8-15.
  std::vector<report::LaunchSlot> ranks;
  for (int r = 0; r < 16; ++r) ranks.push_back({2 + r / 8, r % 8});
  const report::LaunchNodes n = report::launch_nodes(ranks);
  CHECK(n.nodes == std::vector<int>{2, 3});
  CHECK(n.contiguous);
  CHECK(report::layout_comment(n) ==
        "#   n2: GPUs 0-7 -> ranks 0-7\n#   n3: GPUs 0-7 -> ranks 8-15\n");
  // Past four servers the comment shows the first two and the last.
  std::vector<report::LaunchSlot> wide;
  for (int r = 0; r < 48; ++r) wide.push_back({r / 8, r % 8});
  CHECK(report::layout_comment(report::launch_nodes(wide)) ==
        "#   n0: GPUs 0-7 -> ranks 0-7\n#   n1: GPUs 0-7 -> ranks 8-15\n"
        "#   ... 3 more servers ...\n#   n5: GPUs 0-7 -> ranks 40-47\n");
  // dp-pp-tp order: consecutive ranks alternate servers, which no engine's blocks reproduce.
  std::vector<report::LaunchSlot> strided;
  for (int r = 0; r < 4; ++r) strided.push_back({r % 2, r / 2});
  CHECK_FALSE(report::launch_nodes(strided).contiguous);
  CHECK(report::visible_devices({0, 1, 2, 3}).empty());
  CHECK(report::visible_devices({4, 5, 6, 7}) == "4,5,6,7");
}

TEST_CASE("launch: the model path is the Hugging Face repository of the model's sources") {
  CHECK(report::model_path_of({"architecture: https://huggingface.co/deepseek-ai/DeepSeek-R1/"
                               "blob/main/config.json"},
                              "deepseek-r1") == "deepseek-ai/DeepSeek-R1");
  CHECK(report::model_path_of({"paper: arXiv:2412.19437"}, "mine") == "mine");
}
