// Cluster-scale search (issue 12): DeepSeek-R1 on N x hgx-h100-8 for each N given (default
// 8 and 2048), one process, so the ratios compare like with like. Per N: strategies, search
// seconds, seconds per strategy (wall × threads), and that figure relative to the first N.
// `--check` instead compares the fast path with the general engine (SearchOptions::
// reference_engine) plan by plan and exits 1 on any relative difference above 1e-9.
// Usage: bench_scale [--threads T] [--fabric fat-tree] [--check] [nodes...]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "topoplan/model.hpp"
#include "topoplan/plan.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"

namespace {

bool close(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

// Every plan's strategy, verdict and headline numbers, and the Pareto front.
int differences(const topoplan::PlanOutput& a, const topoplan::PlanOutput& b) {
  int bad = a.plans.size() == b.plans.size() && a.pareto.size() == b.pareto.size() ? 0 : 1;
  for (std::size_t i = 0; bad == 0 && i < a.plans.size(); ++i) {
    const auto &x = a.plans[i], &y = b.plans[i];
    if (!(x.strategy == y.strategy) || x.fits != y.fits || x.reason != y.reason ||
        !close(x.batch, y.batch) || !close(x.ttft_ms, y.ttft_ms) || !close(x.tpot_ms, y.tpot_ms) ||
        !close(x.tokens_per_s, y.tokens_per_s) || !close(x.decode.total_us(), y.decode.total_us()))
      ++bad;
  }
  for (std::size_t i = 0; bad == 0 && i < a.pareto.size(); ++i)
    if (!close(a.pareto[i].tokens_per_s_per_gpu, b.pareto[i].tokens_per_s_per_gpu)) ++bad;
  return bad + (a.explanation == b.explanation ? 0 : 1);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1;
  bool check = false;
  std::string fabric = "rail-optimized";
  std::vector<int> nodes;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--fabric") && i + 1 < argc)
      fabric = argv[++i];
    else if (!std::strcmp(argv[i], "--check"))
      check = true;
    else
      nodes.push_back(std::atoi(argv[i]));
  }
  if (nodes.empty()) nodes = {8, 2048};
  const topoplan::ModelSpec m = topoplan::load_model("deepseek-r1");
  double first = 0;
  int failures = 0;
  for (int n : nodes) {
    topoplan::ClusterOptions c;
    c.nodes = n;
    c.fabric = topoplan::parse_fabric_kind(fabric);
    const topoplan::Topology t = topoplan::load_topology("hgx-h100-8", c);
    const topoplan::Router r(t);
    topoplan::SearchOptions o;
    o.threads = threads;
    const topoplan::PlanOutput out = topoplan::plan(m, r, topoplan::PlanRequest{}, o);
    const double per = out.search_seconds * out.threads / out.strategies_evaluated;
    if (first == 0) first = per;
    std::printf(
        "%6d nodes %7zu GPUs  %5d strategies  search %8.3f s on %d thread(s)  "
        "%8.3f ms/strategy  x%.2f of the first  %8.0f evaluations/s/core",
        n, t.gpus().size(), out.strategies_evaluated, out.search_seconds, out.threads, per * 1e3,
        per / first, out.evaluations_per_s_per_core());
    if (check) {
      o.reference_engine = true;
      const int d = differences(out, topoplan::plan(m, r, topoplan::PlanRequest{}, o));
      std::printf("  reference: %s", d == 0 ? "same" : "DIFFERENT");
      failures += d;
    }
    std::printf("\n");
  }
  return failures == 0 ? 0 : 1;
}
