// Paths between devices, classified the way NCCL does (src/graph/paths.cc): the class of a path
// is its worst hop, its bandwidth the narrowest hop, its latency the sum of hop latencies.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "topoplan/topology.hpp"
#include "topoplan/topology_io.hpp"

namespace topoplan {

// Lower is closer/better; order and names follow NCCL's path types (graph.h).
enum class PathClass { LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS, NET, DIS };
std::string_view to_string(PathClass c);

struct Path {
  int src = -1, dst = -1;          // device indices
  std::vector<DirLink> hops;       // directed links in order, src → dst
  PathClass cls = PathClass::DIS;  // DIS when unreachable (hops empty)
  double bw_GBps = 0;              // bottleneck (minimum nominal bw over hops)
  double latency_us = 0;           // sum of hop latencies
};

// Routes on one Topology (which must outlive it). Paths are computed on demand and cached.
// Inside a server: best path by NCCL's rule (class, then bandwidth, then hops). Between servers
// of a generated cluster: structural (GPU → its NIC → fabric up to the lowest common switch →
// NIC → GPU), so routing scales to 100k GPUs without all-pairs search.
// Queries fill internal caches, so one Router must not be shared between threads (copying the
// Topology and making a Router per thread is fine). Returned references stay valid as long as
// the Router lives.
class Router {
 public:
  explicit Router(const Topology& topology);
  ~Router();
  Router(Router&&) noexcept;
  Router& operator=(Router&&) noexcept;

  const Topology& topology() const;
  // A router on the same topology with empty caches that shares this one's server and fabric
  // indexes (immutable once built): what each thread of a search routes with, since a Router's
  // caches are not thread-safe. Building the indexes again cost 30 ms and 10 MB per thread at
  // 12,500 servers (issue 32).
  Router worker() const;

  // Path between two devices (usually GPUs). Never throws for valid indices; cls == DIS when
  // unreachable.
  const Path& path(int src, int dst) const;
  // The same path as path(src, dst), but a path inside one server or between servers of a
  // structured fabric is built in a buffer of the Router instead of the cache: the reference is
  // valid only until the next transient_path call. For callers that route every flow of a
  // cluster once (link loads), where caching every pair costs memory and a hash insertion per
  // flow (docs/cluster-scale.md).
  const Path& transient_path(int src, int dst) const;

  // The NIC a GPU uses for network traffic (NCCL: closest NIC by path class then bandwidth;
  // ties broken rail-aligned by local index). -1 when its server has no NIC.
  int nic_of_gpu(int gpu) const;

  // True when every server is wired like the first one (same devices, models, local indices and
  // links slot for slot): paths inside a server, its NIC choice and its CPUs are then functions
  // of the devices' slots alone. server_slot(): a device's index among its server's devices
  // (-1 for network switches).
  bool servers_alike() const;
  int server_slot(int device) const;
  // The one NVSwitch among `device`'s neighbours; -1 when it has none or several (cached).
  int sole_nvswitch(int device) const;
  // True when routes between servers are structural (a generated tree fabric: up to the lowest
  // common switch, ECMP hashed, then down), false when they come from a general path search.
  bool structured_fabric() const;
  // For GPUs of two servers on a fabric whose routes are alike whatever their ECMP choices
  // (every link between two tiers like the others): the tiers their structural route climbs (1:
  // both NICs on one leaf). With servers_alike(), two such pairs at the same server slots and
  // climb cross links alike hop for hop. -1 otherwise (same server, irregular fabric, no route).
  int fabric_climb(int src, int dst) const;

  // Whether a CPU reachable from `gpu` inside its server (not over the network) is an AMD part
  // (its catalog model names AMD), as NCCL's ncclTopoCpuType reads the local CPU's vendor.
  // Cached per server: the walk is linear in the server's size.
  bool amd_cpu_server(int gpu) const;

  // Bandwidth (GB/s per direction) from a GPU into its NVLink domain (sum of its NVLinks; 0 if
  // none) and to the network (its NIC's rate bounded by the GPU↔NIC path).
  double nvlink_domain_GBps(int gpu) const;
  double network_GBps(int gpu) const;
  // A NIC's port rate (GB/s per direction): its fabric links, or the catalog line rate when it
  // has none (a server alone); 0 for an unknown model without links.
  double nic_GBps(int nic) const;

 private:
  struct Impl;
  explicit Router(std::unique_ptr<Impl> impl);  // worker()
  std::unique_ptr<Impl> impl_;
};

// The GPU×GPU matrix like `nvidia-smi topo -m` (class, GB/s, µs per pair), rows in gpus() order.
struct PathMatrix {
  std::vector<int> gpus;
  std::vector<std::vector<const Path*>> cells;  // cells[i][j], nullptr on the diagonal
};
PathMatrix gpu_path_matrix(const Router& router, const std::vector<int>& gpus);

// Bisection bandwidth (GB/s per direction) over the GPUs: the minimum over balanced halves,
// computed as a max-flow/min-cut for small graphs and structurally for generated clusters.
double bisection_GBps(const Router& router);

// What `topoplan topo show` reports: counts and per-GPU bandwidths of the first GPU (all GPUs of
// generated clusters and built-in servers are alike), all in GB/s per direction.
struct TopologySummary {
  std::vector<std::pair<std::string, int>> devices;  // device type name → count, DeviceType order
  std::vector<int> switches_per_tier;                // [0] = tier 1 (leaves), ...
  int gpus = 0;
  int nodes = 0;
  std::string gpu_model;        // of the first GPU ("" when none)
  double gpu_memory_bytes = 0;  // sum over GPUs (catalog capacity)
  int nvlink_domain = 0;    // GPUs reachable from the first GPU at class NVL/NVB, itself included
  double nvlink_GBps = 0;   // Router::nvlink_domain_GBps of the first GPU
  double pcie_GBps = 0;     // its PCIe link(s) to the host
  double network_GBps = 0;  // Router::network_GBps of the first GPU
  double network_share_GBps = 0;  // its server's NIC port total ÷ its GPUs, at most network_GBps
  double bisection_GBps = 0;      // bisection_GBps(); skipped (0) when `with_bisection` is false
};
TopologySummary summarize(const Router& router, bool with_bisection = true);
// summarize(Router(make_cluster(server, o))) for o.nodes ≥ 2, the same figures to the bit, without
// building the cluster: counts from cluster_shape(), the per-GPU figures on two servers, the
// bisection's max-flow over the streamed links (issue 32: a 100,000-GPU `topo show` in the memory
// of its switches and one flow graph).
TopologySummary summarize_cluster(const Topology& server, const ClusterOptions& o);

}  // namespace topoplan
