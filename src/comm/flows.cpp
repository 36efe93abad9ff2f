// Flow generators: what each algorithm sends where, per byte of message.
//
// Weights sum every step and pipeline chunk of the algorithm, so that for a pipelined algorithm
// the transfer time is (most loaded link's weight × size) ÷ its achieved bandwidth.
#include <algorithm>

#include "comm/pattern.hpp"
#include "topoplan/error.hpp"

namespace topoplan::comm {

namespace {
// Ring order for channel c. Servers alternate direction so that a channel leaves server k and
// enters server k+1 on the same local position, i.e. the same rail/NIC (NCCL keeps rings
// rail-aligned: a channel enters and leaves a server through one NIC). Channel c starts at local
// position c, spreading channels over NICs.
std::vector<int> ring_order(const GroupInfo& g, int c) {
  std::vector<int> seq;
  seq.reserve(g.gpus.size());
  if (g.nodes == 1) return g.by_node[0];
  for (int k = 0; k < g.nodes; ++k) {
    const auto& node = g.by_node[static_cast<std::size_t>(k)];
    const int m = static_cast<int>(node.size());
    const int s = c % m;
    for (int i = 0; i < m; ++i) {
      const int pos = (k % 2 == 0) ? (s + i) % m : ((s - 1 - i) % m + 2 * m) % m;
      seq.push_back(node[static_cast<std::size_t>(pos)]);
    }
  }
  return seq;
}

// Parent of position i in a binary heap over `count` items, or -1 for the root.
int heap_parent(int i) {
  return i == 0 ? -1 : (i - 1) / 2;
}

// Double binary tree over `heads` (one device per server): tree 0 is a heap over the order,
// tree 1 the heap over the reversed order, so most interior nodes of one are leaves of the other
// (NCCL's double binary tree, Sanders et al. 2009). Each tree carries half the data, up and down.
void double_tree(const std::vector<int>& heads, double weight, std::vector<Flow>& out) {
  const int n = static_cast<int>(heads.size());
  for (int t = 0; t < 2; ++t) {
    for (int i = 1; i < n; ++i) {
      const int child = t == 0 ? i : n - 1 - i;
      const int parent = t == 0 ? heap_parent(i) : n - 1 - heap_parent(i);
      const int c = heads[static_cast<std::size_t>(child)];
      const int p = heads[static_cast<std::size_t>(parent)];
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
  const int channels = g.nodes == 1 ? 1 : g.channels;
  for (int c = 0; c < channels; ++c) {
    const std::vector<int> seq = ring_order(g, c);
    for (std::size_t i = 0; i < seq.size(); ++i)
      out.push_back({seq[i], seq[(i + 1) % seq.size()], weight_per_edge / channels});
  }
}

void chain_flows(const GroupInfo& g, int root, std::vector<Flow>& out) {
  if (g.n < 2) return;
  const int root_dev = g.gpus[static_cast<std::size_t>(root)];
  const int channels = g.nodes == 1 ? 1 : g.channels;
  for (int c = 0; c < channels; ++c) {
    std::vector<int> seq = ring_order(g, c);
    std::rotate(seq.begin(), std::find(seq.begin(), seq.end(), root_dev), seq.end());
    for (std::size_t i = 0; i + 1 < seq.size(); ++i)
      out.push_back({seq[i], seq[i + 1], 1.0 / channels});  // the whole buffer passes each hop
  }
}

void tree_flows(const GroupInfo& g, std::vector<Flow>& out) {
  if (g.n < 2) return;
  const int channels = g.nodes == 1 ? 1 : g.channels;
  const double w = 1.0 / channels;
  for (int c = 0; c < channels; ++c) {
    std::vector<int> heads;
    for (const auto& node : g.by_node) {
      const std::size_t m = node.size(), s = static_cast<std::size_t>(c) % m;
      for (std::size_t i = 0; i + 1 < m; ++i) {  // chain head → ... → tail inside the server
        const int a = node[(s + i) % m], b = node[(s + i + 1) % m];
        out.push_back({b, a, w});  // reduce towards the head
        out.push_back({a, b, w});  // broadcast back down
      }
      heads.push_back(node[s]);
    }
    double_tree(heads, w, out);
  }
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
