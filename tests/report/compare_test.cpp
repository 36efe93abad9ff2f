// `compare`: design specs, power and cost arithmetic (hand-derived), winners, price sources.
#include "report/compare.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "core/error_of.hpp"
#include "report/compare_costs.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

using namespace topoplan;
using namespace topoplan::report;

namespace {

Comparison r1_case(const std::vector<double>& prices = {}) {
  const ModelSpec m = load_model("deepseek-r1");
  std::vector<DesignSpec> designs{parse_design("hgx-h20-8:price=1.2"), parse_design("hgx-h200-8"),
                                  parse_design("hgx-h800-8:nodes=2:name=2x H800")};
  return compare_designs(m, designs, PlanRequest{}, prices);
}

}  // namespace

TEST_CASE("compare: design spec syntax") {
  const DesignSpec d = parse_design(
      "hgx-h800-8:nodes=2:fabric=fat-tree:price=2.1:oversubscription=2:tiers=2:name=H800 pair");
  CHECK(d.topology == "hgx-h800-8");
  CHECK(d.cluster.nodes == 2);
  CHECK(d.cluster.fabric == FabricKind::FatTree);
  CHECK(d.cluster.oversubscription == 2.0);
  CHECK(d.cluster.tiers == 2);
  CHECK(*d.usd_per_gpu_hour == 2.1);
  CHECK(d.name == "H800 pair");
  CHECK(parse_design("hgx-h20-8").name == "hgx-h20-8");
  CHECK(parse_design("hgx-h20-8:nodes=4").name == "hgx-h20-8 x4");
  // A file is labelled by its name without folders and .json (issue 28's walk).
  CHECK(parse_design("examples/mixed-pools/h200-prefill-h20-decode.json").name ==
        "h200-prefill-h20-decode");
  CHECK(parse_design("/tmp/my-pod.json:nodes=2").name == "my-pod x2");
  CHECK_THROWS_AS(parse_design("hgx-h20-8:node=2"), UnknownNameError);
  CHECK_THROWS_AS(parse_design("hgx-h20-8:nodes=0"), InputError);
  CHECK_THROWS_AS(parse_design("hgx-h20-8:nodes=1.5"), InputError);
  CHECK_THROWS_AS(parse_design("hgx-h20-8:price=-1"), InputError);
  CHECK_THROWS_AS(parse_design("hgx-h20-8:fat-tree"), InputError);
  CHECK_THROWS_AS(parse_design(":nodes=2"), InputError);
  // A label that is not UTF-8 is refused where it enters (its JSON answer threw type_error 316).
  CHECK_THROWS_WITH_AS(parse_design("hgx-h20-8:name=a\xff"),
                       "designs: hgx-h20-8:name=a?: not UTF-8 text", FieldError);
}

TEST_CASE("compare: power, tokens per joule and $ per million output tokens") {
  const Comparison c = r1_case();
  REQUIRE(c.designs.size() == 3);
  const DesignResult& h20 = c.designs[0];
  const DesignResult& h800 = c.designs[2];
  // 8 x 350 W (H20 TDP, gpus.json) + 1 server x 4600 W (DGX H100 10.2 kW - 8 x 700 W) = 7400 W.
  CHECK(h20.power_W == doctest::Approx(7400));
  // 16 x 700 W + 2 x 4600 W = 20400 W.
  CHECK(h800.power_W == doctest::Approx(20400));
  REQUIRE(h20.best);
  // $/Mtok = GPUs x $/GPU-h / (tokens/s x 3600 s/h) x 1e6.
  CHECK(*h20.usd_per_mtok == doctest::Approx(8 * 1.2 / (h20.best->tokens_per_s * 3600) * 1e6));
  CHECK(*h20.tokens_per_joule == doctest::Approx(h20.best->tokens_per_s / 7400));
  CHECK(h20.usd_per_gpu_hour->source.find("price=") != std::string::npos);
  // No price for H200/H800 in the catalog: no $/Mtok, so the overall winner is tokens/s/GPU.
  CHECK_FALSE(c.designs[1].usd_per_mtok.has_value());
  CHECK(c.criterion == "tokens_per_s_per_gpu");
  CHECK(h800.spec.name == "2x H800");
}

TEST_CASE("compare: each column's winner is its extreme, the overall winner is explained") {
  const Comparison c = r1_case({1.2, 3.5, 2.1});
  CHECK(c.criterion == "usd_per_mtok");
  for (std::size_t k = 0; k < compare_columns().size(); ++k) {
    const CompareColumn& col = compare_columns()[k];
    CAPTURE(col.key);
    if (col.better == 0) {
      CHECK(c.winner[k] == -1);
      continue;
    }
    REQUIRE(c.winner[k] >= 0);
    const double w = *column_value(c.designs[c.winner[k]], col.key);
    for (const DesignResult& d : c.designs)
      if (auto v = column_value(d, col.key)) CHECK(col.better * (w - *v) >= 0);
  }
  // price= beats --gpu-hour-price: the H20 keeps 1.2 although the flag says 1.2 too; H200 3.5.
  CHECK(c.designs[1].usd_per_gpu_hour->value == 3.5);
  CHECK(c.designs[1].usd_per_gpu_hour->source == "--gpu-hour-price");
  REQUIRE(c.overall >= 0);
  CHECK(c.why.find(c.designs[c.overall].spec.name + " wins") == 0);
  CHECK(c.why.find("runner-up") != std::string::npos);
}

TEST_CASE("compare: every number of a spec is finite and in range where it enters") {
  using test::error_of;
  // std::stod reads these; each was accepted: a NaN price won "cheapest", 1e30 nodes was cast
  // to int (undefined behaviour), inf oversubscription was blamed on --oversubscription.
  CHECK(error_of([] { parse_design("hgx-h20-8:price=nan"); }) ==
        "designs: hgx-h20-8:price=nan: price=nan: expected a finite number");
  CHECK(error_of([] { parse_design("hgx-h20-8:price=1e999"); }).find("expected a finite number") !=
        std::string::npos);
  CHECK(error_of([] {
          parse_design("hgx-h20-8:oversubscription=inf");
        }).find("oversubscription=inf: expected a finite number") != std::string::npos);
  CHECK(error_of([] { parse_design("hgx-h20-8:nodes=1e30"); }) ==
        "designs: hgx-h20-8:nodes=1e30: nodes=1e30: expected a whole number from 1 to 1000000000");
  CHECK(parse_design("hgx-h20-8:nodes=1e9").cluster.nodes == 1'000'000'000);  // the bound itself
  CHECK(error_of([] { parse_design("hgx-h20-8:price=10001"); }).find("from 0 to 10000 USD") !=
        std::string::npos);
  CHECK(*parse_design("hgx-h20-8:price=0").usd_per_gpu_hour == 0);
  // price.GPU= is one kind's price, checked like price=.
  const DesignSpec per_kind = parse_design("hgx-h20-8:price.H20=1.25");
  REQUIRE(per_kind.gpu_prices.size() == 1);
  CHECK(per_kind.gpu_prices[0] == std::make_pair(std::string("H20"), 1.25));
  CHECK(error_of([] { parse_design("hgx-h20-8:price.H20=1e5"); }).find("from 0 to 10000 USD") !=
        std::string::npos);
  CHECK(error_of([] { parse_design("hgx-h20-8:price.=1"); }).find("name the GPU model") !=
        std::string::npos);

  // --gpu-hour-price goes through the same rule.
  CHECK(gpu_hour_price_problem(2.99).empty());
  CHECK(!gpu_hour_price_problem(-0.01).empty());
  CHECK(!gpu_hour_price_problem(std::nan("")).empty());
  const ModelSpec m = load_model("llama-3-8b");
  CHECK(error_of([&] {
          compare_designs(m, {parse_design("hgx-h100-8"), parse_design("dgx-a100-8")},
                          PlanRequest{}, {std::nan("")});
        }).find("gpu_hour_price: must be a finite price") == 0);
}

TEST_CASE("compare: the cost catalog is read through the bounded reader, every figure sourced") {
  // costs.json: H100-SXM overhead 4600 W = DGX H100 10.2 kW max minus 8 x 700 W TDP; an
  // unlisted GPU gets the 1000 W default; H100's dated price 2.99 USD, none for H20.
  CHECK(server_overhead_W("H100-SXM").value == 10200 - 8 * 700);
  CHECK(server_overhead_W("H100-SXM").source.find("DGX H100") != std::string::npos);
  CHECK(server_overhead_W("no-such-gpu").value == 1000);
  // Rack-scale systems are one node: the overhead makes a rack its published power.
  // GB200 NVL72: 72 x 1200 W + 33,600 W = 120 kW (DGX GB200 NVL72); GB300 NVL72: 72 x 1400 W +
  // 31,200 W = 132 kW (its power shelves' output). DGX B300: 8 x 1100 W + 5,700 W = 14.5 kW.
  CHECK(72 * 1200 + server_overhead_W("GB200").value == 120000);
  CHECK(72 * 1400 + server_overhead_W("GB300").value == 132000);
  CHECK(8 * 1100 + server_overhead_W("B300").value == 14500);
  CHECK(default_gpu_hour_price("H100-SXM")->value == 2.99);
  CHECK(default_gpu_hour_price("H100-SXM")->source.find(", 2025-01") != std::string::npos);
  CHECK(!default_gpu_hour_price("H20").has_value());
}

TEST_CASE("compare: a dated catalog default price is used and cited") {
  const ModelSpec m = load_model("llama-3-8b");
  const Comparison c = compare_designs(m, {parse_design("hgx-h100-8"), parse_design("dgx-a100-8")},
                                       PlanRequest{}, {});
  CHECK(c.designs[0].usd_per_gpu_hour->value == 2.99);
  CHECK(c.designs[0].usd_per_gpu_hour->source.find("2025-01") != std::string::npos);
  CHECK(c.criterion == "usd_per_mtok");
}

TEST_CASE("compare: bad input") {
  const ModelSpec m = load_model("deepseek-r1");
  CHECK_THROWS_AS(compare_designs(m, {parse_design("hgx-h20-8")}, PlanRequest{}, {}), InputError);
  CHECK_THROWS_AS(compare_designs(m, {parse_design("hgx-h20-8"), parse_design("hgx-h200-8")},
                                  PlanRequest{}, {1, 2, 3}),
                  InputError);
}

TEST_CASE("compare: colliding default labels become the design text, name= is kept") {
  const std::vector<DesignSpec> d = with_unique_names(
      {parse_design("hgx-h100-8:nodes=4"), parse_design("hgx-h100-8:nodes=4:fabric=fat-tree"),
       parse_design("hgx-h200-8"), parse_design("hgx-h200-8:name=H200")});
  CHECK(d[0].name == "hgx-h100-8:nodes=4");
  CHECK(d[1].name == "hgx-h100-8:nodes=4:fabric=fat-tree");
  CHECK(d[2].name == "hgx-h200-8");  // no collision: the default stays
  CHECK(d[3].name == "H200");
}

TEST_CASE("compare: equal designs tie, they do not win by 1.00x") {
  const ModelSpec m = load_model("llama-3-8b");
  const Comparison c = compare_designs(
      m, {parse_design("hgx-h100-8:name=a"), parse_design("hgx-h100-8:name=b")}, PlanRequest{}, {});
  CHECK(c.why.find("a and b tie on") == 0);
}
