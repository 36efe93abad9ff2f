// `compare`'s Pareto fronts side by side: picks at named per-user speeds, winners by tokens/s/GPU
// or by $/Mtok, and the ranges where the fronts cross, all by hand on two made-up fronts.
#include <doctest/doctest.h>

#include "report/compare.hpp"

using namespace topoplan;
using namespace topoplan::report;

namespace {

DesignResult design(const std::string& name, std::vector<std::pair<double, double>> front,
                    std::optional<double> usd_per_gpu_hour) {
  DesignResult d;
  d.spec.name = name;
  d.gpus = 8;
  d.power_W = 10000;
  if (usd_per_gpu_hour) d.usd_per_gpu_hour = Sourced{*usd_per_gpu_hour, "test"};
  for (const auto& [user, gpu] : front) {
    ParetoPoint p;
    p.tokens_per_s_per_user = user;
    p.tokens_per_s_per_gpu = gpu;
    d.plan.pareto.push_back(p);
  }
  return d;
}

// A: (60, 100) (30, 400) (10, 1000); B: (55, 120) (25, 300) (12, 900) as (tok/s/user, tok/s/GPU).
Comparison two(std::optional<double> price_a = {}, std::optional<double> price_b = {}) {
  Comparison c;
  c.designs.push_back(design("A", {{60, 100}, {30, 400}, {10, 1000}}, price_a));
  c.designs.push_back(design("B", {{55, 120}, {25, 300}, {12, 900}}, price_b));
  return c;
}

}  // namespace

TEST_CASE("fronts: each named speed takes a design's best point at or above it") {
  const Fronts f = compare_fronts(two());
  CHECK(f.criterion == "tokens_per_s_per_gpu");
  REQUIRE(f.points.size() == 3);
  // interactive >= 50: A 100 (at 60), B 120 (at 55): B.
  CHECK(f.points[0].picks[0]->point.tokens_per_s_per_gpu == 100);
  CHECK(f.points[0].picks[1]->point.tokens_per_s_per_gpu == 120);
  CHECK(f.points[0].winner == 1);
  // balanced >= 20: A 400 (at 30), B 300 (at 25): A. Max throughput: A 1000, B 900: A.
  CHECK(f.points[1].winner == 0);
  CHECK(f.points[2].winner == 0);
  // tokens/s per MW = 1000 tok/s/GPU x 8 GPUs / 10 kW x 1e6 = 800,000.
  CHECK(f.points[2].picks[0]->tokens_per_s_per_mw == doctest::Approx(800000));
  CHECK_FALSE(f.points[2].picks[0]->usd_per_mtok);  // no price
}

TEST_CASE("fronts: where the winner changes") {
  const Fronts f = compare_fronts(two());
  // Floors 10: A 1000 > B 900; 12: A 400 < B 900; 25, 30: A 400 > B 300, 120; 55: A 100 < B 120;
  // 60: only A.
  const std::vector<std::tuple<double, double, int>> want = {
      {0, 10, 0}, {10, 12, 1}, {12, 30, 0}, {30, 55, 1}, {55, 60, 0}};
  REQUIRE(f.ranges.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(f.ranges[i].from_tokens_per_s_per_user == std::get<0>(want[i]));
    CHECK(f.ranges[i].to_tokens_per_s_per_user == std::get<1>(want[i]));
    CHECK(f.ranges[i].winner == std::get<2>(want[i]));
  }
  // The summary folds ranges narrower than a tenth of their upper speed: (10, 12] is 17% wide
  // and stays, (55, 60] is 8% wide and joins (30, 55].
  CHECK(f.summary.find("A wins up to 10.0") != std::string::npos);
  CHECK(f.summary.find("B wins from 30.0 to 60.0") != std::string::npos);
}

TEST_CASE("fronts: with every design priced the winner is the cheapest per output token") {
  // $/Mtok = $/GPU-h / (tok/s/GPU x 3600) x 1e6: A at $2, B at $1 per GPU-hour.
  const Fronts f = compare_fronts(two(2.0, 1.0));
  CHECK(f.criterion == "usd_per_mtok");
  CHECK(*f.points[2].picks[0]->usd_per_mtok == doctest::Approx(2.0 / (1000 * 3600) * 1e6));
  // Tokens per dollar: A 100/2, 400/2, 1000/2 against B 120, 300, 900: B everywhere.
  for (const OperatingPoint& p : f.points) CHECK(p.winner == 1);
}

TEST_CASE("fronts: a design whose front ends below a speed has no pick there") {
  Comparison c = two();
  c.designs[1].plan.pareto = {c.designs[1].plan.pareto[1]};  // B keeps only (25, 300)
  const Fronts f = compare_fronts(c);
  CHECK_FALSE(f.points[0].picks[1]);  // interactive: B cannot reach 50
  CHECK(f.points[0].winner == 0);
}

TEST_CASE("fronts: equal fronts tie, they do not lead (issue 28's walk)") {
  Comparison c;
  c.designs.push_back(design("A", {{60, 100}, {10, 1000}}, 2.0));
  c.designs.push_back(design("B", {{60, 100}, {10, 1000}}, 2.0));
  const Fronts f = compare_fronts(c);
  for (const OperatingPoint& p : f.points) {
    CHECK(p.winner == 0);
    CHECK(p.tied == std::vector<int>{1});
  }
  REQUIRE(f.ranges.size() == 1);
  CHECK(f.ranges[0].tied == std::vector<int>{1});
  CHECK(f.summary ==
        "A and B tie on $ per million output tokens at the GPU-hour price at every "
        "per-user speed, up to 60.0 tok/s/user");
  // One point better by more than a part in a million is a lead again.
  c.designs[1].plan.pareto[1].tokens_per_s_per_gpu = 1001;
  const Fronts g = compare_fronts(c);
  CHECK(g.points.back().winner == 1);
  CHECK(g.points.back().tied.empty());
}
