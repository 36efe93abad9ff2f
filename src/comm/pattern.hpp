// Internal vocabulary of the comm module: a group's shape and the flows an algorithm generates.
#pragma once

#include <vector>

#include "topoplan/collective.hpp"

namespace topoplan::comm {

// One transfer of an algorithm: `weight` bytes cross src → dst per byte of message (summed over
// all steps, channels and pipeline chunks; already divided by any per-flow efficiency such as
// NVLS's in-switch reduction efficiency).
struct Flow {
  int src = -1, dst = -1;
  double weight = 0;
};

// What the algorithms and the latency model need to know about a group.
struct GroupInfo {
  std::vector<int> gpus;                  // rank order
  std::vector<std::vector<int>> by_node;  // GPUs per server, servers in order of first appearance
  std::vector<std::vector<int>> nic_of;   // parallel to by_node: each GPU's NIC (multi-node only)
  int n = 0;
  int nodes = 0;
  int min_ppn = 0;  // min GPUs of the group per server
  int ppn = 0;      // max GPUs of the group per server
  int min_sm = 0;
  bool same_sm = true;
  int arch = 0;                            // 0 volta, 1 ampere, 2 hopper, 3 blackwell
  int scale = 0;                           // 0: 1 node, 1: 2 nodes, 2: more
  PathClass intra_class = PathClass::LOC;  // worst path between GPUs of one server
  PathClass net_class = PathClass::LOC;    // worst GPU→NIC path (multi-node only)
  bool nvswitch = false;                   // every GPU hangs off an NVSwitch of its server
  // One server whose GPUs are pairwise joined by direct NVLink links (no switch): NCCL's ring
  // search then finds rings over different links, so the channels spread over the whole mesh.
  bool direct_mesh = false;
  int channels = 1;      // distinct NICs per server used by the group (≥ 1)
  bool amd_cpu = false;  // the first server's CPUs are AMD (NCCL's netOverhead is 2 µs there)
};

// `servers_alike` (Router::servers_alike(), asked once by the caller): every server is wired
// like the first, so a server's path classes follow from the slots the group holds there and
// each distinct slot set is walked pair by pair once; otherwise every server is.
GroupInfo analyse_group(const Router& router, const std::vector<int>& gpus, bool servers_alike);

// Flow generators (weights per byte of message). Rings and trees use `g.channels` channels,
// rotated so that each channel enters and leaves a server through a different NIC.
void ring_flows(const GroupInfo& g, double weight_per_edge, std::vector<Flow>& out);
void chain_flows(const GroupInfo& g, int root, std::vector<Flow>& out);
// `reuse_server_shapes` = false makes every server's chains afresh (the tests' reference).
void tree_flows(const GroupInfo& g, std::vector<Flow>& out, bool reuse_server_shapes = true);
void nvls_flows(const Router& r, const GroupInfo& g, CollOp op, double efficiency,
                std::vector<Flow>& out);
void nvls_tree_flows(const Router& r, const GroupInfo& g, double efficiency,
                     std::vector<Flow>& out);
void collnet_flows(const Router& r, const GroupInfo& g, std::vector<Flow>& out);
void direct_flows(const GroupInfo& g, const TrafficMatrix& weights, std::vector<Flow>& out);

// Devices an NVSwitch-attached GPU talks to for in-switch reduction, with the share of its NVLink
// bandwidth going to each (several physical switches split the traffic by link bandwidth).
std::vector<std::pair<int, double>> nvswitches_of(const Topology& t, int gpu);

}  // namespace topoplan::comm
