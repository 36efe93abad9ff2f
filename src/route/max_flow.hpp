// Dinic's maximum flow on a graph with per-direction arc capacities (internal to route/).
#pragma once

#include <cstddef>
#include <vector>

namespace topoplan::route {

class MaxFlow {
 public:
  explicit MaxFlow(int vertices) : vertices_(vertices) {}
  // A link usable in both directions with `cap` in each (one residual pair serves both).
  void add_duplex(int a, int b, double cap) { add(a, b, cap, cap); }
  void add_arc(int a, int b, double cap) { add(a, b, cap, 0); }
  void reserve(std::size_t edges) { edges_.reserve(edges); }
  // Maximum flow source → sink over the edges added; call once (the edge list is released).
  double run(int source, int sink);

 private:
  struct Edge {
    int a, b;
    double fwd, back;
  };
  struct Arc {
    int to;
    std::size_t rev;  // index of the reverse arc in arcs_
    double cap;
  };
  void add(int a, int b, double fwd, double back) { edges_.push_back({a, b, fwd, back}); }
  void build();
  bool levels(int s, int t);
  double push(int v, int t, double f);

  int vertices_;
  std::vector<Edge> edges_;
  // Compressed adjacency (built by run()): vertex v's arcs are arcs_[first_[v] .. first_[v + 1]),
  // in the order their edges were added. One flat array instead of a vector per vertex: the
  // per-vertex vectors' growth was a fifth of `topo show` on 100,000 GPUs (issue 32).
  std::vector<std::size_t> first_;
  std::vector<Arc> arcs_;
  std::vector<int> level_, queue_;
  std::vector<std::size_t> next_;
};

}  // namespace topoplan::route
