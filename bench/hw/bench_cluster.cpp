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

// A sanity check, not part of the timing's purpose: the hops form a walk from src to dst.
bool connected(const Topology& t, const Path& p) {
  if (p.hops.empty() || t.from_device(p.hops.front()) != p.src) return false;
  for (std::size_t h = 1; h < p.hops.size(); ++h)
    if (t.from_device(p.hops[h]) != t.to_device(p.hops[h - 1])) return false;
  return t.to_device(p.hops.back()) == p.dst;
}

struct Timing {
  std::size_t paths = 0, hops = 0;
  double seconds = 0;
  std::string text() const {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%zu paths %.3f s (%.2f us/path, %.1f hops)", paths, seconds,
                  1e6 * seconds / static_cast<double>(paths),
                  static_cast<double>(hops) / static_cast<double>(paths));
    return buf;
  }
};

// Routes GPU r of server k to GPU r of server k + offset, for every r and k.
Timing route_all(const Topology& t, const Router& router, int per_node, int nodes, int offset) {
  Timing out;
  const auto t0 = std::chrono::steady_clock::now();
  for (int r = 0; r < per_node; ++r)
    for (int k = 0; k < nodes; ++k) {
      const int a = t.gpus()[static_cast<std::size_t>(k * per_node + r)];
      const int b = t.gpus()[static_cast<std::size_t>(((k + offset) % nodes) * per_node + r)];
      const Path& p = router.path(a, b);
      if (p.cls != PathClass::NET || !connected(t, p)) {
        std::fprintf(stderr, "bad path %s -> %s (class %s)\n", t.device(a).id.str().c_str(),
                     t.device(b).id.str().c_str(), std::string(to_string(p.cls)).c_str());
        std::exit(1);
      }
      ++out.paths;
      out.hops += p.hops.size();
    }
  out.seconds = seconds_since(t0);
  return out;
}

void run(const std::string& server_name, const std::string& fabric, int gpus) {
  const Topology server = load_topology(server_name);
  const int per_node = static_cast<int>(server.gpus().size());
  ClusterOptions o;
  o.nodes = (gpus + per_node - 1) / per_node;
  o.fabric = parse_fabric_kind(fabric);
  auto t0 = std::chrono::steady_clock::now();
  const Topology t = make_cluster(server, o);
  const double build_s = seconds_since(t0);

  t0 = std::chrono::steady_clock::now();
  Router router(t);
  const double router_s = seconds_since(t0);

  // Rail rings (server k → k+1: mostly leaf-local) and half-way pairs (k → k + N/2: through the
  // top tier), one per local GPU index and server; all NET paths, ECMP up the tree.
  const Timing ring = route_all(t, router, per_node, o.nodes, 1);
  const Timing far = route_all(t, router, per_node, o.nodes, o.nodes / 2);
  std::printf(
      "%-11s %-15s %7zu GPUs %6d nodes %8zu devices %8zu links %d tiers | build %6.3f s"
      " | router %6.3f s | ring %s | half-way %s\n",
      server_name.c_str(), fabric.c_str(), t.gpus().size(), o.nodes, t.device_count(),
      t.link_count(), t.fabric.tiers, build_s, router_s, ring.text().c_str(), far.text().c_str());
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
