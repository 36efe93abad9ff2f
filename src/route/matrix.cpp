// GPU×GPU path matrix and bisection bandwidth.
#include <algorithm>
#include <limits>

#include "route/bisection.hpp"
#include "route/max_flow.hpp"
#include "topoplan/route.hpp"

namespace topoplan {

PathMatrix gpu_path_matrix(const Router& router, const std::vector<int>& gpus) {
  PathMatrix m;
  m.gpus = gpus;
  m.cells.assign(gpus.size(), std::vector<const Path*>(gpus.size(), nullptr));
  for (std::size_t i = 0; i < gpus.size(); ++i)
    for (std::size_t j = 0; j < gpus.size(); ++j)
      if (i != j) m.cells[i][j] = &router.path(gpus[i], gpus[j]);
  return m;
}

namespace {

// Max-flow from the GPUs with side[i] == 1 to the rest: the A→B capacity of that cut.
double cut_flow(std::size_t devices, const std::vector<route::FlowLink>& links,
                const std::vector<int>& gpus, const std::vector<char>& side) {
  const int n = static_cast<int>(devices);
  route::MaxFlow flow(n + 2);
  flow.reserve(links.size() + gpus.size());
  for (const route::FlowLink& l : links) flow.add_duplex(l.a, l.b, l.bw_GBps);
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    if (side[i])
      flow.add_arc(n, gpus[i], inf);
    else
      flow.add_arc(gpus[i], n + 1, inf);
  }
  return flow.run(n, n + 1);
}

}  // namespace

namespace route {

// Up to 16 GPUs every balanced half is tried (C(15,7) = 6435 cuts at most). Beyond that the
// candidates are the rank-order halves (servers 0..N/2-1 against the rest: the cut a tree fabric
// is weakest at) and the even/odd interleave; the result is then an upper bound on the true
// bisection, exact for symmetric fabrics where those cuts are the worst.
double bisection_GBps(std::size_t devices, const std::vector<FlowLink>& links,
                      const std::vector<int>& gpus) {
  const std::size_t n = gpus.size();
  if (n < 2) return 0;
  std::vector<char> side(n, 0);
  double best = std::numeric_limits<double>::infinity();
  if (n <= 16) {
    const std::size_t half = n / 2;
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
      if ((mask & 1u) == 0 || static_cast<std::size_t>(__builtin_popcount(mask)) != half) continue;
      for (std::size_t i = 0; i < n; ++i) side[i] = static_cast<char>((mask >> i) & 1u);
      best = std::min(best, cut_flow(devices, links, gpus, side));
    }
    return best;
  }
  for (std::size_t i = 0; i < n; ++i) side[i] = i < n / 2;
  best = cut_flow(devices, links, gpus, side);
  for (std::size_t i = 0; i < n; ++i) side[i] = i % 2 == 0;
  return std::min(best, cut_flow(devices, links, gpus, side));
}

}  // namespace route

double bisection_GBps(const Router& router) {
  const Topology& t = router.topology();
  std::vector<route::FlowLink> links;
  links.reserve(t.link_count());
  for (std::size_t l = 0; l < t.link_count(); ++l) {
    const Link& link = t.link(static_cast<int>(l));
    links.push_back({link.a, link.b, link.bw_GBps});
  }
  return route::bisection_GBps(t.device_count(), links, t.gpus());
}

}  // namespace topoplan
