#include "route/max_flow.hpp"

#include <algorithm>
#include <limits>

namespace topoplan::route {

namespace {
constexpr double kEps = 1e-9;
}

void MaxFlow::build() {
  const auto n = static_cast<std::size_t>(vertices_);
  first_.assign(n + 1, 0);
  for (const Edge& e : edges_) {
    ++first_[static_cast<std::size_t>(e.a) + 1];
    ++first_[static_cast<std::size_t>(e.b) + 1];
  }
  for (std::size_t v = 0; v < n; ++v) first_[v + 1] += first_[v];
  std::vector<std::size_t> fill(first_.begin(), first_.end() - 1);
  arcs_.resize(2 * edges_.size());
  for (const Edge& e : edges_) {
    const std::size_t pa = fill[static_cast<std::size_t>(e.a)]++;
    const std::size_t pb = fill[static_cast<std::size_t>(e.b)]++;
    arcs_[pa] = Arc{e.b, pb, e.fwd};
    arcs_[pb] = Arc{e.a, pa, e.back};
  }
  std::vector<Edge>().swap(edges_);
  level_.assign(n, -1);
  next_.assign(n, 0);
  queue_.reserve(n);
}

bool MaxFlow::levels(int s, int t) {
  std::fill(level_.begin(), level_.end(), -1);
  level_[static_cast<std::size_t>(s)] = 0;
  queue_.assign(1, s);
  for (std::size_t head = 0; head < queue_.size(); ++head) {
    const auto v = static_cast<std::size_t>(queue_[head]);
    for (std::size_t i = first_[v]; i < first_[v + 1]; ++i) {
      const Arc& a = arcs_[i];
      if (a.cap > kEps && level_[static_cast<std::size_t>(a.to)] < 0) {
        level_[static_cast<std::size_t>(a.to)] = level_[v] + 1;
        queue_.push_back(a.to);
      }
    }
  }
  return level_[static_cast<std::size_t>(t)] >= 0;
}

// Iterative-deepening DFS would avoid recursion; depth here is the BFS level (a few dozen hops).
double MaxFlow::push(int v, int t, double f) {
  if (v == t) return f;
  const auto u = static_cast<std::size_t>(v);
  for (; next_[u] < first_[u + 1]; ++next_[u]) {
    Arc& a = arcs_[next_[u]];
    if (a.cap <= kEps || level_[static_cast<std::size_t>(a.to)] != level_[u] + 1) continue;
    const double got = push(a.to, t, std::min(f, a.cap));
    if (got > kEps) {
      a.cap -= got;
      arcs_[a.rev].cap += got;
      return got;
    }
  }
  return 0;
}

double MaxFlow::run(int source, int sink) {
  build();
  double total = 0;
  while (levels(source, sink)) {
    std::copy(first_.begin(), first_.end() - 1, next_.begin());
    for (double f; (f = push(source, sink, std::numeric_limits<double>::infinity())) > kEps;)
      total += f;
  }
  return total;
}

}  // namespace topoplan::route
