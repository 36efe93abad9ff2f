// Collective communication cost model on the topology graph (what NCCL would achieve).
//
// An algorithm (ring, double binary tree, NVLS, NVLSTree, CollNet, direct) turns a collective on
// a group of GPUs into concurrent flows (src device → dst device, bytes per byte of message).
// Each flow is routed with Router::path; loads are summed per directed link (DirLink); the
// transfer time is max over links of load ÷ (bw × link efficiency × protocol factor), and the
// latency follows NCCL's tuning model (tuning.cc constants, topologies/tuning/nccl.json).
// Sizes follow nccl-tests: all-gather / reduce-scatter / all-to-all / gather / scatter / hypercube
// size = the whole buffer. busbw = algbw × busbw_factor(op, n) (nccl-tests PERFORMANCE.md).
// Gather, scatter, hypercube and the send-recv ring are nccl-tests' point-to-point tests: rounds
// of concurrent transfers (docs/collective-model.md "Point-to-point tests").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/route.hpp"

namespace topoplan {

enum class CollOp {
  AllReduce,
  AllGather,
  ReduceScatter,
  Broadcast,
  Reduce,
  AllToAll,
  SendRecv,
  Gather,    // every rank sends size/n to the root (nccl-tests gather_perf)
  Scatter,   // the root sends size/n to every rank (scatter_perf)
  Hypercube  // all-gather by recursive exchange, log2(n) rounds (hypercube_perf; n = 2^k)
};
// How a send-recv group of n ranks transfers.
enum class SendRecvPattern {
  Pair,  // two ranks, the first sends to the second (a pipeline stage boundary)
  Ring   // every rank sends to the next and receives from the previous at once (sendrecv_perf)
};
enum class Algorithm { Auto, Ring, Tree, Nvls, NvlsTree, CollNet, Direct };
enum class Protocol { Auto, LL, LL128, Simple };

std::string_view to_string(CollOp op);  // "all-reduce", "all-gather", ...
std::string_view to_string(
    Algorithm a);  // "auto", "ring", "tree", "nvls", "nvlstree", "collnet", "direct"
std::string_view to_string(Protocol p);  // "auto", "LL", "LL128", "Simple"
// Parsers accept the names above, underscores, and NCCL spellings ("allreduce", "all_reduce",
// "ll128"); case-insensitive. Throw UnknownNameError on anything else.
CollOp parse_coll_op(std::string_view text);
Algorithm parse_algorithm(std::string_view text);
Protocol parse_protocol(std::string_view text);

// nccl-tests bus-bandwidth factor: 2(n−1)/n all-reduce; (n−1)/n all-gather, reduce-scatter,
// all-to-all, gather, scatter; 1 broadcast, reduce, send/recv, hypercube. n = ranks (n ≤ 1 gives
// 0 except factor-1 ops).
double busbw_factor(CollOp op, int ranks);
// Bytes nccl-tests divides by the time for algbw, per byte of the size: 1, except hypercube's
// (n−1)/n (HyperCubeGetBw counts what each rank receives, count × (n−1)).
double algbw_bytes_factor(CollOp op, int ranks);

// NCCL tuning constants (topologies/tuning/nccl.json; values of NCCL 2.30.7 tuning.cc).
// Indices: algorithm [tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree], protocol
// [LL, LL128, Simple], hardware class [nvlink, pci, net], arch [volta, ampere, hopper, blackwell],
// node scale [1 node, 2 nodes, >2 nodes].
struct NcclTuning {
  std::string source;
  std::string nccl_version;
  double base_latency_us[6][3] = {};
  double hw_latency_us[3][6][3] = {};
  double ll_max_GBps[4][3] = {};
  double per_ch_max_ring_ll128_GBps[4][3] = {};
  double per_ch_max_tree_GBps[4][3] = {};
  double per_ch_max_tree_ll128_GBps[4][3] = {};
  double nvls_efficiency[4] = {};
  double ll_bw_factor = 0.5;      // Ring LL: half the bus bandwidth (flags in every 8 bytes)
  double ll128_bw_factor = 0.92;  // LL128: 120 of 128 bytes carry data, ≈ 0.92 achieved
  double tree_ll_divisor = 3.8;
  double simple_bw_factor = 1.0;     // Simple protocol overhead on top of link efficiency
  double net_overhead_us = 1.0;      // NCCL_NET_OVERHEAD default on Intel / other CPUs
  double net_overhead_amd_us = 2.0;  // ... and on AMD x86 CPUs (tuning.cc getNetOverhead)
  double ring_plateau_factor =
      1.0;  // NCCL ranks with 1.4 on multi-node Ring Simple; off (nccl.json)
  double p2p_ll_threshold_bytes = 16384;  // NCCL_P2P_LL_THRESHOLD: p2p uses LL up to this size
  double nvls_min_sm = 90;
  // Link-type efficiencies a calibration file measured ("link_efficiency": {"nvlink4": 0.83});
  // they replace the catalog efficiency of those links (with_link_efficiency, nccl_tests.hpp).
  std::vector<std::pair<std::string, double>> link_efficiency;

  static const NcclTuning& builtin();  // parsed once from the embedded JSON
  // Throws InputError naming `source` and the JSON pointer of a bad field.
  static NcclTuning parse(const std::string& json_text, const std::string& source);
};

struct CollectiveOptions {
  Algorithm algorithm = Algorithm::Auto;  // force one (error if it cannot run this op/group)
  Protocol protocol = Protocol::Auto;     // force one
  bool allow_nvls = true;                 // --no-nvls (NCCL_NVLS_ENABLE=0)
  bool fabric_has_sharp = false;  // enables CollNet (IB SHARP); off unless the fabric says so
  int root = 0;  // broadcast / reduce / gather / scatter root, as an index into the group
  // send-recv: Pair (a group of two ranks; the library's default, the plans' stage boundaries)
  // or Ring (any n ≥ 2, nccl-tests' sendrecv_perf; `topoplan collective`'s default).
  SendRecvPattern send_recv = SendRecvPattern::Pair;
  double element_bytes = 4;  // for the "count" column only
  // Threads routing a large set's pairs (`collective --threads`; up to 3 are used, past that
  // the thread adding up the loads is what waits); the answer does not depend on it. 1 where
  // the caller runs threads of its own (the plan and training searches).
  int threads = 1;
};

// The most loaded directed link of the chosen algorithm.
struct BottleneckLink {
  DirLink dirlink = -1;  // -1 when the time is pure latency (one rank, zero bytes)
  std::string from, to;  // device ids
  std::string type;      // catalog link type ("nvlink4", "ib-ndr400")
  LinkKind kind = LinkKind::NVLink;
  double load_bytes = 0;     // bytes crossing it for this collective (all concurrent groups)
  double achieved_GBps = 0;  // bw × efficiency × protocol factor
  double utilisation = 0;    // busy time on this link ÷ collective time (0..1)
};

struct CollectiveCost {
  CollOp op = CollOp::AllReduce;
  double size_bytes = 0;
  int ranks = 0;
  double time_us = 0;
  double latency_us = 0;  // the latency part of time_us
  double algbw_GBps = 0;  // size ÷ time (× algbw_bytes_factor: hypercube counts what it receives)
  double busbw_GBps = 0;  // algbw × busbw_factor
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  int channels = 1;
  BottleneckLink bottleneck;
};

// A ragged all-to-all (MoE dispatch/combine): bytes[i][j] sent from group rank i to rank j.
using TrafficMatrix = std::vector<std::vector<double>>;

// Expected dispatch bytes between EP ranks for top-k routing: each rank holds `tokens` tokens of
// `token_bytes`; each token goes to k distinct experts; `expert_share[r]` is the fraction of
// routed tokens that land on rank r (empty = uniform). A token routed to its own rank moves no
// bytes. Combine is the transpose.
TrafficMatrix moe_dispatch_matrix(int ranks, double tokens, double token_bytes, int top_k,
                                  const std::vector<double>& expert_share = {});

class CollectiveModel;
namespace comm {
struct PreparedPattern;
struct PairRounds;
}  // namespace comm

// A collective on fixed groups, prepared once and priced at any size: the groups are analysed
// and their flows routed once (link loads per algorithm on first use, every group's load on
// shared links included), and groups whose pricing inputs are identical (same shape, same
// per-byte load on their bottleneck, same latency) form one class that is priced once. A size
// costs O(classes × algorithms × protocols), not O(groups). Equal to cost_concurrent by
// construction (docs/cluster-scale.md); tests/comm/prepared_test.cpp checks it. Made by
// CollectiveModel::prepare*; valid while the model lives; not thread-safe (like the model).
class PreparedCollective {
 public:
  PreparedCollective() = default;
  // The slowest group's cost: the first group of maximal time_us, as max_element over each().
  CollectiveCost slowest(double size_bytes) const;
  // One cost per group (cost_concurrent's answer; independent sets: each group alone).
  std::vector<CollectiveCost> each(double size_bytes) const;
  int groups() const;
  // Distinct classes of the chosen algorithm at this size (1 for a symmetric set).
  int classes(double size_bytes) const;

 private:
  friend class CollectiveModel;
  const CollectiveModel* model_ = nullptr;
  std::shared_ptr<comm::PreparedPattern> pattern_;
  CollOp op_ = CollOp::AllReduce;
  CollectiveOptions options_;
  // Independent sets deduplicated before analysis: group → its class's group in the pattern.
  std::vector<int> expand_;
  // Point-to-point tests (gather, scatter, hypercube, send-recv ring): rounds of concurrent
  // transfers, each a prepared set of pairs (comm/pair_rounds.hpp); pattern_ is then unused.
  std::shared_ptr<const comm::PairRounds> rounds_;
};

// Prices collectives on one topology. Routes and link-load patterns are cached per (op, root,
// groups, algorithm), so repeated calls at other sizes cost O(algorithms × protocols).
// The Router and the NcclTuning must outlive the model. Not thread-safe (the caches are
// mutable); use one model per thread.
class CollectiveModel {
 public:
  explicit CollectiveModel(const Router& router, const NcclTuning& tuning = NcclTuning::builtin());
  ~CollectiveModel();
  CollectiveModel(CollectiveModel&&) noexcept;
  CollectiveModel& operator=(CollectiveModel&&) noexcept;

  // One group (GPU device indices in rank order). Throws InputError for an empty group, a
  // non-GPU device, a forced algorithm/protocol that cannot run, or unreachable ranks; for
  // send-recv of other than two ranks under SendRecvPattern::Pair, a hypercube whose rank count
  // is not a power of two, and (FieldError) a gather/scatter/broadcast/reduce root outside it.
  CollectiveCost cost(CollOp op, const std::vector<int>& gpus, double size_bytes,
                      const CollectiveOptions& options = {}) const;

  // Several groups running the same collective at the same time (e.g. 8 TP groups, or 8 DP rings
  // sharing NICs and spines); their flows load the same links. Returns one cost per group: each
  // group's time is its own latency plus the transfer time of the most loaded link it uses.
  std::vector<CollectiveCost> cost_concurrent(CollOp op,
                                              const std::vector<std::vector<int>>& groups,
                                              double size_bytes,
                                              const CollectiveOptions& options = {}) const;

  // Ragged all-to-all; size_bytes of the result = max per-rank send or receive (nccl-tests
  // alltoallv convention). Throws InputError when the matrix is not ranks × ranks or holds a
  // negative or NaN entry.
  CollectiveCost all_to_all(const std::vector<int>& gpus, const TrafficMatrix& bytes,
                            const CollectiveOptions& options = {}) const;
  // Several ragged all-to-alls at the same time (e.g. the EP groups of every DP replica).
  std::vector<CollectiveCost> all_to_all_concurrent(const std::vector<std::vector<int>>& groups,
                                                    const std::vector<TrafficMatrix>& bytes,
                                                    const CollectiveOptions& options = {}) const;

  // Prepared forms of cost_concurrent, of every group alone (e.g. the stage boundaries of all
  // pipeline chains, each a separate send/recv), and of all_to_all_concurrent with traffic
  // matrices that scale with the size (priced at the alltoallv size, peers in proportion).
  // Same errors as the unprepared calls, thrown when priced.
  PreparedCollective prepare(CollOp op, const std::vector<std::vector<int>>& groups,
                             const CollectiveOptions& options = {}) const;
  PreparedCollective prepare_independent(CollOp op, const std::vector<std::vector<int>>& groups,
                                         const CollectiveOptions& options = {}) const;
  // prepare_independent of two-GPU groups given as pairs: a cluster's pipeline boundaries are
  // 10^5 pairs, and a vector per pair cost more than pricing them.
  PreparedCollective prepare_pairs(CollOp op, const std::vector<std::pair<int, int>>& pairs,
                                   const CollectiveOptions& options = {}) const;
  PreparedCollective prepare_all_to_all(const std::vector<std::vector<int>>& groups,
                                        const std::vector<TrafficMatrix>& unit_bytes,
                                        const CollectiveOptions& options = {}) const;

  // Point-to-point (pipeline stage boundary).
  CollectiveCost send_recv(int src_gpu, int dst_gpu, double bytes,
                           const CollectiveOptions& options = {}) const;

  // The reference engine: no caches or closed forms, every flow routed and summed on each call.
  // Same answers as cost() (all-to-all and send/recv always take the engine).
  CollectiveCost cost_uncached(CollOp op, const std::vector<int>& gpus, double size_bytes,
                               const CollectiveOptions& options = {}) const;

  const Router& router() const;
  const NcclTuning& tuning() const;  // the constants it prices with

 private:
  friend class PreparedCollective;
  struct Impl;
  PreparedCollective prepare_set(CollOp op, const std::vector<std::vector<int>>& groups,
                                 const CollectiveOptions& options, int tag) const;
  PreparedCollective make_prepared(std::shared_ptr<comm::PreparedPattern> p, CollOp op,
                                   const CollectiveOptions& options) const;
  std::unique_ptr<Impl> impl_;
};

// Closed form for a ring on a group where every rank's ring hop has the same achieved bandwidth
// B (GB/s) and per-step latency alpha (µs): T = steps(op,n)·S/(n·B) + steps·alpha, steps =
// 2(n−1) for all-reduce, n−1 for all-gather/reduce-scatter. Used by the fast path and tests.
double ring_closed_form_us(CollOp op, int ranks, double size_bytes, double bw_GBps,
                           double alpha_us);

}  // namespace topoplan
