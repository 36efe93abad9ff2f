// Private representation of Topology, shared by topology.cpp and topology_validate.cpp.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "topoplan/topology.hpp"

namespace topoplan {

namespace detail {
inline bool rank_less(const Device& x, const Device& y) {
  return x.node != y.node ? x.node < y.node : x.local_index < y.local_index;
}
}  // namespace detail

// Device id → index, built on the first Topology::find() and kept current by add_device from
// then on (issue 32): a generated 100,000-GPU cluster is looked up by id rarely or never, and
// hashing its 300,000 ids was a twelfth of `collective`. Ids of devices added before the index
// existed are checked for duplicates when it is built. The mutex makes the lazy build safe for
// const users on several threads; copies get a fresh mutex.
struct IdIndex {
  std::unordered_map<std::string, int> map;
  std::size_t covered = 0;  // devices [0, covered) are in `map`
  bool active = false;      // find() was called: add_device keeps `map` current
  mutable std::mutex mutex;

  IdIndex() = default;
  IdIndex(const IdIndex& o) {
    std::lock_guard<std::mutex> lock(o.mutex);
    map = o.map;
    covered = o.covered;
    active = o.active;
  }
  IdIndex& operator=(const IdIndex& o) {
    if (this == &o) return *this;
    IdIndex copy(o);
    std::lock_guard<std::mutex> lock(mutex);
    map = std::move(copy.map);
    covered = copy.covered;
    active = copy.active;
    return *this;
  }
};

// Every device's outgoing directed links, in link-index order, as one flat array (CSR): built
// on the first neighbours() after a change, from the links, under a mutex so that const users
// on several threads may trigger it. A vector per device cost a header and an allocation each,
// 24 MB for a 100,000-GPU cluster's 300,000 devices against 11 MB flat (issue 32). Copies get a
// fresh mutex and are rebuilt on their first use.
struct AdjacencyIndex : detail::AdjacencyView {
  mutable std::mutex mutex;

  AdjacencyIndex() = default;
  AdjacencyIndex(const AdjacencyIndex&) : detail::AdjacencyView() {}
  AdjacencyIndex& operator=(const AdjacencyIndex&) {
    std::lock_guard<std::mutex> lock(mutex);
    offsets.clear();
    entries.clear();
    fresh = false;
    return *this;
  }
  void invalidate() { fresh.store(false, std::memory_order_relaxed); }
  void build(std::size_t devices, const std::vector<detail::LinkRecord>& links) {
    std::lock_guard<std::mutex> lock(mutex);
    if (fresh.load(std::memory_order_acquire)) return;
    offsets.assign(devices + 1, 0);
    for (const detail::LinkRecord& l : links) {
      ++offsets[static_cast<std::size_t>(l.a) + 1];
      if (l.a != l.b) ++offsets[static_cast<std::size_t>(l.b) + 1];
    }
    for (std::size_t d = 1; d <= devices; ++d) offsets[d] += offsets[d - 1];
    entries.resize(static_cast<std::size_t>(offsets[devices]));
    std::vector<int> next(offsets.begin(), offsets.end() - 1);
    for (std::size_t i = 0; i < links.size(); ++i) {
      const detail::LinkRecord& l = links[i];
      const int index = static_cast<int>(i);
      entries[static_cast<std::size_t>(next[static_cast<std::size_t>(l.a)]++)] = {2 * index, l.b};
      if (l.a != l.b)
        entries[static_cast<std::size_t>(next[static_cast<std::size_t>(l.b)]++)] = {2 * index + 1,
                                                                                    l.a};
    }
    fresh.store(true, std::memory_order_release);
  }
};

// The distinct property sets of a topology's links ({kind, count, type, bandwidth, efficiency,
// latency}; the ends left -1), each stored once and looked up by value when a link is added.
class LinkProperties {
 public:
  int intern(const Link& l) {
    const Key key{l.kind,
                  l.count,
                  &l.type.str(),
                  std::bit_cast<std::uint64_t>(l.bw_GBps),
                  std::bit_cast<std::uint64_t>(l.efficiency),
                  std::bit_cast<std::uint64_t>(l.latency_us)};
    // Links come in runs of one kind (a server's NVLink bundles, a fabric tier), so the last
    // set is tried before hashing.
    if (last_ >= 0 && key == last_key_) return last_;
    auto [it, added] = index_.emplace(key, static_cast<int>(sets_.size()));
    if (added) {
      Link set = l;
      set.a = set.b = -1;
      sets_.push_back(set);
    }
    last_key_ = key;
    return last_ = it->second;
  }
  const std::vector<Link>& sets() const { return sets_; }

 private:
  // Names are interned, so the pooled string's address identifies the type; doubles by bits.
  struct Key {
    LinkKind kind;
    int count;
    const std::string* type;
    std::uint64_t bw, efficiency, latency;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = std::hash<const void*>{}(k.type);
      for (std::uint64_t v : {static_cast<std::uint64_t>(k.kind),
                              static_cast<std::uint64_t>(k.count), k.bw, k.efficiency, k.latency})
        h = h * 1000003u ^ std::hash<std::uint64_t>{}(v);
      return h;
    }
  };
  std::vector<Link> sets_;
  std::unordered_map<Key, int, KeyHash> index_;
  Key last_key_{};
  int last_ = -1;
};

// Devices, links and per-device adjacency in flat vectors. The Boost graph is built from them
// where a graph algorithm runs (validate()'s connected components): kept beside them on every
// topology it cost a list node and two out-edge entries per link, 60 MB and 1.5 million
// allocations on a 100,000-GPU cluster that no algorithm walked (issue 32).
struct Topology::Impl {
  std::vector<Device> devices;
  std::vector<detail::LinkRecord> links;
  LinkProperties link_properties;
  mutable AdjacencyIndex adjacency;
  mutable IdIndex ids;
  std::vector<int> gpus;                    // kept sorted node-major then local_index
  std::vector<std::vector<int>> node_gpus;  // per node, in insertion order
  std::vector<std::vector<int>> node_nics;
  int max_node = -1;
  std::shared_ptr<const Catalog> catalog;  // nullptr: Catalog::builtin()

  void add_to_node(std::vector<std::vector<int>>& per_node, int node, int index) {
    if (node < 0) return;
    if (per_node.size() <= static_cast<std::size_t>(node)) per_node.resize(node + 1);
    per_node[node].push_back(index);
  }

  void insert_gpu(int index) {
    const Device& d = devices[static_cast<std::size_t>(index)];
    // Devices normally arrive in rank order, so this is an append; otherwise insert in place.
    if (gpus.empty() || !detail::rank_less(d, devices[static_cast<std::size_t>(gpus.back())])) {
      gpus.push_back(index);
      return;
    }
    auto pos = std::upper_bound(gpus.begin(), gpus.end(), index, [&](int a, int b) {
      return detail::rank_less(devices[static_cast<std::size_t>(a)],
                               devices[static_cast<std::size_t>(b)]);
    });
    gpus.insert(pos, index);
  }
};

}  // namespace topoplan
