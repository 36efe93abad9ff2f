// `compare --disagg`: each design's aggregated and disaggregated rows, priced by hand from the
// planner's answer; a mixed cluster as one design with a row per way it can be served.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "report/compare.hpp"
#include "report/compare_costs.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using namespace topoplan::report;

namespace {

// 1 x hgx-h200-8 (prefill) + 2 x hgx-h20-8 (decode) on one fabric, as a cluster file.
std::string mixed_file() {
  const auto path = std::filesystem::temp_directory_path() / "topoplan-compare-disagg-mixed.json";
  std::ofstream(path) << R"({"name": "h200-h20",
    "cluster": {"servers": [{"server": "hgx-h200-8", "count": 1},
                            {"server": "hgx-h20-8", "count": 2}],
                "fabric": {"kind": "rail-optimized", "link": "ib-ndr400"}}})";
  return path.string();
}

PlanRequest request() {
  PlanRequest q;
  q.prompt = 2048;
  q.output = 256;
  q.tpot_max_ms = 50;
  return q;
}

}  // namespace

TEST_CASE("compare --disagg: rows priced by hand, the mixed design served disaggregated only") {
  const ModelSpec m = load_model("llama-3-8b");
  const std::vector<DesignSpec> designs{parse_design("hgx-h100-8:nodes=2:price=2"),
                                        parse_design(mixed_file() + ":name=mixed")};
  const DisaggComparison c = compare_disagg(m, designs, request(), {3.0});
  REQUIRE(c.designs.size() == 2);
  const DisaggDesignResult& h100 = c.designs[0];
  const DisaggDesignResult& mixed = c.designs[1];
  // The uniform design is served both ways at the same limits.
  REQUIRE(h100.rows.size() == 2);
  CHECK(h100.rows[0].mode == "aggregated");
  CHECK(h100.rows[1].mode == "disaggregated");
  REQUIRE(h100.out.best);
  REQUIRE(h100.out.aggregated);
  const ServingRow& agg = h100.rows[0];
  const ServingRow& dis = h100.rows[1];
  CHECK(agg.gpus == h100.out.aggregated->strategy.gpus());
  CHECK(agg.tokens_per_s == h100.out.aggregated->tokens_per_s);
  CHECK(dis.gpus == 16);  // 1P:1D, 8 GPUs each
  CHECK(dis.split == "1P:1D");
  CHECK(dis.tokens_per_s == h100.out.best->goodput_tokens_per_s);
  CHECK(dis.tpot_ms <= 50 + 1e-9);
  // price= wins over --gpu-hour-price: $2/GPU-h x GPUs / (tok/s x 3600) x 1e6.
  for (const ServingRow& r : h100.rows) {
    CHECK(r.usd_per_hour == doctest::Approx(2.0 * r.gpus));
    REQUIRE(r.usd_per_mtok);
    CHECK(*r.usd_per_mtok == doctest::Approx(2.0 * r.gpus / (r.tokens_per_s * 3600) * 1e6));
    CHECK(r.tokens_per_s_per_gpu == doctest::Approx(r.tokens_per_s / r.gpus));
  }
  // The mixed cluster: no aggregated engine (one GPU kind each), pools are its server groups,
  // each GPU kind at --gpu-hour-price ($3 for both here).
  CHECK(mixed.gpu == mixed.out.prefill_gpu + " + H20");
  REQUIRE(mixed.rows.size() == 1);
  CHECK(mixed.rows[0].mode == "disaggregated");
  CHECK(mixed.rows[0].split == "1P:2D");
  CHECK(mixed.rows[0].gpus == 24);
  CHECK(mixed.prices.size() == 2);
  CHECK(mixed.rows[0].usd_per_hour == doctest::Approx(3.0 * 24));
  // IT power: every GPU at its TDP and each group's servers at their overhead.
  const Topology t = load_topology("hgx-h200-8");
  const double tdp_h200 = t.catalog().gpu(mixed.out.prefill_gpu).power_W,
               tdp_h20 = t.catalog().gpu("H20").power_W;
  CHECK(mixed.power_W == doctest::Approx(8 * tdp_h200 + 16 * tdp_h20 +
                                         server_overhead_W(mixed.out.prefill_gpu).value +
                                         2 * server_overhead_W("H20").value));
  // Overall: the row with the lowest $/Mtok of all.
  REQUIRE(c.overall >= 0);
  CHECK(c.criterion == "usd_per_mtok");
  const double best = *c.designs[c.overall].rows[c.overall_row].usd_per_mtok;
  for (const DisaggDesignResult& d : c.designs)
    for (const ServingRow& r : d.rows) CHECK(best <= *r.usd_per_mtok + 1e-12);
  CHECK(c.why.find("Best: " + c.designs[c.overall].spec.name) == 0);
}

TEST_CASE("compare --disagg: mixed pools each at their own kind's catalog price") {
  const ModelSpec m = load_model("llama-3-8b");
  const DisaggComparison c = compare_disagg(
      m, {parse_design("hgx-h100-8:nodes=2"), parse_design(mixed_file())}, request(), {});
  const DisaggDesignResult& mixed = c.designs[1];
  REQUIRE(mixed.rows.size() == 1);
  const auto h200 = default_gpu_hour_price(mixed.out.prefill_gpu);
  const auto h20 = default_gpu_hour_price("H20");
  if (h200 && h20) {
    CHECK(mixed.rows[0].usd_per_hour == doctest::Approx(8 * h200->value + 16 * h20->value));
  } else {
    CHECK(mixed.rows[0].usd_per_hour == 0);  // a half-priced system is not priced
    CHECK(!mixed.rows[0].usd_per_mtok);
  }
}

TEST_CASE("compare --disagg: serving only") {
  const ModelSpec m = load_model("llama-3-8b");
  PlanRequest q = request();
  q.mode = PlanMode::Decode;
  CHECK_THROWS_AS(
      compare_disagg(m, {parse_design("hgx-h100-8:nodes=2"), parse_design("hgx-h200-8:nodes=2")}, q,
                     {}),
      InputError);
}

TEST_CASE("compare --disagg: a price of 0 is a price (owned GPUs), not a missing one") {
  const ModelSpec m = load_model("llama-3-8b");
  const DisaggComparison c =
      compare_disagg(m, {parse_design("hgx-h100-8:nodes=2"), parse_design("hgx-h200-8:nodes=2")},
                     request(), {0.0});
  CHECK(c.criterion == "usd_per_mtok");
  for (const DisaggDesignResult& d : c.designs)
    for (const ServingRow& r : d.rows) {
      REQUIRE(r.usd_per_mtok);
      CHECK(*r.usd_per_mtok == 0);
    }
}

// price.GPU= prices one kind of a mixed design; it wins over price= for that kind (issue 28).
TEST_CASE("compare --disagg: price.GPU= prices each kind of a mixed design") {
  const ModelSpec m = load_model("llama-3-8b");
  const DisaggComparison c =
      compare_disagg(m,
                     {parse_design("hgx-h100-8:nodes=2:price=2"),
                      parse_design(mixed_file() + ":price=9:price.H20=1.5:name=mixed")},
                     request(), {});
  const DisaggDesignResult& mixed = c.designs[1];
  REQUIRE(mixed.rows.size() == 1);
  // 8 H200 at price= ($9, no price.H200-SXM=) + 16 H20 at price.H20= ($1.5).
  CHECK(mixed.rows[0].usd_per_hour == doctest::Approx(8 * 9.0 + 16 * 1.5));
  REQUIRE(mixed.prices.size() == 2);
  CHECK(mixed.prices[1].second->source.find("price.H20=") == 0);
  // A kind the design does not hold is refused, naming its GPUs.
  try {
    compare_disagg(
        m, {parse_design("hgx-h100-8:nodes=2"), parse_design(mixed_file() + ":price.B200=3")},
        request(), {});
    FAIL("price.B200= on an H200 + H20 design was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("no GPU 'B200' (its GPUs: H200-SXM, H20)") !=
          std::string::npos);
  }
}
