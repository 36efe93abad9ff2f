// The busiest EP rank under uniform routing: hand-derived order statistics.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>

#include "model/moe_balance.hpp"

using namespace topoplan::moe;

TEST_CASE("expected_max_binomial: small cases by hand") {
  // One rank: the mean n·q.
  CHECK(expected_max_binomial(10, 0.3, 1) == doctest::Approx(3.0));
  // Two Bernoulli(1/2): max is 0 only when both are 0 → E = 1 − 1/4 = 0.75.
  CHECK(expected_max_binomial(1, 0.5, 2) == doctest::Approx(0.75));
  // Two Binomial(2, 1/2): F(0) = 1/4, F(1) = 3/4 → E = (1 − 1/16) + (1 − 9/16) = 1.375.
  CHECK(expected_max_binomial(2, 0.5, 2) == doctest::Approx(1.375));
  // Certain and impossible trials.
  CHECK(expected_max_binomial(8, 1.0, 4) == doctest::Approx(8.0));
  CHECK(expected_max_binomial(8, 0.0, 4) == doctest::Approx(0.0));
}

TEST_CASE("expected_max_std_normal and the normal branch") {
  // E[max of 2 standard normals] = 1/√π.
  CHECK(expected_max_std_normal(2) == doctest::Approx(1 / std::sqrt(M_PI)).epsilon(1e-6));
  // Tabulated order statistic: E[max of 8] = 1.42360.
  CHECK(expected_max_std_normal(8) == doctest::Approx(1.42360).epsilon(1e-4));
  // 1e6 trials at q = 1/2 on 2 ranks: 5e5 + 500/√π = 500282.09.
  CHECK(expected_max_binomial(1e6, 0.5, 2) == doctest::Approx(500282.09).epsilon(1e-6));
  // The exact and normal branches meet: 4096 vs 4097 trials at q = 1/8, 8 ranks, within 0.5%.
  const double a = expected_max_binomial(4096, 0.125, 8), b = expected_max_binomial(4097, 0.125, 8);
  CHECK(b == doctest::Approx(a).epsilon(0.005));
}

TEST_CASE("busiest rank: above the mean, monotone in ranks, equal to it on one rank") {
  // DeepSeek-V3 (256 experts, top 8), batch 1 decode on EP8: the token touches 8 experts; a rank
  // holds 32, each touched with p = 1 − (1 − 8/256)^1 = 1/32, so the mean is 1 per rank but
  // the busiest of 8 ranks runs more (P(rank has ≥ 2) is large).
  const double mean = 32 * (1.0 / 32);
  const double busiest = busiest_rank_experts(1, 8, 256, 8);
  CHECK(busiest > 1.8 * mean);
  CHECK(busiest < 8);
  CHECK(busiest_rank_experts(1, 8, 256, 1) == doctest::Approx(8.0 / 256 * 256));
  double prev = 0;
  for (int ranks : {1, 2, 4, 8, 16, 32}) {
    const double per_rank_mean = 1024.0 * 8 / ranks;
    const double m = busiest_rank_assignments(1024, 8, ranks);
    CHECK(m >= per_rank_mean);
    CHECK(m / per_rank_mean >= prev);  // relative imbalance grows with the rank count
    prev = m / per_rank_mean;
  }
}

TEST_CASE("busiest_rank_experts with redundant slots: copies share their expert's tokens") {
  // One token picks 8 of 256 experts; with 512 slots (2 copies each) it touches one copy of
  // each: 8 slots. The model: 512 · (1 − (1 − 8/256)^(1/2)) = 8.06.
  CHECK(busiest_rank_experts(1, 8, 256, 1, 512) == doctest::Approx(8.0).epsilon(0.01));
  // Without copies the slots are the experts: the same as the two-argument form.
  CHECK(busiest_rank_experts(64, 8, 256, 8, 256) ==
        doctest::Approx(busiest_rank_experts(64, 8, 256, 8)));
  // More slots per rank, each less likely touched: at a large batch every slot is touched.
  CHECK(busiest_rank_experts(100000, 8, 256, 8, 288) == doctest::Approx(36.0));
}
