// Timing of the collective model: fast path (cached patterns / closed forms) vs the general
// engine (every flow routed and summed per call), and a data-parallel all-reduce over up to
// 16,384 GPUs of a rail-optimized cluster. Not a test: prints wall-clock figures only.
//
//   bench_collective [GPUS...]     default: 16384
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "topoplan/collective.hpp"
#include "topoplan/topology_io.hpp"
#include "topoplan/units.hpp"

using namespace topoplan;

namespace {
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Calls per second of `f` over at least `min_s` seconds.
template <typename F>
double rate(F&& f, double min_s = 0.3) {
  const auto t0 = Clock::now();
  long calls = 0;
  double volatile sink = 0;
  while (seconds_since(t0) < min_s) {
    sink = sink + f(calls);
    ++calls;
  }
  return static_cast<double>(calls) / seconds_since(t0);
}

void single_server() {
  const Topology t = load_topology("hgx-h100-8");
  Router router(t);
  CollectiveModel model(router);
  const std::vector<int> g = t.gpus();
  std::printf("hgx-h100-8, 8-GPU all-reduce (auto algorithm/protocol), sizes 1 KiB .. 1 GiB:\n");
  const double fast = rate([&](long i) {
    return model.cost(CollOp::AllReduce, g, kKiB * static_cast<double>(1 << (i % 21))).time_us;
  });
  const double slow = rate([&](long i) {
    return model.cost_uncached(CollOp::AllReduce, g, kKiB * static_cast<double>(1 << (i % 21)))
        .time_us;
  });
  std::printf("  fast path     %10.0f calls/s  (%7.2f us/call)\n", fast, 1e6 / fast);
  std::printf("  general       %10.0f calls/s  (%7.2f us/call)\n", slow, 1e6 / slow);
  // TP=2/4/8 groups of a planner sweep: one group shape per call, several sizes.
  for (int tp : {2, 4, 8}) {
    const std::vector<int> grp(g.begin(), g.begin() + tp);
    const double r = rate([&](long i) {
      return model.cost(CollOp::AllReduce, grp, kMiB * static_cast<double>(1 + i % 64)).time_us;
    });
    std::printf("  tp=%d fast     %10.0f calls/s\n", tp, r);
  }
}

void dp_all_reduce(int gpus) {
  ClusterOptions o;
  o.nodes = gpus / 8;
  o.fabric = FabricKind::RailOptimized;
  auto t0 = Clock::now();
  const Topology t = load_topology("hgx-h100-8", o);
  const double build_s = seconds_since(t0);
  Router router(t);
  CollectiveModel model(router);
  t0 = Clock::now();
  const CollectiveCost first = model.cost(CollOp::AllReduce, t.gpus(), 1 * kGiB);
  const double first_s = seconds_since(t0);
  t0 = Clock::now();
  const CollectiveCost again = model.cost(CollOp::AllReduce, t.gpus(), 2 * kGiB);
  const double cached_s = seconds_since(t0);
  t0 = Clock::now();
  const CollectiveCost ring = model.cost_uncached(
      CollOp::AllReduce, t.gpus(), 1 * kGiB, CollectiveOptions{Algorithm::Ring, Protocol::Simple});
  const double ring_s = seconds_since(t0);
  // One rail's DP group (GPU 0 of every server): the typical DP group under TP=8.
  std::vector<int> rail;
  for (int n = 0; n < o.nodes; ++n) rail.push_back(t.gpus_of_node(n).front());
  t0 = Clock::now();
  const CollectiveCost r0 = model.cost(CollOp::AllReduce, rail, 1 * kGiB);
  const double rail_s = seconds_since(t0);
  std::printf(
      "\n%d GPUs (%d x hgx-h100-8, rail-optimized): cluster %.3f s\n"
      "  all-reduce 1 GiB, all GPUs, first call (all algorithms): %.3f s -> %s/%s %.0f us, "
      "busbw %.1f GB/s\n"
      "  same group, another size (cached):                       %.6f s\n"
      "  ring/Simple only, general engine, uncached:               %.3f s -> busbw %.1f\n"
      "  DP group of one rail (%d GPUs), first call:               %.3f s -> %s/%s busbw %.1f\n",
      gpus, o.nodes, build_s, first_s, std::string(to_string(first.algorithm)).c_str(),
      std::string(to_string(first.protocol)).c_str(), first.time_us, first.busbw_GBps, cached_s,
      ring_s, ring.busbw_GBps, o.nodes, rail_s, std::string(to_string(r0.algorithm)).c_str(),
      std::string(to_string(r0.protocol)).c_str(), r0.busbw_GBps);
  (void)again;
}
}  // namespace

int main(int argc, char** argv) {
  single_server();
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {16384};
  for (int n : sizes) dp_all_reduce(n);
  return 0;
}
