// Private state of CollectiveModel shared by model.cpp (pricing) and prepared.cpp (prepared sets
// and their classes of identical groups).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "comm/loads.hpp"
#include "comm/pattern.hpp"
#include "topoplan/collective.hpp"

namespace topoplan::comm {

// A group set analysed once for every operation run on it (the TP groups carry all-reduce,
// all-gather and reduce-scatter): each group's GroupInfo, its shape classes, and the link loads
// of flow sets that more than one operation generates alike (rings of all-gather and
// reduce-scatter), by (algorithm, flow key, root, independent).
struct GroupAnalysis {
  std::vector<GroupInfo> groups;
  // Groups of identical shape (every scalar field of GroupInfo, which is all that the NCCL rules
  // and the latency/bandwidth model read): info_class[g] indexes info_reps, the first of each.
  std::vector<int> info_class, info_reps;
  // By (algorithm, op or -1 for the rings all-gather and reduce-scatter share, root,
  // independent): CollectiveModel::Impl::shared_key.
  using LoadKey = std::tuple<Algorithm, int, int, bool>;
  std::map<LoadKey, std::vector<GroupLoad>> loads;
};

// One cached evaluation of an operation: the groups' analysis and, per algorithm, their link
// loads (all groups together, or each alone when `independent`).
struct PreparedPattern {
  std::shared_ptr<GroupAnalysis> shared;  // shared by every op's pattern of the same groups
  bool independent = false;
  std::map<Algorithm, std::vector<GroupLoad>> loads;
  // Per algorithm, the first group of each class of equal shape and equal load (per-byte time
  // on its bottleneck, inter-server latency): the groups a size is priced on.
  std::map<Algorithm, std::vector<int>> reps;
  // Direct (p2p) sets: a group's size and largest peer transfer per byte of the priced size.
  std::vector<double> size_factor, peer_factor;
  // Threads the engine routes a large set's pairs on (CollectiveOptions::threads of the last
  // choice made on this pattern); the loads do not depend on it.
  int threads = 1;
};

// nccl-tests alltoallv size of a traffic matrix: the largest per-rank send or receive volume;
// also the largest single peer transfer (for the p2p protocol choice). Throws InputError when
// the matrix is not ranks × ranks or holds a negative, infinite or NaN entry.
std::pair<double, double> alltoallv_size(const TrafficMatrix& bytes, std::size_t ranks);

// First group of each class: classes[g] is any key that is equal exactly when two groups price
// alike; returns the first index of each distinct key, in group order.
template <class Key>
std::vector<int> first_of_each(const std::vector<Key>& keys, std::vector<int>* class_of = nullptr) {
  std::map<Key, int> seen;
  std::vector<int> reps;
  if (class_of) class_of->assign(keys.size(), 0);
  for (std::size_t g = 0; g < keys.size(); ++g) {
    auto [it, fresh] = seen.try_emplace(keys[g], static_cast<int>(reps.size()));
    if (fresh) reps.push_back(static_cast<int>(g));
    if (class_of) (*class_of)[g] = it->second;
  }
  return reps;
}

// Values by 64-bit key in one open-addressing table (linear probing, power-of-two size, at most
// half full): no allocation per entry. The all-ones key is not stored (find() misses it).
class PairMemo {
 public:
  using Value = std::pair<double, double>;
  const Value* find(std::uint64_t k) const {
    if (keys_.empty() || k == kEmpty) return nullptr;
    for (std::size_t i = slot(k);; i = (i + 1) & (keys_.size() - 1)) {
      if (keys_[i] == k) return &values_[i];
      if (keys_[i] == kEmpty) return nullptr;
    }
  }
  // Stores v under k (not present yet) and returns it.
  Value add(std::uint64_t k, Value v) {
    if (k == kEmpty) return v;
    if (2 * (used_ + 1) > keys_.size()) grow();
    std::size_t i = slot(k);
    while (keys_[i] != kEmpty) i = (i + 1) & (keys_.size() - 1);
    keys_[i] = k;
    values_[i] = v;
    ++used_;
    return v;
  }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  std::size_t slot(std::uint64_t k) const {  // splitmix64's finaliser
    k = (k ^ (k >> 30)) * 0xbf58476d1ce4e5b9ULL;
    k = (k ^ (k >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<std::size_t>(k ^ (k >> 31)) & (keys_.size() - 1);
  }
  void grow() {
    std::vector<std::uint64_t> keys(std::max<std::size_t>(64, 2 * keys_.size()), kEmpty);
    std::vector<Value> values(keys.size());
    keys.swap(keys_);
    values.swap(values_);
    used_ = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (keys[i] != kEmpty) add(keys[i], values[i]);
  }
  std::vector<std::uint64_t> keys_;
  std::vector<Value> values_;
  std::size_t used_ = 0;
};

}  // namespace topoplan::comm

namespace topoplan {

struct CollectiveModel::Impl {
  using Pattern = comm::PreparedPattern;
  const Router& router;
  const NcclTuning& tuning;
  mutable std::map<std::vector<int>, std::shared_ptr<Pattern>> cache;
  // Group sets analysed, by key(AllReduce, 0, groups, 0): one analysis per set, whatever the op.
  mutable std::map<std::vector<int>, std::shared_ptr<comm::GroupAnalysis>> analyses;
  // One flow src → dst alone (evaluate_flow): per-byte time and inter-server latency, memoised
  // because the pipeline boundaries of many strategies share pairs (at 100,000 GPUs 2.3 million
  // look-ups, 0.7 million pairs: a flat table, since a hash node per pair was most of their cost
  // under ASan).
  mutable comm::PairMemo pair_loads;
  std::pair<double, double> pair_load(int src, int dst) const {
    const std::uint64_t k = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                            static_cast<std::uint32_t>(dst);
    if (const auto* v = pair_loads.find(k)) return *v;
    const comm::GroupLoad l = comm::evaluate_flow(router, src, dst);
    return pair_loads.add(k, {l.us_per_byte, l.inter_latency_us});
  }
  mutable int alike = -1;  // Router::servers_alike(), asked once
  bool servers_alike() const {
    if (alike < 0) alike = router.servers_alike() ? 1 : 0;
    return alike == 1;
  }
  // Servers alike, and every GPU's links stay in its server: a flow between two servers then
  // takes the fabric route (never a shared NVSwitch or a direct link, as in NVL72 racks), whose
  // price Router::fabric_climb classes. Asked once.
  mutable int fabric_alike = -1;
  bool fabric_pairs_alike() const {
    if (fabric_alike < 0) {
      const Topology& t = router.topology();
      bool ok = servers_alike();
      for (int g : t.gpus())
        for (const Adjacent& a : t.neighbours(g))
          ok = ok && t.device(a.device).node == t.device(g).node;
      fabric_alike = ok ? 1 : 0;
    }
    return fabric_alike == 1;
  }

  // Cache key: op, root, a tag (0 concurrent, 1 independent), then the groups.
  static std::vector<int> key(CollOp op, int root, const std::vector<std::vector<int>>& groups,
                              int tag = 0);
  // The analysis of a group set: made afresh, or cached (made on first use).
  std::shared_ptr<comm::GroupAnalysis> make_analysis(
      const std::vector<std::vector<int>>& groups) const;
  std::shared_ptr<comm::GroupAnalysis> analyse(const std::vector<std::vector<int>>& groups) const;
  // A pattern of these groups on their cached analysis, outside the pattern cache.
  Pattern make_pattern(const std::vector<std::vector<int>>& groups) const {
    Pattern p;
    p.shared = analyse(groups);
    return p;
  }
  // The cached pattern of (op, root, groups, tag), made on first use.
  Pattern& cached(CollOp op, int root, const std::vector<std::vector<int>>& groups, int tag) const;
  std::shared_ptr<Pattern> cached_ptr(CollOp op, int root,
                                      const std::vector<std::vector<int>>& groups, int tag) const;

  // The (algorithm, protocol) whose slowest group is fastest, priced on one group per class.
  struct Choice {
    Algorithm algorithm = Algorithm::Ring;
    Protocol protocol = Protocol::Simple;
    int slowest = -1;  // the first group of maximal time
    CollectiveCost slowest_cost;
  };
  struct Candidate {
    Algorithm algorithm = Algorithm::Ring;
    Protocol protocol = Protocol::Simple;
    double floor_us = 0;  // the least time it can take: its latency at no routed latency
    int rank = 0;         // NCCL's ranking order, which breaks ties
  };
  // Link loads of algorithm `a`; `fast` allows the closed form for symmetric groups.
  const std::vector<comm::GroupLoad>& loads(Pattern& p, Algorithm a, CollOp op, int root,
                                            bool fast) const;
  using SharedKey = comm::GroupAnalysis::LoadKey;
  static SharedKey shared_key(const Pattern& p, Algorithm a, CollOp op, int root);
  bool loads_known(const Pattern& p, Algorithm a, CollOp op, int root) const;
  bool loads_ready(const Pattern& p, Algorithm a, CollOp op, int root, bool fast) const;
  static std::vector<comm::GroupLoad> evaluate_set(const Router& r, const Pattern& p,
                                                   const comm::FlowSource& flows_of);
  std::vector<comm::GroupLoad> compute_loads(const Router& r, const Pattern& p, Algorithm a,
                                             CollOp op, int root) const;
  const std::vector<comm::GroupLoad>& store_loads(Pattern& p, Algorithm a, CollOp op, int root,
                                                  std::vector<comm::GroupLoad> each) const;
  const std::vector<int>& reps(Pattern& p, Algorithm a, CollOp op, int root, bool fast) const;
  // Direct (p2p) transfers of every group at once, or each alone; weights[i] per byte.
  std::vector<comm::GroupLoad> direct_loads(const Pattern& p,
                                            const std::vector<TrafficMatrix>& w) const;
  void add_direct(Pattern& p, const std::vector<TrafficMatrix>& w) const;
  void add_uniform_direct(Pattern& p, CollOp op) const;  // uniform all-to-all or send/recv
  CollectiveCost p2p(const comm::GroupInfo& g, const comm::GroupLoad& l, CollOp op, double size,
                     double bytes_per_peer, const CollectiveOptions& o) const;
  CollectiveCost p2p_of(const Pattern& p, int g, CollOp op, double size,
                        const CollectiveOptions& o) const;

  std::vector<Candidate> candidates(const Pattern& p, CollOp op, double size,
                                    const CollectiveOptions& o, std::string& why_not) const;
  Choice choose(Pattern& p, CollOp op, double size, const CollectiveOptions& o, bool fast) const;
  // Every group's cost under choose()'s pick (cost_concurrent's answer).
  std::vector<CollectiveCost> price(Pattern& p, CollOp op, double size, const CollectiveOptions& o,
                                    bool fast) const;
  CollectiveCost one(const comm::GroupInfo& g, const comm::GroupLoad& l, CollOp op, Algorithm a,
                     Protocol pr, double size) const;
};

}  // namespace topoplan
