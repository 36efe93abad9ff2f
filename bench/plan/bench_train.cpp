// Times the training search (`topoplan plan --mode train`): Llama-3.1-405B on 16,384 H100
// (2,048 rail-optimized hgx-h100-8 servers), seq 8192, global batch 2,048 sequences, the full
// strategy space; and Llama-3-70B on 64 GPUs. Prints topology/router setup, search wall time,
// strategies enumerated / evaluated and strategies per second on one core.
// Usage: bench_train [repeats]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "topoplan/model.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"
#include "topoplan/train.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void run(const char* label, const std::string& model, int nodes, double seq, int gbs, int repeats) {
  topoplan::ClusterOptions c;
  c.nodes = nodes;
  auto t0 = Clock::now();
  topoplan::Topology topo = topoplan::load_topology("hgx-h100-8", c);
  topoplan::Router router(topo);
  topoplan::ModelSpec m = topoplan::load_model(model);
  double setup = seconds_since(t0);
  topoplan::TrainRequest q;
  q.seq = seq;
  q.global_batch = gbs;
  double best = 1e30;
  topoplan::TrainingResult r;
  for (int i = 0; i < repeats; ++i) {
    auto t1 = Clock::now();
    r = topoplan::plan_training(m, router, q);  // fresh caches every run
    best = std::min(best, seconds_since(t1));
  }
  std::printf(
      "%-34s setup %.3f s, search %.3f s (best of %d): %ld enumerated, %ld evaluated, %.0f "
      "strategies/s/core; best %s, %.2f s/step, MFU %.1f%%\n",
      label, setup, best, repeats, r.strategies_enumerated, r.strategies_evaluated,
      static_cast<double>(r.strategies_enumerated) / best,
      topoplan::describe(r.plans.front().strategy).c_str(), r.plans.front().step_time_ms / 1e3,
      100 * r.plans.front().mfu);
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  run("llama-3-70b, 64 H100 (8 servers)", "llama-3-70b", 8, 8192, 512, repeats);
  run("llama-3.1-405b, 16,384 H100", "llama-3.1-405b", 2048, 8192, 2048, repeats);
  return 0;
}
