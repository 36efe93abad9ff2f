// Link-load engine (see loads.hpp).
#include "comm/loads.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>

#include "comm/pair_hops.hpp"

#include "topoplan/error.hpp"

namespace topoplan::comm {

double achieved_GBps(const Topology& t, DirLink d) {
  const Link& l = t.properties(link_of(d));
  return l.bw_GBps * (l.efficiency > 0 ? l.efficiency : 1.0);
}

namespace {
// Flows with the same endpoints merged (rings and trees repeat most intra-server pairs across
// channels), so each distinct pair is routed once, in (src, dst) order. Equal pairs are summed
// in ascending weight, an order that does not depend on how the generator listed them. Large
// sets (1.8 million flows for a tree all-reduce over 100,000 GPUs, 550,000 pairs) are bucketed
// by source first, a counting sort over device indices, so only each source's few destinations
// are compared: a comparison sort was an eighth of `collective` there (issue 32). The sort moves
// 4-byte indices, so besides the set only a quarter of its size is held (a bucketed copy of the
// flows was a sixth of the command's peak), and the engine reads the pairs through it without
// writing them (for_each_pair). (An in-place American flag sort measured twice as slow: its
// swaps are a chain of dependent cache misses.)
bool by_pair(const Flow& a, const Flow& b) {
  if (a.src != b.src) return a.src < b.src;
  return a.dst != b.dst ? a.dst < b.dst : a.weight < b.weight;
}

bool same_pair(const Flow& a, const Flow& b) {
  return a.src == b.src && a.dst == b.dst;
}

// flows[from, end) sorted and merged in place.
void merge_tail(std::vector<Flow>& flows, std::size_t from) {
  const auto first = flows.begin() + static_cast<std::ptrdiff_t>(from);
  // A lambda, not the function's address: std::sort inlines it (by_pair called through a
  // pointer was a twentieth of a tree all-reduce over 100,000 GPUs, issue 32).
  std::sort(first, flows.end(), [](const Flow& a, const Flow& b) { return by_pair(a, b); });
  std::size_t k = from;
  for (std::size_t i = from; i < flows.size(); ++i) {
    if (k > from && same_pair(flows[k - 1], flows[i]))
      flows[k - 1].weight += flows[i].weight;
    else
      flows[k++] = flows[i];
  }
  flows.resize(k);
}

// Bucketing clears one counter per device index up to the largest source, so small sets (a TP
// group's few dozen flows with sources near 300,000) sort directly. The bound is a choice, not
// a measurement: either way gives the same order.
constexpr std::size_t kBucketFrom = 4096;

// The indices of `flows` in (src, dst, weight) order: a counting sort by source, then each
// source's few flows compared.
std::vector<std::uint32_t> sorted_order(const std::vector<Flow>& flows) {
  thread_local std::vector<std::uint32_t> start;
  int hi = 0;
  for (const Flow& f : flows) hi = std::max(hi, f.src);
  start.assign(static_cast<std::size_t>(hi) + 2, 0);
  for (const Flow& f : flows) ++start[static_cast<std::size_t>(f.src) + 1];
  for (std::size_t i = 1; i < start.size(); ++i) start[i] += start[i - 1];
  std::vector<std::uint32_t> order(flows.size());
  for (std::size_t i = 0; i < flows.size(); ++i)
    order[start[static_cast<std::size_t>(flows[i].src)]++] = static_cast<std::uint32_t>(i);
  // start[s] is now the end of source s's bucket, start[s - 1] its beginning.
  const auto by_index = [&](std::uint32_t a, std::uint32_t b) {
    return by_pair(flows[a], flows[b]);
  };
  for (std::size_t s = 0, begin = 0; s + 1 < start.size(); begin = start[s++])
    std::sort(order.begin() + static_cast<std::ptrdiff_t>(begin),
              order.begin() + static_cast<std::ptrdiff_t>(start[s]), by_index);
  return order;
}

// visit(pair) for each run of equal (src, dst) pairs along `order`, its copies summed in order.
template <class Visit>
void visit_runs(const std::vector<Flow>& flows, const std::vector<std::uint32_t>& order,
                Visit&& visit) {
  for (std::size_t i = 0; i < order.size();) {
    Flow pair = flows[order[i++]];
    for (; i < order.size() && same_pair(pair, flows[order[i]]); ++i)
      pair.weight += flows[order[i]].weight;
    visit(pair);
  }
}

// visit(pair) for each distinct (src, dst) pair of `flows`, in (src, dst) order, its copies
// summed in ascending weight: what merge() leaves, without making it. A large set's pairs are
// summed as they are read through the sorted index, so its merged copy (550,000 pairs beside
// 600,000 flows for an NVLSTree all-reduce over 100,000 GPUs, 8.8 MB) is never held (issue 32).
// A small set is merged in place and read.
template <class Visit>
void for_each_pair(std::vector<Flow>& flows, Visit&& visit) {
  if (flows.size() < kBucketFrom) {
    merge_tail(flows, 0);
    for (const Flow& f : flows) visit(f);
    return;
  }
  visit_runs(flows, sorted_order(flows), visit);
}

void merge(std::vector<Flow>& flows) {
  if (flows.size() < kBucketFrom) {
    merge_tail(flows, 0);
    return;
  }
  const std::vector<std::uint32_t> order = sorted_order(flows);
  std::size_t pairs = 0;
  for (std::size_t i = 0; i < order.size(); ++i)
    pairs += i == 0 || !same_pair(flows[order[i - 1]], flows[order[i]]) ? 1 : 0;
  std::vector<Flow> merged;
  merged.reserve(pairs);
  visit_runs(flows, order, [&](const Flow& f) { merged.push_back(f); });
  flows.swap(merged);
}

}  // namespace

void merge_stretch(std::vector<Flow>& flows, std::size_t from) {
  if (from == 0)
    merge(flows);
  else
    merge_tail(flows, from);
}

namespace {
// Folds link d carrying `load` per byte into g's bottleneck (the first maximum wins).
void fold_link(const Topology& t, DirLink d, double load, GroupLoad& g) {
  const double bw = achieved_GBps(t, d);
  if (bw <= 0)
    throw InputError("collective: link " + t.device(t.from_device(d)).id + " → " +
                     t.device(t.to_device(d)).id + " has no bandwidth");
  const double us = load / (bw * 1e3);
  if (us > g.us_per_byte) {
    g.us_per_byte = us;
    g.bottleneck = d;
    g.weight = load;
  }
}
}  // namespace

namespace {
// Several threads route a set of at least kSplitFrom flows, kChunkPairs pairs at a time; below
// it a helper's start and hand-offs are not worth it. These are choices, not measurements; the
// answer is the same for any of them.
constexpr std::size_t kSplitFrom = 65536;
constexpr std::size_t kChunkPairs = 4096;
// The calling thread's share of a chunk beside k helpers, (11 - k) / (10k + 11): it also adds
// every pair's hops (about 0.1 of routing them) and a helper routes about 1.1 times slower (its
// worker router's caches start cold), by callgrind's per-thread counts of a tree all-reduce
// over 100,000 GPUs (a 0.3 share left the helper 1.9 times the calling thread's work).
// Past two helpers the calling thread's adding is most of what is left to it.
constexpr int kMaxHelpers = 2;
std::size_t own_share(std::size_t n, std::size_t k) {
  return n * (11 - k) / (10 * k + 11);
}

// Routes a group's pairs, met in (src, dst) order, on the calling thread and `helpers`, and
// adds each pair's hops in that order. A chunk's first share is the calling thread's, the rest
// is cut between the helpers; the helpers route chunk k + 1 while the calling thread adds the
// hops they found in chunk k.
template <class AddPair, class Add>
class SplitRouting {
 public:
  SplitRouting(const std::vector<std::unique_ptr<PairRouter>>& helpers, GroupLoad& g,
               AddPair& add_pair, Add& add)
      : helpers_(helpers), g_(g), add_pair_(add_pair), add_(add) {
    for (auto& c : chunks_) c.reserve(kChunkPairs);
  }
  // Lets the helpers finish what they were given before the chunks go (routing threw).
  ~SplitRouting() {
    for (const auto& h : helpers_) h->drain();
  }
  SplitRouting(const SplitRouting&) = delete;
  SplitRouting& operator=(const SplitRouting&) = delete;

  void push(const Flow& f) {
    chunks_[cur_].push_back(f);
    if (chunks_[cur_].size() == kChunkPairs) flush();
  }

  // Routes what is gathered and adds the last chunk's hops.
  void finish() {
    flush();
    if (pending_) add_helpers(1 - cur_);
    pending_ = false;
  }

 private:
  void flush() {
    std::vector<Flow>& chunk = chunks_[cur_];
    if (chunk.empty()) return;
    const std::size_t n = chunk.size(), k = helpers_.size();
    own_[cur_] = own_share(n, k);
    const std::size_t each = (n - own_[cur_] + k - 1) / k;
    for (std::size_t h = 0, begin = own_[cur_]; h < k; ++h, begin += each) {
      const std::size_t from = std::min(begin, n);
      helpers_[h]->start(chunk.data() + from, std::min(each, n - from));
    }
    if (pending_) add_helpers(1 - cur_);
    for (std::size_t i = 0; i < own_[cur_]; ++i) add_pair_(chunk[i]);
    pending_ = true;
    cur_ = 1 - cur_;
    chunks_[cur_].clear();
  }

  // The helpers' hops of chunk c (the previous one), in pair order.
  void add_helpers(int c) {
    const std::vector<Flow>& chunk = chunks_[c];
    const std::size_t first = own_[c];
    const std::size_t k = helpers_.size(), each = (chunk.size() - first + k - 1) / k;
    for (std::size_t h = 0, begin = first; h < k; ++h, begin += each) {
      const PairRouter::Routed& r = helpers_[h]->wait();
      g_.worst_class = std::max(g_.worst_class, r.classes.worst_class);
      g_.inter_latency_us = std::max(g_.inter_latency_us, r.classes.inter_latency_us);
      for (std::size_t i = 0, from = 0; i < r.ends.size(); from = r.ends[i++])
        for (std::size_t j = from; j < r.ends[i]; ++j) add_(r.hops[j], chunk[begin + i].weight);
      if (r.error) std::rethrow_exception(r.error);
    }
  }

  const std::vector<std::unique_ptr<PairRouter>>& helpers_;
  GroupLoad& g_;
  AddPair& add_pair_;
  Add& add_;
  std::vector<Flow> chunks_[2];
  std::size_t own_[2] = {0, 0};
  int cur_ = 0;
  bool pending_ = false;
};

// Clears the loads a call added, also when routing throws: the arrays are the thread's and the
// next call expects them zero.
struct ClearLoads {
  std::vector<double>& load;
  const std::vector<DirLink>& used;
  ~ClearLoads() {
    for (DirLink d : used) load[static_cast<std::size_t>(d)] = 0;
  }
};
}  // namespace

std::vector<GroupLoad> evaluate_loads(const Router& router, std::size_t groups,
                                      const FlowSource& flows_of, int threads) {
  const Topology& t = router.topology();
  // Dense per-DirLink accumulators, reused between calls on the same thread; `used` lists the
  // entries to clear, so a call costs O(flows × hops), not O(links). `used` holds every group's
  // links back to back (group g's from used_end[g - 1]); it and the shortcut buffer are reused
  // too: a call per pipeline pair or TP group otherwise allocated each of them.
  thread_local std::vector<double> load;
  // The generation (group) that last touched each link: 16 bits, all cleared when the count
  // wraps, so the two arrays are 10 bytes a directed link, not 12 (2.4 MB less a thread at
  // 100,000 GPUs).
  thread_local std::vector<std::uint16_t> stamp;
  thread_local std::uint16_t generation = 0;
  thread_local std::vector<DirLink> used, shortcut;
  thread_local std::vector<std::size_t> used_end;
  const std::size_t dirlinks = 2 * t.link_count();
  if (load.size() < dirlinks) load.resize(dirlinks, 0.0), stamp.resize(dirlinks, 0);
  used.clear();
  used_end.assign(groups, 0);
  std::vector<GroupLoad> out(groups);
  std::vector<Flow> flows;
  std::vector<std::unique_ptr<PairRouter>> helpers;  // made for the first set large enough
  const ClearLoads clear{load, used};
  for (std::size_t g = 0; g < groups; ++g) {
    if (++generation == 0) {
      std::fill(stamp.begin(), stamp.end(), std::uint16_t{0});
      generation = 1;
    }
    flows.clear();
    flows_of(g, flows);
    auto add = [&](DirLink d, double weight) {
      const auto i = static_cast<std::size_t>(d);
      if (stamp[i] != generation) {
        stamp[i] = generation;
        used.push_back(d);
      }
      load[i] += weight;
    };
    auto add_pair = [&](const Flow& f) {
      for (DirLink d : flow_hops(router, f.src, f.dst, out[g], shortcut)) add(d, f.weight);
    };
    // A large set touches most links: its list of them is reserved whole rather than doubled
    // (the doubling held 6.3 MB at its peak for a tree over 100,000 GPUs, the list 4.7 MB).
    // Small sets (a search thread's TP groups) keep theirs small.
    if (flows.size() >= kSplitFrom && used.capacity() < used.size() + dirlinks)
      used.reserve(used.size() + dirlinks);
    if (threads < 2 || flows.size() < kSplitFrom) {
      for_each_pair(flows, add_pair);
    } else {
      while (static_cast<int>(helpers.size()) < std::min(threads - 1, kMaxHelpers))
        helpers.push_back(std::make_unique<PairRouter>(router));
      SplitRouting split(helpers, out[g], add_pair, add);
      for_each_pair(flows, [&](const Flow& f) { split.push(f); });
      split.finish();
    }
    used_end[g] = used.size();
  }
  for (std::size_t g = 0, i = 0; g < groups; ++g)
    for (; i < used_end[g]; ++i)
      fold_link(t, used[i], load[static_cast<std::size_t>(used[i])], out[g]);
  return out;
}

std::vector<GroupLoad> evaluate_loads(const Router& router, std::vector<std::vector<Flow>> flows) {
  return evaluate_loads(router, flows.size(), [&](std::size_t g, std::vector<Flow>& out) {
    out.swap(flows[g]);
    std::vector<Flow>().swap(flows[g]);
  });
}

std::vector<GroupLoad> evaluate_each(const Router& router, std::size_t groups,
                                     const FlowSource& flows_of, int threads) {
  std::vector<GroupLoad> each;
  each.reserve(groups);
  for (std::size_t g = 0; g < groups; ++g)
    each.push_back(
        evaluate_loads(
            router, 1, [&](std::size_t, std::vector<Flow>& out) { flows_of(g, out); }, threads)
            .front());
  return each;
}

GroupLoad evaluate_group(const Router& router, std::vector<Flow> flows) {
  std::vector<std::vector<Flow>> one(1);
  one.front() = std::move(flows);
  return evaluate_loads(router, std::move(one)).front();
}

GroupLoad evaluate_flow(const Router& router, int src, int dst) {
  // evaluate_loads({{Flow{src, dst, 1.0}}}) without its buffers: each hop's load is 1 per time
  // the path crosses it, summed as the engine sums it, folded in order of first crossing.
  thread_local std::vector<DirLink> shortcut;
  GroupLoad out;
  const std::vector<DirLink>& hops = flow_hops(router, src, dst, out, shortcut);
  for (std::size_t i = 0; i < hops.size(); ++i) {
    if (std::find(hops.begin(), hops.begin() + static_cast<std::ptrdiff_t>(i), hops[i]) !=
        hops.begin() + static_cast<std::ptrdiff_t>(i))
      continue;  // folded at its first crossing
    double load = 0;
    for (std::size_t j = i; j < hops.size(); ++j)
      if (hops[j] == hops[i]) load += 1.0;
    fold_link(router.topology(), hops[i], load, out);
  }
  return out;
}

}  // namespace topoplan::comm
