// The busiest EP rank under uniform routing (issue 14: small-batch MoE decode priced the mean
// number of experts a rank touches, but every rank waits for the slowest at the combine
// all-to-all). Uniform routing is the model's assumption elsewhere (moe_traffic.cpp); real
// routers are skewed, so this is a lower bound on the imbalance (DeepSeek's EPLB exists because
// hot experts make it worse).
#include "model/moe_balance.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <vector>

namespace topoplan::moe {

namespace {
constexpr double kExactTrials = 4096;  // above this the CDF walk costs more than it buys

// Σ_x (1 − F(x)^ranks) over x = 0..n−1, with F the Binomial(n, q) CDF: E[max] for integer
// variables in [0, n]. The pmf is built in log space so that n = 4096 does not underflow.
double exact_max(int n, double q, int ranks) {
  const double lq = std::log(q), l1q = std::log1p(-q);
  double cdf = 0, sum = 0;
  for (int x = 0; x < n; ++x) {
    const double lpmf = std::lgamma(n + 1.0) - std::lgamma(x + 1.0) - std::lgamma(n - x + 1.0) +
                        x * lq + (n - x) * l1q;
    cdf = std::min(1.0, cdf + std::exp(lpmf));
    sum += 1.0 - std::pow(cdf, ranks);
    if (1.0 - cdf < 1e-15) break;  // the remaining terms are all ≈ 0
  }
  return sum;
}
}  // namespace

namespace {
double integrate_max_std_normal(int ranks) {
  // E[max] = ∫ z · r · φ(z) · Φ(z)^(r−1) dz, midpoint rule on [−10, 10] (error < 1e-9).
  constexpr int kSteps = 4000;
  const double h = 20.0 / kSteps;
  double sum = 0;
  for (int i = 0; i < kSteps; ++i) {
    const double z = -10 + (i + 0.5) * h;
    const double phi = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
    const double Phi = 0.5 * std::erfc(-z / std::sqrt(2.0));
    sum += z * ranks * phi * std::pow(Phi, ranks - 1);
  }
  return sum * h;
}
}  // namespace

double expected_max_std_normal(int ranks) {
  if (ranks <= 1) return 0;
  // The planner asks this for every MoE kernel it prices: integrate each EP size once, on first
  // use (threads may race to fill a slot; they store the same value).
  constexpr int kCached = 1024;
  static std::array<std::atomic<double>, kCached + 1> cache{};
  if (ranks > kCached) return integrate_max_std_normal(ranks);
  double v = cache[ranks].load(std::memory_order_relaxed);
  if (v == 0) cache[ranks].store(v = integrate_max_std_normal(ranks), std::memory_order_relaxed);
  return v;
}

double expected_max_binomial(double n, double q, int ranks) {
  if (n <= 0 || q <= 0) return 0;
  if (q >= 1) return n;
  const double mean = n * q;
  if (ranks <= 1) return mean;
  const double trials = std::round(n);
  if (trials < 1) return mean;
  if (trials <= kExactTrials) return exact_max(static_cast<int>(trials), q, ranks);
  return std::min(n, mean + std::sqrt(n * q * (1 - q)) * expected_max_std_normal(ranks));
}

double busiest_rank_experts(double tokens, int top_k, int experts, int ranks, int slots) {
  if (tokens <= 0 || experts <= 0 || ranks <= 0) return 0;
  const double n = slots > 0 ? slots : experts, copies = n / experts;
  const double p = 1.0 - std::pow(1.0 - double(top_k) / experts, tokens / copies);
  return expected_max_binomial(n / ranks, p, ranks);
}

double busiest_rank_assignments(double tokens, int top_k, int ranks) {
  if (tokens <= 0 || ranks <= 0) return 0;
  return expected_max_binomial(tokens * top_k, 1.0 / ranks, ranks);
}

}  // namespace topoplan::moe
