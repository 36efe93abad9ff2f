#include "route/max_flow.hpp"

#include <algorithm>
#include <deque>
#include <limits>

namespace topoplan::route {

namespace {
constexpr double kEps = 1e-9;
}

void MaxFlow::add(int a, int b, double fwd, double back) {
  adj_[a].push_back(Arc{b, static_cast<int>(adj_[b].size()), fwd});
  adj_[b].push_back(Arc{a, static_cast<int>(adj_[a].size()) - 1, back});
}

bool MaxFlow::levels(int s, int t) {
  std::fill(level_.begin(), level_.end(), -1);
  level_[s] = 0;
  std::deque<int> q{s};
  while (!q.empty()) {
    const int v = q.front();
    q.pop_front();
    for (const Arc& a : adj_[v])
      if (a.cap > kEps && level_[a.to] < 0) {
        level_[a.to] = level_[v] + 1;
        q.push_back(a.to);
      }
  }
  return level_[t] >= 0;
}

// Iterative-deepening DFS would avoid recursion; depth here is the BFS level (a few dozen hops).
double MaxFlow::push(int v, int t, double f) {
  if (v == t) return f;
  for (; next_[v] < adj_[v].size(); ++next_[v]) {
    Arc& a = adj_[v][next_[v]];
    if (a.cap <= kEps || level_[a.to] != level_[v] + 1) continue;
    const double got = push(a.to, t, std::min(f, a.cap));
    if (got > kEps) {
      a.cap -= got;
      adj_[a.to][a.rev].cap += got;
      return got;
    }
  }
  return 0;
}

double MaxFlow::run(int source, int sink) {
  double total = 0;
  while (levels(source, sink)) {
    std::fill(next_.begin(), next_.end(), 0);
    for (double f; (f = push(source, sink, std::numeric_limits<double>::infinity())) > kEps;)
      total += f;
  }
  return total;
}

}  // namespace topoplan::route
