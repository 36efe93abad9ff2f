// NCCL enable rules, latency and protocol refinements (see nccl_rules.hpp).
#include "comm/nccl_rules.hpp"

#include <algorithm>
#include <cmath>

namespace topoplan::comm {

namespace {
// NCCL algorithm rows of the tuning tables.
constexpr int kTree = 0, kRing = 1, kCollNet = 2, kNvls = 4, kNvlsTree = 5;
constexpr int kHwNvlink = 0, kHwPci = 1, kHwNet = 2;

int row(Algorithm a) {
  switch (a) {
    case Algorithm::Tree:
      return kTree;
    case Algorithm::CollNet:
      return kCollNet;
    case Algorithm::Nvls:
      return kNvls;
    case Algorithm::NvlsTree:
      return kNvlsTree;
    default:
      return kRing;
  }
}
int col(Protocol p) {
  return p == Protocol::LL ? 0 : p == Protocol::LL128 ? 1 : 2;
}
// Levels of NCCL's double binary tree over n servers (src/graph/trees.cc ncclGetBtree: rank 0's
// child is the largest power of two below n, then halving strides): ceil(log2 n) inter-server
// hops from the root to the deepest leaf, for both trees (mirrored or shifted). tuning.cc counts
// log2i(n) = floor(log2 n), one level short when n is not a power of two (3 servers: 0→2→1).
int btree_depth(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}
// NCCL treats NVB as PCI for the intra-node latency class (typeIntra == LINK_NVL test).
int intra_hw(const GroupInfo& g) {
  return g.intra_class <= PathClass::NVL ? kHwNvlink : kHwPci;
}
// Ring-family bus→algorithm bandwidth ratio n/nsteps (nccl-model.md §3.3 step 5).
double ring_bus_to_alg(CollOp op, int n) {
  if (op == CollOp::AllReduce) return n / (2.0 * (n - 1));
  if (op == CollOp::AllGather || op == CollOp::ReduceScatter) return n / (n - 1.0);
  return 1.0;
}
}  // namespace

std::string algorithm_unavailable(Algorithm algo, CollOp op, const GroupInfo& g,
                                  const CollectiveOptions& o, const NcclTuning& tuning) {
  const bool p2p = op == CollOp::AllToAll || op == CollOp::SendRecv;
  const bool ag_rs = op == CollOp::AllGather || op == CollOp::ReduceScatter;
  // NVLS needs NVSwitch multicast (sm90+) and at least two GPUs of the group per server.
  const bool nvls_hw = g.nvswitch && g.min_sm >= tuning.nvls_min_sm && g.min_ppn >= 2;
  switch (algo) {
    case Algorithm::Direct:
      return p2p ? "" : "direct is only for all-to-all and send/recv";
    case Algorithm::Ring:
      return p2p ? "all-to-all and send/recv use direct point-to-point transfers" : "";
    case Algorithm::Tree:
      return op == CollOp::AllReduce ? "" : "tree only implements all-reduce (as in NCCL)";
    case Algorithm::Nvls:
      if (op != CollOp::AllReduce && !ag_rs)
        return "NVLS implements all-reduce/all-gather/reduce-scatter";
      if (!o.allow_nvls) return "NVLS is disabled (--no-nvls)";
      if (!nvls_hw)
        return "NVLS needs every GPU on an NVSwitch, sm90+ and two or more GPUs per server";
      return g.nodes == 1 ? "" : "multi-node NVLS needs CollNet (SHARP); use nvlstree";
    case Algorithm::NvlsTree:
      if (op != CollOp::AllReduce) return "NVLSTree only implements all-reduce";
      if (!o.allow_nvls) return "NVLS is disabled (--no-nvls)";
      if (!nvls_hw)
        return "NVLSTree needs every GPU on an NVSwitch, sm90+ and two or more GPUs per server";
      return g.nodes > 1 ? "" : "NVLSTree is off on a single node (NCCL)";
    case Algorithm::CollNet:
      if (op != CollOp::AllReduce) return "CollNet is modelled for all-reduce only";
      if (!o.fabric_has_sharp) return "CollNet needs in-network reduction (SHARP) on the fabric";
      return g.nodes > 1 ? "" : "CollNet needs several servers";
    case Algorithm::Auto:
      return "auto is not an algorithm";
  }
  return "unknown algorithm";
}

bool protocol_enabled(Algorithm algo, Protocol proto, const GroupInfo& g) {
  if (algo == Algorithm::Nvls || algo == Algorithm::NvlsTree || algo == Algorithm::CollNet)
    return proto == Protocol::Simple;
  if (proto != Protocol::LL128) return true;
  if (algo == Algorithm::Direct) return false;
  // LL128 auto rule (tuning.cc): typeIntra ≤ NVB, typeInter ≤ PXN on sm90+ (PXB before),
  // uniform compute capability (or all sm90+), cc ≥ 70.
  const PathClass inter_max = g.min_sm >= 90 ? PathClass::PXN : PathClass::PXB;
  return g.intra_class <= PathClass::NVB && (g.nodes == 1 || g.net_class <= inter_max) &&
         (g.same_sm || g.min_sm >= 90) && g.min_sm >= 70;
}

double latency_us(Algorithm algo, Protocol proto, CollOp op, const GroupInfo& g, double size_bytes,
                  double inter_phys_us, const NcclTuning& t) {
  const int a = row(algo), p = col(proto);
  const int n = g.n, nodes = g.nodes, ppn = g.ppn;
  double lat = t.base_latency_us[a][p];
  double intra = t.hw_latency_us[intra_hw(g)][a][p];
  // The net step pays NCCL's NET latency plus the routed path's physical latency (twice for
  // Simple, which also flushes: tuning.cc adds latencyInter twice).
  double inter = t.hw_latency_us[kHwNet][ppn == 1 ? kTree : a][p] +
                 inter_phys_us * (proto == Protocol::Simple ? 2 : 1);
  switch (algo) {
    case Algorithm::Ring: {
      if (op == CollOp::Broadcast || op == CollOp::Reduce)  // pipeline fill along the chain
        return lat + (n - nodes) * intra + (nodes - 1) * inter;
      const int steps = op == CollOp::AllReduce ? 2 * (n - 1) : n - 1;
      const int n_inter = nodes == 1 ? 0 : op == CollOp::AllReduce ? 2 * (nodes - 1) : nodes - 1;
      if (nodes > 1) {
        // NCCL_NET_OVERHEAD default: 1 µs (Intel, other), 2 µs on AMD x86 (tuning.cc). The AMD
        // value applies to LL/LL128, whose small steps expose it (2×8 DGX A100 ring LL, 8 B:
        // 93 µs, NVIDIA/nccl#812); Simple keeps 3 × 1 µs: 3 × 2 µs would put 3×8 A100 (AMD) at
        // 128 MB 12% under the measured 96 busbw (nccl-tests#119), where pipelined chunks hide
        // most per-step cost (the same evidence that turns NCCL's ring plateau factor off).
        const bool amd = g.amd_cpu && proto != Protocol::Simple;
        const double overhead = amd ? t.net_overhead_amd_us : t.net_overhead_us;
        intra = std::max(intra, overhead * (proto == Protocol::Simple ? 3 : 1));
      }
      lat += (steps - n_inter) * intra + n_inter * inter;
      // Ring "plateau" (tuning.cc): NCCL's ranking factor, 1.0 in our data (see nccl.json).
      if (proto == Protocol::Simple && op == CollOp::AllReduce && nodes > 1 &&
          size_bytes / (g.channels * n) >= 64)
        lat *= t.ring_plateau_factor;
      return lat;
    }
    case Algorithm::Tree:
      return lat + 2 * ((ppn - 1) * intra + btree_depth(nodes) * inter);
    case Algorithm::CollNet:  // tuning.cc CollNetDirect: 0.4 µs per extra local rank
      return lat + 2 * (std::min(1, ppn - 1) * intra + (ppn - 1) * 0.4) + inter;
    case Algorithm::Nvls:
      return intra + (nodes > 1 ? inter : 0);
    case Algorithm::NvlsTree:
      return lat + intra + 2 * btree_depth(nodes) * inter;
    case Algorithm::Direct: {  // one round of concurrent p2p transfers
      const int hw = g.nodes > 1 ? kHwNet : intra_hw(g);
      return t.base_latency_us[kRing][p] + t.hw_latency_us[hw][kRing][p] +
             (g.nodes > 1 ? inter_phys_us : 0);
    }
    case Algorithm::Auto:
      break;
  }
  return lat;
}

double protocol_algbw_GBps(Algorithm algo, Protocol proto, CollOp op, const GroupInfo& g,
                           double alg, const NcclTuning& t) {
  const double ll_max = t.ll_max_GBps[g.arch][g.scale];
  switch (algo) {
    case Algorithm::Ring:
      if (proto == Protocol::LL)
        return std::min(t.ll_bw_factor * alg, ll_max * ring_bus_to_alg(op, g.n));
      if (proto == Protocol::LL128) {
        // Multi-node: NCCL caps LL128 at nCh × perChMaxRingLL128Bw, one channel per NIC.
        const double bw = t.ll128_bw_factor * alg;
        if (g.nodes == 1) return bw;
        return std::min(bw, g.channels * t.per_ch_max_ring_ll128_GBps[g.arch][g.scale] *
                                ring_bus_to_alg(op, g.n));
      }
      return t.simple_bw_factor * alg;
    case Algorithm::Tree: {
      // Tree bus→alg ratio is ½ (§3.3 step 5); per-channel caps apply per NIC channel.
      if (proto == Protocol::LL) return std::min(alg / t.tree_ll_divisor, ll_max * 0.5);
      if (proto == Protocol::LL128) {
        // ncclTopoTuneModel: × 7/9 on one node, × 120/128 across nodes (nccl-model.md §3.3 step 4).
        if (g.nodes == 1) return alg * 7.0 / 9.0;
        return std::min(alg * 120.0 / 128.0,
                        g.channels * t.per_ch_max_tree_ll128_GBps[g.arch][g.scale] * 0.5);
      }
      double bw = t.ll128_bw_factor * alg;  // Tree all-reduce: min(0.92 × busBw, ...)
      if (g.nodes > 1)
        bw = std::min(bw, g.channels * t.per_ch_max_tree_GBps[g.arch][g.scale] * 0.5);
      return bw;
    }
    case Algorithm::Direct:
      return proto == Protocol::LL ? t.ll_bw_factor * alg : t.simple_bw_factor * alg;
    default:
      return t.simple_bw_factor * alg;
  }
}

Protocol p2p_protocol(double bytes_per_peer, const NcclTuning& t) {
  return bytes_per_peer <= t.p2p_ll_threshold_bytes ? Protocol::LL : Protocol::Simple;
}

}  // namespace topoplan::comm
