// Link-load engine: route flows, sum bytes per directed link, find each group's bottleneck.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "comm/pattern.hpp"

namespace topoplan::comm {

// Per group: the transfer time per byte of message on its most loaded link.
struct GroupLoad {
  double us_per_byte = 0;       // max over the group's links of load ÷ achieved bandwidth
  DirLink bottleneck = -1;      // -1 when the group moves no bytes
  double weight = 0;            // load on the bottleneck (all groups) per byte of message
  double inter_latency_us = 0;  // largest physical latency of a flow that leaves a server
  PathClass worst_class = PathClass::LOC;  // worst path class among the group's flows
};

// Achieved bandwidth (GB/s) of a directed link: nominal × the link type's efficiency.
double achieved_GBps(const Topology& t, DirLink d);

// Evaluates groups that run at the same time: their flows load the same links.
// Takes the flows by value: each group's are merged in place (pass them with std::move).
std::vector<GroupLoad> evaluate_loads(const Router& router, std::vector<std::vector<Flow>> flows);
// The same, each group's flows made when its turn comes by flows_of(g, out) (out empty on
// entry) and dropped once routed: only one group's are held, however many groups run (the
// plan's contrast prices 12,500 TP groups at once on 100,000 GPUs, issue 32).
// With threads > 1 a large group's pairs are routed on that many threads (helpers with routers
// of their own, made from `router`); the loads are summed in the same order, so the answer is
// the same for any count.
using FlowSource = std::function<void(std::size_t group, std::vector<Flow>& out)>;
std::vector<GroupLoad> evaluate_loads(const Router& router, std::size_t groups,
                                      const FlowSource& flows_of, int threads = 1);
// Each group alone (groups that do not run at the same time), made one at a time likewise.
std::vector<GroupLoad> evaluate_each(const Router& router, std::size_t groups,
                                     const FlowSource& flows_of, int threads = 1);

// flows[from, end) merged as evaluate_loads merges a group's set: each (src, dst) pair once, in
// (src, dst) order, equal pairs summed in ascending weight. A generator whose repeated pairs
// each lie within one stretch (a server's chain in every channel) merges each stretch as it
// goes, so the whole set is never held unmerged: evaluate_loads' merge then meets each such
// pair once, already summed as it would have summed it.
void merge_stretch(std::vector<Flow>& flows, std::size_t from);

// evaluate_loads over one group alone.
GroupLoad evaluate_group(const Router& router, std::vector<Flow> flows);

// evaluate_loads(router, {{Flow{src, dst, 1.0}}}).front(): one flow alone, without allocating.
GroupLoad evaluate_flow(const Router& router, int src, int dst);

}  // namespace topoplan::comm
