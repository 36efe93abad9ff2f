// Flow generators: what each algorithm sends where, per byte of message.
//
// Weights sum every step and pipeline chunk of the algorithm, so that for a pipelined algorithm
// the transfer time is (most loaded link's weight × size) ÷ its achieved bandwidth.
#include <algorithm>
#include <functional>

#include "comm/loads.hpp"
#include "comm/pattern.hpp"
#include "topoplan/error.hpp"

namespace topoplan::comm {

namespace {
// How channel c crosses server k: NCCL places one channel per NIC and keeps it rail-aligned (it
// enters and leaves a server through the same NIC). `seq` is the visiting order, starting at the
// GPU next to the channel's NIC; `exit` is the GPU whose NIC sends to the next server. When NIC c
// serves several of the group's GPUs the channel leaves from the last of them (exit ==
// seq.back()); when it serves one, the last GPU relays through it over NVLink (PXN, exit ==
// seq.front()), so the ring stays on one rail for any number of servers.
struct ServerPass {
  std::vector<int> seq;
  int exit = -1;
};

ServerPass server_pass(const GroupInfo& g, std::size_t k, int c) {
  const auto& node = g.by_node[k];
  const int m = static_cast<int>(node.size());
  // Distinct NICs in order of first use, in a buffer kept per thread: a tree over 100,000 GPUs
  // asks this 100,000 times (every server, every channel).
  thread_local std::vector<int> nics;
  nics.clear();
  for (int nic : g.nic_of[k])
    if (std::find(nics.begin(), nics.end(), nic) == nics.end()) nics.push_back(nic);
  const int nic = nics[static_cast<std::size_t>(c) % nics.size()];
  // The first and last GPU that use it.
  int enter = -1, leave = -1;
  for (int i = 0; i < m; ++i) {
    if (g.nic_of[k][static_cast<std::size_t>(i)] != nic) continue;
    if (enter < 0) enter = i;
    leave = i;
  }
  ServerPass p;
  p.seq.reserve(static_cast<std::size_t>(m));
  p.seq.push_back(node[static_cast<std::size_t>(enter)]);
  for (int i = 1; i < m; ++i) {
    const int pos = (enter + i) % m;
    if (pos != leave || leave == enter) p.seq.push_back(node[static_cast<std::size_t>(pos)]);
  }
  if (leave != enter) p.seq.push_back(node[static_cast<std::size_t>(leave)]);
  p.exit = node[static_cast<std::size_t>(leave)];
  return p;
}

// Directed edges of channel c's ring (including PXN relays); every edge carries the same bytes.
std::vector<std::pair<int, int>> ring_edges(const GroupInfo& g, int c) {
  std::vector<std::pair<int, int>> edges;
  if (g.nodes == 1) {
    const auto& seq = g.by_node[0];
    for (std::size_t i = 0; i < seq.size(); ++i)
      edges.emplace_back(seq[i], seq[(i + 1) % seq.size()]);
    return edges;
  }
  std::vector<ServerPass> passes;
  for (std::size_t k = 0; k < g.by_node.size(); ++k) passes.push_back(server_pass(g, k, c));
  for (std::size_t k = 0; k < passes.size(); ++k) {
    const ServerPass& p = passes[k];
    for (std::size_t i = 0; i + 1 < p.seq.size(); ++i) edges.emplace_back(p.seq[i], p.seq[i + 1]);
    if (p.exit != p.seq.back()) edges.emplace_back(p.seq.back(), p.exit);  // PXN relay
    edges.emplace_back(p.exit, passes[(k + 1) % passes.size()].seq.front());
  }
  return edges;
}

// A server's merged chain pairs over every channel, kept as positions in its GPU list, with
// each channel's head: what tree_flows makes for every server of the same shape. The shape is
// the number of GPUs and which of them share a NIC (all server_pass reads), and the positions
// keep their order only where the GPU list ascends, so only such servers are taken. A
// 100,000-GPU tree made and sorted 12,500 servers' chains one by one, an eighth of `collective`
// there (issue 32); servers of one shape now cost a copy each.
class ChainShape {
 public:
  bool matches(const GroupInfo& g, std::size_t k) {
    if (!known_ || g.by_node[k].size() != pattern_.size() || !ascending(g.by_node[k])) return false;
    nic_pattern(g, k, scratch_);
    return scratch_ == pattern_;
  }
  // Learns server k's shape from its merged chain pairs out[from, end) and its heads (the last
  // entry of each channel's list).
  void learn(const GroupInfo& g, std::size_t k, const std::vector<Flow>& out, std::size_t from,
             const std::vector<std::vector<int>>& heads) {
    const std::vector<int>& node = g.by_node[k];
    known_ = ascending(node);
    if (!known_) return;
    nic_pattern(g, k, pattern_);
    pairs_.clear();
    for (std::size_t i = from; i < out.size(); ++i)
      pairs_.push_back({position(node, out[i].src), position(node, out[i].dst), out[i].weight});
    heads_.clear();
    for (const std::vector<int>& h : heads) heads_.push_back(position(node, h.back()));
  }
  void emit(const GroupInfo& g, std::size_t k, std::vector<Flow>& out,
            std::vector<std::vector<int>>& heads) const {
    const std::vector<int>& node = g.by_node[k];
    for (const Flow& f : pairs_)
      out.push_back(
          {node[static_cast<std::size_t>(f.src)], node[static_cast<std::size_t>(f.dst)], f.weight});
    for (std::size_t c = 0; c < heads.size(); ++c)
      heads[c].push_back(node[static_cast<std::size_t>(heads_[c])]);
  }

 private:
  static bool ascending(const std::vector<int>& node) {  // strictly
    return std::adjacent_find(node.begin(), node.end(), std::greater_equal<int>()) == node.end();
  }
  // Each GPU's NIC as that NIC's place among the server's distinct NICs in order of first use
  // (server_pass's order), written into `out` (a buffer reused across servers).
  void nic_pattern(const GroupInfo& g, std::size_t k, std::vector<int>& out) {
    distinct_.clear();
    out.clear();
    for (int nic : g.nic_of[k]) {
      const auto at = std::find(distinct_.begin(), distinct_.end(), nic);
      out.push_back(static_cast<int>(at - distinct_.begin()));
      if (at == distinct_.end()) distinct_.push_back(nic);
    }
  }
  static int position(const std::vector<int>& node, int device) {
    return static_cast<int>(std::lower_bound(node.begin(), node.end(), device) - node.begin());
  }

  bool known_ = false;
  std::vector<int> pattern_, scratch_, distinct_;
  std::vector<Flow> pairs_;  // src and dst are positions in the server's GPU list
  std::vector<int> heads_;
};

// Parent of position r in an in-order binary tree over n positions (-1 for the root, 0): r's
// lowest set bit b says its level; the parent is r with that bit cleared and the next one set,
// or just cleared when that falls off the end. Neighbouring positions are linked at the low
// levels, so most edges stay under one leaf switch: this is the layout of NCCL's binary trees
// (src/graph/trees.cc), which matters for contention on spines.
int inorder_parent(int r, int n) {
  if (r == 0) return -1;
  const int bit = r & -r;
  const int up = (r ^ bit) | (bit << 1);
  return up < n ? up : (r ^ bit);
}

// Double binary tree over `heads` (one device per server). The second tree is the first one
// mirrored (even n) or shifted by one (odd n), so that interior nodes of one tree are leaves of
// the other (Sanders, Speck, Träff 2009; NCCL's double binary tree). Each tree carries half the
// data, up (reduce) and down (broadcast).
void double_tree(const std::vector<int>& heads, double weight, std::vector<Flow>& out) {
  const int n = static_cast<int>(heads.size());
  for (int t = 0; t < 2; ++t) {
    // Position → head index for tree t.
    auto at = [&](int pos) {
      const int i = t == 0 ? pos : (n % 2 == 0 ? n - 1 - pos : (pos + 1) % n);
      return heads[static_cast<std::size_t>(i)];
    };
    for (int r = 1; r < n; ++r) {
      const int c = at(r), p = at(inorder_parent(r, n));
      out.push_back({c, p, weight / 2});  // reduce, up
      out.push_back({p, c, weight / 2});  // broadcast, down
    }
  }
}

// Multicast/reduction traffic between one GPU and its NVSwitch(es).
void switch_flows(const Topology& t, int gpu, double up, double down, double eff,
                  std::vector<Flow>& out) {
  for (const auto& [sw, share] : nvswitches_of(t, gpu)) {
    out.push_back({gpu, sw, up * share / eff});
    out.push_back({sw, gpu, down * share / eff});
  }
}
}  // namespace

void ring_flows(const GroupInfo& g, double weight_per_edge, std::vector<Flow>& out) {
  if (g.n < 2) return;
  if (g.direct_mesh) {
    // n − 1 rings, one per outgoing link of each GPU: the complete digraph on n GPUs splits into
    // n − 1 edge-disjoint directed Hamiltonian cycles (Tillson 1980, for n ≠ 4, 6), so NCCL's
    // ring search can give every directed link exactly one channel. The load of that ring set
    // is weight / (n − 1) on every ordered pair, which is what is emitted (for n = 4 or 6 it is
    // the best spread, slightly above what rings can reach).
    const auto& node = g.by_node[0];
    const double w = weight_per_edge / static_cast<double>(node.size() - 1);
    for (int a : node)
      for (int b : node)
        if (a != b) out.push_back({a, b, w});
    return;
  }
  const int channels = g.nodes == 1 ? 1 : g.channels;
  // A ring has n edges plus at most one PXN relay per server: reserved once, since doubling a
  // vector of 900,000 flows (100,000 GPUs, 8 channels) held up to three times the set.
  out.reserve(out.size() +
              static_cast<std::size_t>(channels) * static_cast<std::size_t>(g.n + g.nodes));
  for (int c = 0; c < channels; ++c)
    for (const auto& [a, b] : ring_edges(g, c)) out.push_back({a, b, weight_per_edge / channels});
}

void chain_flows(const GroupInfo& g, int root, std::vector<Flow>& out) {
  if (g.n < 2) return;
  // The ring without the edges into the root: a pipelined chain (a small tree where a PXN relay
  // GPU forwards both inside its server and to the next one); every hop carries the whole buffer.
  const int root_dev = g.gpus[static_cast<std::size_t>(root)];
  const int channels = g.nodes == 1 ? 1 : g.channels;
  for (int c = 0; c < channels; ++c)
    for (const auto& [a, b] : ring_edges(g, c))
      if (b != root_dev) out.push_back({a, b, 1.0 / channels});
}

void tree_flows(const GroupInfo& g, std::vector<Flow>& out, bool reuse_server_shapes) {
  if (g.n < 2) return;
  const int channels = g.nodes == 1 ? 1 : g.channels;
  const double w = 1.0 / channels;
  // Per channel: two flows per chain edge (n − nodes) and two per tree edge, two trees of
  // nodes − 1 edges each. Every channel's chain in a server visits the same GPUs from another
  // start, so most chain pairs repeat in most channels: each server's are merged before the
  // next server's are made (1.8 million flows were 550,000 pairs for 100,000 GPUs, and the set
  // was held whole until evaluate_loads merged it). The trees' flows are reserved exactly
  // (ring_flows says why), and so are the chains' once the first server's are known: servers
  // alike merge to as many pairs each (a doubled vector held 1.5 times the chains' set).
  std::vector<std::vector<int>> heads(static_cast<std::size_t>(channels));
  const std::size_t tree_flows_count =
      static_cast<std::size_t>(channels) * 4 * static_cast<std::size_t>(g.nodes);
  ChainShape shape;
  for (std::size_t k = 0; k < g.by_node.size(); ++k) {
    const std::size_t from = out.size();
    if (reuse_server_shapes && g.nodes > 1 && shape.matches(g, k)) {
      shape.emit(g, k, out, heads);
      continue;
    }
    for (int c = 0; c < channels; ++c) {
      // The intra-server chain starts at the GPU next to the channel's NIC (the head).
      const std::vector<int> chain = g.nodes == 1 ? g.by_node[0] : server_pass(g, k, c).seq;
      for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
        out.push_back({chain[i + 1], chain[i], w});  // reduce towards the head
        out.push_back({chain[i], chain[i + 1], w});  // broadcast back down
      }
      heads[static_cast<std::size_t>(c)].push_back(chain.front());
    }
    // Chain pairs join GPUs of server k only, so all copies of each are in this stretch.
    merge_stretch(out, from);
    if (k == 0) out.reserve(from + (out.size() - from) * g.by_node.size() + tree_flows_count);
    if (g.nodes > 1) shape.learn(g, k, out, from, heads);
  }
  out.reserve(out.size() + tree_flows_count);
  for (const std::vector<int>& h : heads) double_tree(h, w, out);
}

void nvls_flows(const Router& r, const GroupInfo& g, CollOp op, double efficiency,
                std::vector<Flow>& out) {
  // Per GPU (NVLS, multimem ld_reduce + st): reduce-scatter sends its whole buffer up (the switch
  // reads every shard) and receives its reduced shard (1/n); all-gather sends its shard up and
  // receives every shard (the switch multicasts).
  const double n = g.n;
  double up = 1 + 1 / n, down = 1 + 1 / n;
  if (op == CollOp::AllGather) up = 1 / n, down = 1;
  if (op == CollOp::ReduceScatter) up = 1, down = 1 / n;
  for (int gpu : g.gpus) switch_flows(r.topology(), gpu, up, down, efficiency, out);
}

void nvls_tree_flows(const Router& r, const GroupInfo& g, double efficiency,
                     std::vector<Flow>& out) {
  // Inside each server NVLS reduce-scatter + all-gather; between servers, local GPU k owns shard
  // k (1/m of the buffer) and runs a double binary tree with GPU k of every other server.
  // Reserved up front (ring_flows says why): two flows per GPU and NVSwitch (as many switches
  // as the first GPU has), four per tree edge.
  const std::size_t switches = g.gpus.empty() ? 0 : nvswitches_of(r.topology(), g.gpus[0]).size();
  out.reserve(out.size() + 2 * switches * static_cast<std::size_t>(g.n) +
              4 * static_cast<std::size_t>(g.ppn) * g.by_node.size());
  for (const auto& node : g.by_node) {
    const double m = static_cast<double>(node.size());
    for (int gpu : node) switch_flows(r.topology(), gpu, 1 + 1 / m, 1 + 1 / m, efficiency, out);
  }
  const std::size_t heads = static_cast<std::size_t>(g.ppn);
  for (std::size_t k = 0; k < heads; ++k) {
    std::vector<int> ring;
    for (const auto& node : g.by_node) ring.push_back(node[k % node.size()]);
    double_tree(ring, 1.0 / static_cast<double>(heads), out);
  }
}

void collnet_flows(const Router& r, const GroupInfo& g, std::vector<Flow>& out) {
  // CollNetDirect: intra-server reduce-scatter and all-gather (each GPU exchanges its 1/m share
  // with every local peer, twice), and each GPU's reduced shard goes up to the first network
  // switch (SHARP reduces in the switch) and comes back.
  const Topology& t = r.topology();
  for (const auto& node : g.by_node) {
    const double m = static_cast<double>(node.size());
    for (int a : node) {
      for (int b : node)
        if (a != b) out.push_back({a, b, 2 / m});
      const int nic = r.nic_of_gpu(a);
      int leaf = -1;
      for (const Adjacent& adj : t.neighbours(nic))
        if (t.device(adj.device).type == DeviceType::NetSwitch) leaf = adj.device;
      if (leaf < 0) throw InputError("collnet: " + t.device(nic).id + " has no network switch");
      out.push_back({a, leaf, 1 / m});
      out.push_back({leaf, a, 1 / m});
    }
  }
}

void direct_flows(const GroupInfo& g, const TrafficMatrix& weights, std::vector<Flow>& out) {
  for (std::size_t i = 0; i < g.gpus.size(); ++i)
    for (std::size_t j = 0; j < g.gpus.size(); ++j)
      if (i != j && weights[i][j] > 0) out.push_back({g.gpus[i], g.gpus[j], weights[i][j]});
}

}  // namespace topoplan::comm
