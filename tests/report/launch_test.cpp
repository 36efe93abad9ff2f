// plan --emit (report/launch.hpp): every flag the emitters may print is cited, and the layout
// helpers say which server runs which ranks. The engines' commands themselves are checked against
// hand-written expected files by the CLI tests (tests/cli/launch.cmake).
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "report/launch.hpp"
#include "report/launch_internal.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

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

namespace {

// Megatron-Core's parser (pipeline_parallel_layer_layout.py, parse_str_to_list), restated: commas
// dropped, "(x)*n" then "c*n" unrolled, stages split at '|'.
std::vector<std::string> unroll_layout(std::string s) {
  auto repeat = [](const std::string& x, int n) {
    std::string r;
    for (int i = 0; i < n; ++i) r += x;
    return r;
  };
  auto count_at = [](const std::string& t, std::size_t& k) {
    std::size_t e = k;
    while (e < t.size() && std::isdigit(static_cast<unsigned char>(t[e]))) ++e;
    const int n = std::stoi(t.substr(k, e - k));
    k = e;
    return n;
  };
  std::string groups;
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '(') {
      const std::size_t close = s.find(')', i);
      REQUIRE(close != std::string::npos);
      REQUIRE(s.at(close + 1) == '*');
      std::size_t k = close + 2;
      groups += repeat(s.substr(i + 1, close - i - 1), count_at(s, k));
      i = k;
    } else {
      groups += s[i++];
    }
  }
  std::string flat;
  for (std::size_t i = 0; i < groups.size();) {
    if (i + 1 < groups.size() && groups[i + 1] == '*') {
      std::size_t k = i + 2;
      flat += repeat(std::string(1, groups[i]), count_at(groups, k));
      i = k;
    } else {
      flat += groups[i++];
    }
  }
  std::vector<std::string> stages(1);
  for (char c : flat) {
    if (c == '|')
      stages.emplace_back();
    else
      stages.back() += c;
  }
  return stages;
}

}  // namespace

TEST_CASE("launch: Megatron's pipeline layout of an uneven split, by hand") {
  // 56 layers over pp 8 x vp 6 = 48 stages: one layer each, and the first 56 mod 48 = 8 two.
  CHECK(report::megatron_pipeline_layout(56, 8, 6) == "Ett|(tt|)*7(t|)*39tL");
  // Llama 3 405B's 126 layers over pp 16 x vp 6 = 96 stages: 30 of two, 66 of one.
  CHECK(report::megatron_pipeline_layout(126, 16, 6) == "Ett|(tt|)*29(t|)*65tL");
  // Without vp, 126 over 16: 14 stages of 8, 2 of 7.
  CHECK(report::megatron_pipeline_layout(126, 16, 1) == "Et*8|(t*8|)*13t*7|t*7L");
  CHECK(report::megatron_pipeline_layout(3, 2, 1) == "Ett|tL");
  CHECK_THROWS_AS(report::megatron_pipeline_layout(3, 0, 1), InternalError);
}

TEST_CASE("launch: Megatron's pipeline layout gives each rank the plan's layers") {
  ModelSpec m;
  for (int layers : {7, 56, 61, 94, 126}) {
    m.layers = layers;
    for (int pp : {2, 3, 4, 8, 16}) {
      for (int vp : {1, 2, 3, 5, 6}) {
        if (pp * vp > layers) continue;
        CAPTURE(layers);
        CAPTURE(pp);
        CAPTURE(vp);
        const std::vector<std::string> st =
            unroll_layout(report::megatron_pipeline_layout(layers, pp, vp));
        REQUIRE(st.size() == static_cast<std::size_t>(pp * vp));
        CHECK(st.front().front() == 'E');
        CHECK(st.back().back() == 'L');
        std::vector<int> per_rank(static_cast<std::size_t>(pp), 0);
        int total = 0;
        for (std::size_t i = 0; i < st.size(); ++i) {
          const int n = static_cast<int>(std::count(st[i].begin(), st[i].end(), 't'));
          per_rank[i % static_cast<std::size_t>(pp)] += n;
          total += n;
        }
        CHECK(total == layers);
        for (int r = 0; r < pp; ++r)
          CHECK(per_rank[static_cast<std::size_t>(r)] == stage_layers(m, pp, r).count);
      }
    }
  }
}
