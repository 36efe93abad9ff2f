// Dinic's maximum flow on a graph with per-direction arc capacities (internal to route/).
#pragma once

#include <vector>

namespace topoplan::route {

class MaxFlow {
 public:
  explicit MaxFlow(int vertices) : adj_(vertices), level_(vertices), next_(vertices) {}
  // A link usable in both directions with `cap` in each (one residual pair serves both).
  void add_duplex(int a, int b, double cap) { add(a, b, cap, cap); }
  void add_arc(int a, int b, double cap) { add(a, b, cap, 0); }
  double run(int source, int sink);

 private:
  struct Arc {
    int to;
    int rev;
    double cap;
  };
  void add(int a, int b, double fwd, double back);
  bool levels(int s, int t);
  double push(int v, int t, double f);

  std::vector<std::vector<Arc>> adj_;
  std::vector<int> level_;
  std::vector<std::size_t> next_;
};

}  // namespace topoplan::route
