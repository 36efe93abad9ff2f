// CollectiveModel: candidate (algorithm, protocol) pairs priced on routed link loads, fastest
// chosen as NCCL does; link-load patterns cached per (op, groups, algorithm).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "comm/closed_form.hpp"
#include "comm/loads.hpp"
#include "comm/nccl_rules.hpp"
#include "comm/pattern.hpp"
#include "topoplan/error.hpp"
#include "topoplan/units.hpp"

namespace topoplan {

using comm::Flow;
using comm::GroupInfo;
using comm::GroupLoad;

namespace {
constexpr Algorithm kAlgos[] = {Algorithm::Ring,     Algorithm::Tree,    Algorithm::Nvls,
                                Algorithm::NvlsTree, Algorithm::CollNet, Algorithm::Direct};
constexpr Protocol kProtos[] = {Protocol::LL, Protocol::LL128, Protocol::Simple};

// One cached evaluation: the groups' shapes and, per algorithm, their link loads.
struct Pattern {
  std::vector<GroupInfo> groups;
  std::map<Algorithm, std::vector<GroupLoad>> loads;
};

std::vector<Flow> flows_for(const Router& r, Algorithm a, CollOp op, const GroupInfo& g, int root,
                            const NcclTuning& t) {
  std::vector<Flow> f;
  const double n = g.n;
  switch (a) {
    case Algorithm::Ring:
      if (op == CollOp::Broadcast || op == CollOp::Reduce) {
        comm::chain_flows(g, root, f);
        if (op == CollOp::Reduce)
          for (Flow& x : f) std::swap(x.src, x.dst);
      } else {  // nsteps chunks of S/n cross every ring edge
        comm::ring_flows(g, (op == CollOp::AllReduce ? 2 * (n - 1) : n - 1) / n, f);
      }
      break;
    case Algorithm::Tree:
      comm::tree_flows(g, f);
      break;
    case Algorithm::Nvls:
      comm::nvls_flows(r, g, op, t.nvls_efficiency[g.arch], f);
      break;
    case Algorithm::NvlsTree:
      comm::nvls_tree_flows(r, g, t.nvls_efficiency[g.arch], f);
      break;
    case Algorithm::CollNet:
      comm::collnet_flows(r, g, f);
      break;
    case Algorithm::Direct:
      break;  // built by the caller from the traffic matrix
    case Algorithm::Auto:
      break;
  }
  return f;
}

// Unit traffic of uniform all-to-all (1/n to every rank, the own share stays local) or of a
// send/recv pair (everything from rank 0 to rank 1).
TrafficMatrix unit_matrix(CollOp op, std::size_t n) {
  if (op == CollOp::SendRecv) {
    if (n != 2) throw InputError("send-recv needs exactly two ranks (source, destination)");
    return {{0, 1}, {0, 0}};
  }
  return TrafficMatrix(n, std::vector<double>(n, 1.0 / static_cast<double>(n)));
}

BottleneckLink describe(const Topology& t, const GroupLoad& l, double size, double ratio,
                        double time_us) {
  BottleneckLink b;
  if (l.bottleneck < 0) return b;
  const Link& link = t.link(link_of(l.bottleneck));
  b.dirlink = l.bottleneck;
  b.from = t.device(t.from_device(l.bottleneck)).id;
  b.to = t.device(t.to_device(l.bottleneck)).id;
  b.type = link.type;
  b.kind = link.kind;
  b.load_bytes = l.weight * size;
  b.achieved_GBps = comm::achieved_GBps(t, l.bottleneck) * ratio;
  b.utilisation =
      time_us > 0 ? std::min(1.0, transfer_us(b.load_bytes, b.achieved_GBps) / time_us) : 0;
  return b;
}
}  // namespace

struct CollectiveModel::Impl {
  const Router& router;
  const NcclTuning& tuning;
  mutable std::map<std::vector<int>, Pattern> cache;

  static std::vector<int> key(CollOp op, int root, const std::vector<std::vector<int>>& groups) {
    std::vector<int> k{static_cast<int>(op), root};
    for (const auto& g : groups) {
      k.insert(k.end(), g.begin(), g.end());
      k.push_back(-1);
    }
    return k;
  }

  Pattern make_pattern(const std::vector<std::vector<int>>& groups) const {
    Pattern p;
    for (const auto& g : groups) p.groups.push_back(comm::analyse_group(router, g));
    return p;
  }

  // Link loads of algorithm `a`; `fast` allows the closed form for symmetric groups.
  const std::vector<GroupLoad>& loads(Pattern& p, Algorithm a, CollOp op, int root,
                                      bool fast) const {
    auto it = p.loads.find(a);
    if (it != p.loads.end()) return it->second;
    if (fast && p.groups.size() == 1) {
      const GroupInfo& g = p.groups.front();
      if (auto l = comm::closed_form_load(router, g, a, op, tuning.nvls_efficiency[g.arch]))
        return p.loads.emplace(a, std::vector<GroupLoad>{*l}).first->second;
    }
    std::vector<std::vector<Flow>> flows;
    for (const GroupInfo& g : p.groups) flows.push_back(flows_for(router, a, op, g, root, tuning));
    return p.loads.emplace(a, comm::evaluate_loads(router, flows)).first->second;
  }

  // Direct (p2p) transfers of every group at once; weights[i] per byte of message.
  std::vector<GroupLoad> direct_loads(const Pattern& p, const std::vector<TrafficMatrix>& w) const {
    std::vector<std::vector<Flow>> flows(p.groups.size());
    for (std::size_t i = 0; i < p.groups.size(); ++i)
      comm::direct_flows(p.groups[i], w[i], flows[i]);
    return comm::evaluate_loads(router, flows);
  }

  // A p2p-based collective: NCCL uses LL up to NCCL_P2P_LL_THRESHOLD bytes per peer.
  CollectiveCost p2p(const GroupInfo& g, const GroupLoad& l, CollOp op, double size,
                     double bytes_per_peer, const CollectiveOptions& o) const {
    if (o.algorithm != Algorithm::Auto && o.algorithm != Algorithm::Direct)
      throw InputError("--algo", "",
                       std::string(to_string(op)) + " uses direct point-to-point transfers");
    const Protocol pr =
        o.protocol == Protocol::Auto ? comm::p2p_protocol(bytes_per_peer, tuning) : o.protocol;
    if (pr == Protocol::LL128) throw InputError("--proto", "", "point-to-point uses LL or Simple");
    return one(g, l, op, Algorithm::Direct, pr, size);
  }

  // Prices every enabled (algorithm, protocol) and keeps the one whose slowest group is fastest.
  std::vector<CollectiveCost> price(Pattern& p, CollOp op, double size, const CollectiveOptions& o,
                                    bool fast) const;
  CollectiveCost one(const GroupInfo& g, const GroupLoad& l, CollOp op, Algorithm a, Protocol pr,
                     double size) const;
};

CollectiveCost CollectiveModel::Impl::one(const GroupInfo& g, const GroupLoad& l, CollOp op,
                                          Algorithm a, Protocol pr, double size) const {
  CollectiveCost c;
  c.op = op;
  c.size_bytes = size;
  c.ranks = g.n;
  c.algorithm = a;
  c.protocol = pr;
  c.channels = g.nodes == 1 ? 1 : g.channels;
  if (g.n < 2) return c;  // a single rank moves nothing
  const double simple_alg = l.us_per_byte > 0 ? 1.0 / (l.us_per_byte * 1e3) : 0;
  const double alg = simple_alg > 0 ? comm::protocol_algbw_GBps(a, pr, op, g, simple_alg, tuning)
                                    : std::numeric_limits<double>::infinity();
  c.latency_us = comm::latency_us(a, pr, op, g, size, l.inter_latency_us, tuning);
  c.time_us = c.latency_us + (std::isinf(alg) ? 0 : transfer_us(size, alg));
  c.algbw_GBps = c.time_us > 0 ? achieved_GBps(size, c.time_us) : 0;
  c.busbw_GBps = c.algbw_GBps * busbw_factor(op, g.n);
  c.bottleneck =
      describe(router.topology(), l, size, simple_alg > 0 ? alg / simple_alg : 1, c.time_us);
  return c;
}

std::vector<CollectiveCost> CollectiveModel::Impl::price(Pattern& p, CollOp op, double size,
                                                         const CollectiveOptions& o,
                                                         bool fast) const {
  if (!(size >= 0) || !std::isfinite(size)) throw InputError("collective: size must be ≥ 0 bytes");
  std::vector<CollectiveCost> best;
  double best_time = std::numeric_limits<double>::infinity();
  std::string why_not;
  for (Algorithm a : kAlgos) {
    if (o.algorithm != Algorithm::Auto && a != o.algorithm) continue;
    if (a == Algorithm::Direct) continue;  // priced by all_to_all / send_recv
    std::string why;
    for (const GroupInfo& g : p.groups)
      if (why.empty()) why = comm::algorithm_unavailable(a, op, g, o, tuning);
    if (!why.empty()) {
      why_not = why;
      continue;
    }
    for (Protocol pr : kProtos) {
      if (o.protocol != Protocol::Auto && pr != o.protocol) continue;
      bool ok = true;
      for (const GroupInfo& g : p.groups) ok = ok && comm::protocol_enabled(a, pr, g);
      if (!ok) {
        why_not = std::string(to_string(pr)) + " is not enabled for " + std::string(to_string(a)) +
                  " on this group (NCCL's rules)";
        continue;
      }
      const auto& l = loads(p, a, op, o.root, fast);
      std::vector<CollectiveCost> costs;
      double worst = 0;
      for (std::size_t i = 0; i < p.groups.size(); ++i) {
        costs.push_back(one(p.groups[i], l[i], op, a, pr, size));
        worst = std::max(worst, costs.back().time_us);
      }
      if (worst < best_time) best_time = worst, best = std::move(costs);
    }
  }
  if (best.empty())
    throw InputError("--algo/--proto", "",
                     "cannot run " + std::string(to_string(op)) + ": " + why_not);
  return best;
}

CollectiveModel::CollectiveModel(const Router& router, const NcclTuning& tuning)
    : impl_(std::make_unique<Impl>(Impl{router, tuning, {}})) {}
CollectiveModel::~CollectiveModel() = default;
CollectiveModel::CollectiveModel(CollectiveModel&&) noexcept = default;
CollectiveModel& CollectiveModel::operator=(CollectiveModel&&) noexcept = default;
const Router& CollectiveModel::router() const {
  return impl_->router;
}
const NcclTuning& CollectiveModel::tuning() const {
  return impl_->tuning;
}

CollectiveCost CollectiveModel::cost(CollOp op, const std::vector<int>& gpus, double size_bytes,
                                     const CollectiveOptions& options) const {
  return cost_concurrent(op, {gpus}, size_bytes, options).front();
}

std::vector<CollectiveCost> CollectiveModel::cost_concurrent(
    CollOp op, const std::vector<std::vector<int>>& groups, double size_bytes,
    const CollectiveOptions& options) const {
  if (groups.empty()) throw InputError("collective: no groups given");
  if (op == CollOp::AllToAll || op == CollOp::SendRecv) {
    // Uniform all-to-all: S/n to every peer (S = a rank's send buffer); send/recv: S from the
    // first rank to the second. Loads are cached like the other patterns.
    auto [it, fresh] = impl_->cache.try_emplace(Impl::key(op, 0, groups));
    if (fresh) {
      std::vector<TrafficMatrix> unit;
      for (const auto& g : groups) unit.push_back(unit_matrix(op, g.size()));
      it->second = impl_->make_pattern(groups);
      it->second.loads.emplace(Algorithm::Direct, impl_->direct_loads(it->second, unit));
    }
    std::vector<CollectiveCost> out;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const double peer =
          op == CollOp::SendRecv ? size_bytes : size_bytes / static_cast<double>(groups[i].size());
      out.push_back(impl_->p2p(it->second.groups[i], it->second.loads.at(Algorithm::Direct)[i], op,
                               size_bytes, peer, options));
    }
    return out;
  }
  if (options.root < 0 || std::any_of(groups.begin(), groups.end(), [&](const auto& g) {
        return options.root >= static_cast<int>(g.size());
      }))
    throw InputError("--root", "", "root rank is outside the group");
  const int root = (op == CollOp::Broadcast || op == CollOp::Reduce) ? options.root : 0;
  auto [it, fresh] = impl_->cache.try_emplace(Impl::key(op, root, groups));
  if (fresh) it->second = impl_->make_pattern(groups);
  return impl_->price(it->second, op, size_bytes, options, true);
}

CollectiveCost CollectiveModel::cost_uncached(CollOp op, const std::vector<int>& gpus,
                                              double size_bytes,
                                              const CollectiveOptions& options) const {
  if (op == CollOp::AllToAll || op == CollOp::SendRecv) return cost(op, gpus, size_bytes, options);
  Pattern p = impl_->make_pattern({gpus});
  return impl_->price(p, op, size_bytes, options, false).front();
}

}  // namespace topoplan

namespace topoplan {

namespace {
// nccl-tests alltoallv size of a traffic matrix: the largest per-rank send or receive volume;
// also the largest single peer transfer (for the p2p protocol choice).
std::pair<double, double> alltoallv_size(const TrafficMatrix& bytes, std::size_t ranks) {
  if (bytes.size() != ranks ||
      std::any_of(bytes.begin(), bytes.end(), [&](const auto& r) { return r.size() != ranks; }))
    throw InputError("all-to-all: the traffic matrix must be ranks × ranks");
  double size = 0, peer_max = 0;
  std::vector<double> recv(ranks, 0.0);
  for (std::size_t i = 0; i < ranks; ++i) {
    double send = 0;
    for (std::size_t j = 0; j < ranks; ++j) {
      if (!(bytes[i][j] >= 0) || !std::isfinite(bytes[i][j]))
        throw InputError("all-to-all: negative, infinite or NaN bytes in the traffic matrix");
      send += bytes[i][j], recv[j] += bytes[i][j];
      if (i != j) peer_max = std::max(peer_max, bytes[i][j]);
    }
    size = std::max(size, send);
  }
  for (double r : recv) size = std::max(size, r);
  return {size, peer_max};
}
}  // namespace

CollectiveCost CollectiveModel::all_to_all(const std::vector<int>& gpus, const TrafficMatrix& bytes,
                                           const CollectiveOptions& options) const {
  return all_to_all_concurrent({gpus}, {bytes}, options).front();
}

std::vector<CollectiveCost> CollectiveModel::all_to_all_concurrent(
    const std::vector<std::vector<int>>& groups, const std::vector<TrafficMatrix>& bytes,
    const CollectiveOptions& options) const {
  if (groups.empty() || groups.size() != bytes.size())
    throw InputError("all-to-all: give one traffic matrix per group");
  Pattern p = impl_->make_pattern(groups);
  std::vector<std::pair<double, double>> sizes;
  std::vector<TrafficMatrix> w = bytes;  // weights per byte of each group's size
  for (std::size_t g = 0; g < groups.size(); ++g) {
    sizes.push_back(alltoallv_size(bytes[g], groups[g].size()));
    for (auto& r : w[g])
      for (double& x : r) x = sizes[g].first > 0 ? x / sizes[g].first : 0;
  }
  const std::vector<GroupLoad> loads = impl_->direct_loads(p, w);
  std::vector<CollectiveCost> out;
  for (std::size_t g = 0; g < groups.size(); ++g)
    out.push_back(impl_->p2p(p.groups[g], loads[g], CollOp::AllToAll, sizes[g].first,
                             sizes[g].second, options));
  return out;
}

CollectiveCost CollectiveModel::send_recv(int src_gpu, int dst_gpu, double bytes,
                                          const CollectiveOptions& options) const {
  return cost(CollOp::SendRecv, {src_gpu, dst_gpu}, bytes, options);
}

}  // namespace topoplan
