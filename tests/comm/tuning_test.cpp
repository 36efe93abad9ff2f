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
