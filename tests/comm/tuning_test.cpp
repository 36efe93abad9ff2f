// NcclTuning: the embedded constants and errors on bad data.
#include <doctest/doctest.h>

#include "topoplan/collective.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;

TEST_CASE("built-in tuning holds NCCL 2.30.7's constants") {
  const NcclTuning& t = NcclTuning::builtin();
  CHECK(t.nccl_version == "2.30.7");
  CHECK(t.base_latency_us[1][0] == 6.6);    // Ring LL
  CHECK(t.hw_latency_us[0][1][0] == 0.6);   // NVLink Ring LL
  CHECK(t.hw_latency_us[2][5][2] == 20.9);  // NET NVLSTree Simple
  CHECK(t.ll_max_GBps[2][0] == 141);        // Hopper, one node
  CHECK(t.nvls_efficiency[2] == 0.85);
  CHECK(t.ll128_bw_factor == 0.92);
}

TEST_CASE("bad tuning data names the source and the JSON pointer") {
  std::string text(*embedded_file("topologies/tuning/nccl.json"));
  const auto at = text.find("\"ll128_factor\": 0.92");
  REQUIRE(at != std::string::npos);
  std::string bad = text;
  bad.replace(at, 20, "\"ll128_factor\": 1.92");
  CHECK_THROWS_WITH_AS(NcclTuning::parse(bad, "my.json"), doctest::Contains("my.json"), InputError);
  std::string missing = text;
  missing.replace(missing.find("\"ring\": [6.6"), 6, "\"rinq\"");
  CHECK_THROWS_WITH_AS(NcclTuning::parse(missing, "my.json"),
                       doctest::Contains("/base_latency_us/ring"), InputError);
  CHECK_THROWS_AS(NcclTuning::parse("{", "x.json"), InputError);
}

namespace {
// The built-in file with the first occurrence of `from` replaced by `to`, parsed as "cal.json".
std::string error_with(const std::string& from, const std::string& to) {
  std::string text(*embedded_file("topologies/tuning/nccl.json"));
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  try {
    NcclTuning::parse(text, "cal.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("tuning constants outside their plausible range are refused at their pointer") {
  // 1e300 us of base latency made 300-digit collective times; a denormal cap a wrong plan.
  CHECK(error_with("\"tree\": [6.8", "\"tree\": [1e300") ==
        "cal.json: /base_latency_us/tree/0: must be 0 to 1000000 us (docs/limits.md), got 1e+300");
  CHECK(error_with("[[39, 39", "[[5e-324, 39") ==
        "cal.json: /per_arch/ll_max_GBps/0/0: must be 0.001 to 1000000 GB/s (docs/limits.md), got "
        "5e-324");
  CHECK(error_with("\"nvls_min_sm\": 90", "\"nvls_min_sm\": 1e9") ==
        "cal.json: /misc/nvls_min_sm: must be 0 to 1000 (docs/limits.md), got 1000000000");
  CHECK(error_with("\"net_overhead_us\": 1.0", "\"net_overhead_us\": -1") ==
        "cal.json: /misc/net_overhead_us: must be 0 to 1000000 us (docs/limits.md), got -1");
  CHECK(error_with("\"tree_ll_divisor\": 3.8", "\"tree_ll_divisor\": 0.5") ==
        "cal.json: /protocol_bw/tree_ll_divisor: must be 1 to 100 (docs/limits.md), got 0.5");
  CHECK(error_with("\"ll_factor\": 0.5", "\"ll_factor\": 0") ==
        "cal.json: /protocol_bw/ll_factor: must be 0.01 to 1 (docs/limits.md), got 0");
  // NVLS efficiency 0 is "no NVLS on this architecture" (Volta, Ampere).
  CHECK(error_with("\"nvls_efficiency\": [0, 0, 0.85", "\"nvls_efficiency\": [0, 0, 1.85") ==
        "cal.json: /per_arch/nvls_efficiency/2: must be 0 or 0.01 to 1 (docs/limits.md), got 1.85");
  CHECK(error_with("\"ll_factor\": 0.5", "\"ll_factor\": 0.5001").empty());
}
