// bench_cluster: time make_cluster, Router set-up and routing of every rail-ring neighbour path
// (GPU r of server k → GPU r of server k+1, for every r and k) on large generated clusters.
// Usage: bench_cluster [GPUS...]   (default 16384 100000). Run from a Release build.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void run(const std::string& server_name, const std::string& fabric, int gpus) {
  const Topology server = load_topology(server_name);
  const int per_node = static_cast<int>(server.gpus().size());
  ClusterOptions o;
  o.nodes = (gpus + per_node - 1) / per_node;
  o.fabric = fabric;
  auto t0 = std::chrono::steady_clock::now();
  const Topology t = make_cluster(server, o);
  const double build_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  Router router(t);
  const double router_s = seconds_since(t0);

  // Rail rings: one ring per local GPU index across all servers; NET paths, ECMP up the tree.
  t0 = std::chrono::steady_clock::now();
  std::size_t paths = 0, hops = 0;
  double min_bw = 1e300;
  for (int r = 0; r < per_node; ++r)
    for (int k = 0; k < o.nodes; ++k) {
      const int a = t.gpus()[static_cast<std::size_t>(k * per_node + r)];
      const int b = t.gpus()[static_cast<std::size_t>(((k + 1) % o.nodes) * per_node + r)];
      const Path& p = router.path(a, b);
      if (p.cls != PathClass::NET) {
        std::fprintf(stderr, "unexpected class %s\n", std::string(to_string(p.cls)).c_str());
        std::exit(1);
      }
      ++paths;
      hops += p.hops.size();
      min_bw = std::min(min_bw, p.bw_GBps);
    }
  const double route_s = seconds_since(t0);
  std::printf(
      "%-11s %-15s %7zu GPUs %6d nodes %8zu devices %8zu links %d tiers | build %7.3f s"
      " | router %6.3f s | %7zu ring paths %7.3f s (%5.2f us/path, %.1f hops, min %.0f GB/s)\n",
      server_name.c_str(), fabric.c_str(), t.gpus().size(), o.nodes, t.device_count(),
      t.link_count(), t.fabric.tiers, build_s, router_s, paths, route_s,
      1e6 * route_s / static_cast<double>(paths),
      static_cast<double>(hops) / static_cast<double>(paths), min_bw);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atoi(argv[i]));
  if (sizes.empty()) sizes = {16384, 100000};
  try {
    for (int gpus : sizes)
      for (const char* server : {"hgx-h20-8", "hgx-h100-8"})
        for (const char* fabric : {"rail-optimized", "fat-tree"}) run(server, fabric, gpus);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cluster: %s\n", e.what());
    return 1;
  }
  return 0;
}
