// `compare --mode train`: a token budget on every design, each term by hand from the plan.
#include <doctest/doctest.h>

#include "report/compare.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

using namespace topoplan;
using namespace topoplan::report;

namespace {

TrainComparison llama8b_case(double tokens, const std::vector<double>& prices = {}) {
  const ModelSpec m = load_model("llama-3-8b");
  std::vector<DesignSpec> designs{parse_design("hgx-h100-8:price=2"),
                                  parse_design("hgx-h200-8:nodes=2:price=3")};
  TrainRequest q;
  q.seq = 4096;
  q.global_batch = 64;
  q.top = 1;
  q.train_tokens = tokens;
  return compare_training(m, designs, q, prices);
}

}  // namespace

TEST_CASE("compare train: days, GPU-hours, energy and dollars follow from the plan") {
  const TrainComparison c = llama8b_case(1e12);
  REQUIRE(c.designs.size() == 2);
  for (const TrainDesignResult& d : c.designs) {
    REQUIRE(d.best);
    // days = tokens / (tokens/s) / 86,400 s.
    CHECK(d.days == doctest::Approx(1e12 / d.best->tokens_per_s / 86400));
    // GPU-hours = GPUs x days x 24.
    CHECK(d.gpu_hours == doctest::Approx(d.gpus * d.days * 24));
    // IT energy in MWh = W x hours / 1e6.
    CHECK(d.energy_MWh == doctest::Approx(d.power_W * d.days * 24 / 1e6));
    REQUIRE(d.usd);
    CHECK(*d.usd == doctest::Approx(d.gpu_hours * d.usd_per_gpu_hour->value));
  }
  // H100: 8 x 700 W + 1 x 4,600 W = 10,200 W; H200 x2: 16 x 700 W + 2 x 4,600 W = 20,400 W
  // (gpus.json TDPs, costs.json server overhead, as the serving compare).
  CHECK(c.designs[0].power_W == doctest::Approx(10200));
  CHECK(c.designs[1].power_W == doctest::Approx(20400));
  CHECK(c.designs[0].gpus == 8);
  CHECK(c.designs[1].gpus == 16);
  CHECK(c.designs[0].usd_per_gpu_hour->value == doctest::Approx(2));
  // Every design priced: the cheapest wins.
  CHECK(c.criterion == "usd");
  const int cheaper = *c.designs[0].usd <= *c.designs[1].usd ? 0 : 1;
  CHECK(c.overall == cheaper);
  CHECK(c.why.find("Cheapest: " + c.designs[cheaper].spec.name) == 0);
}

TEST_CASE("compare train: the budget scales days, hours and cost, not the plan") {
  const TrainComparison a = llama8b_case(1e12), b = llama8b_case(3e12);
  for (std::size_t i = 0; i < a.designs.size(); ++i) {
    CHECK(b.designs[i].best->tokens_per_s == doctest::Approx(a.designs[i].best->tokens_per_s));
    CHECK(b.designs[i].days == doctest::Approx(3 * a.designs[i].days));
    CHECK(*b.designs[i].usd == doctest::Approx(3 * *a.designs[i].usd));
  }
}

TEST_CASE("compare train: refuses no budget, one design, and a bad price count") {
  CHECK_THROWS_AS(llama8b_case(0), FieldError);
  CHECK_THROWS_AS(llama8b_case(1e12, {1, 2, 3}), FieldError);
  const ModelSpec m = load_model("llama-3-8b");
  TrainRequest q;
  q.train_tokens = 1e12;
  CHECK_THROWS_AS(compare_training(m, {parse_design("hgx-h100-8")}, q, {}), FieldError);
}

TEST_CASE("compare train: a design where nothing fits says why and cannot win") {
  const ModelSpec m = load_model("llama-3.1-405b");
  TrainRequest q;
  q.seq = 4096;
  q.global_batch = 64;
  q.top = 1;
  q.train_tokens = 1e12;
  const TrainComparison c = compare_training(
      m, {parse_design("pcie-rtx4090-8"), parse_design("hgx-h100-8:nodes=32")}, q, {});
  CHECK_FALSE(c.designs[0].best);
  CHECK_FALSE(c.designs[0].reason.empty());
  CHECK(c.designs[0].days == 0);
  // 405B fits on 32 servers (tp4 cp4 pp16 ...); on 8 it did not, and this check never ran.
  REQUIRE(c.designs[1].best);
  CHECK(c.overall == 1);
}
