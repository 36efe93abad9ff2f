// CollectiveModel: candidate (algorithm, protocol) pairs priced on routed link loads, fastest
// chosen as NCCL does; link-load patterns cached per (op, groups, algorithm).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "comm/closed_form.hpp"
#include "comm/model_impl.hpp"
#include "comm/nccl_rules.hpp"
#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/units.hpp"

namespace topoplan {

using comm::Flow;
using comm::GroupInfo;
using comm::GroupLoad;

namespace {

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
    if (n != 2)
      throw InputError(
          "send-recv needs exactly two ranks (source, destination), or the ring pattern");
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

std::vector<int> CollectiveModel::Impl::key(CollOp op, int root,
                                            const std::vector<std::vector<int>>& groups, int tag) {
  std::vector<int> k{static_cast<int>(op), root, tag};
  for (const auto& g : groups) {
    k.insert(k.end(), g.begin(), g.end());
    k.push_back(-1);
  }
  return k;
}

std::shared_ptr<comm::GroupAnalysis> CollectiveModel::Impl::analyse(
    const std::vector<std::vector<int>>& groups) const {
  auto [it, fresh] = analyses.try_emplace(key(CollOp::AllReduce, 0, groups, 0));
  if (fresh) it->second = make_analysis(groups);
  return it->second;
}

std::shared_ptr<comm::GroupAnalysis> CollectiveModel::Impl::make_analysis(
    const std::vector<std::vector<int>>& groups) const {
  auto a = std::make_shared<comm::GroupAnalysis>();
  std::vector<
      std::tuple<int, int, int, int, int, bool, int, int, PathClass, PathClass, bool, int, bool>>
      shapes;
  for (const auto& g : groups) {
    a->groups.push_back(comm::analyse_group(router, g, servers_alike()));
    const GroupInfo& x = a->groups.back();
    shapes.emplace_back(x.n, x.nodes, x.min_ppn, x.ppn, x.min_sm, x.same_sm, x.arch, x.scale,
                        x.intra_class, x.net_class, x.nvswitch, x.channels, x.amd_cpu);
  }
  a->info_reps = comm::first_of_each(shapes, &a->info_class);
  return a;
}

std::shared_ptr<CollectiveModel::Impl::Pattern> CollectiveModel::Impl::cached_ptr(
    CollOp op, int root, const std::vector<std::vector<int>>& groups, int tag) const {
  auto [it, fresh] = cache.try_emplace(key(op, root, groups, tag));
  if (fresh) {
    it->second = std::make_shared<Pattern>();
    it->second->shared = analyse(groups);
    it->second->independent = tag == 1;
  }
  return it->second;
}

CollectiveModel::Impl::Pattern& CollectiveModel::Impl::cached(
    CollOp op, int root, const std::vector<std::vector<int>>& groups, int tag) const {
  return *cached_ptr(op, root, groups, tag);
}

// The key of `a`'s loads in the analysis shared by every op on these groups: all-gather and
// reduce-scatter rings send (n - 1)/n per ring edge alike, so they share one load.
CollectiveModel::Impl::SharedKey CollectiveModel::Impl::shared_key(const Pattern& p, Algorithm a,
                                                                   CollOp op, int root) {
  const bool same_ring =
      a == Algorithm::Ring && (op == CollOp::AllGather || op == CollOp::ReduceScatter);
  return std::make_tuple(a, same_ring ? -1 : static_cast<int>(op), root, p.independent);
}

// Whether loads() has `a`'s loads already (this pattern's or the shared analysis'): a lookup,
// no closed form tried, since choose() asks it of every candidate on every call.
bool CollectiveModel::Impl::loads_known(const Pattern& p, Algorithm a, CollOp op, int root) const {
  return p.loads.count(a) || p.shared->loads.count(shared_key(p, a, op, root));
}

// Whether loads() answers `a` without the engine: known, or a closed form applies.
bool CollectiveModel::Impl::loads_ready(const Pattern& p, Algorithm a, CollOp op, int root,
                                        bool fast) const {
  if (loads_known(p, a, op, root)) return true;
  if (!fast || p.shared->groups.size() != 1) return false;
  const GroupInfo& g = p.shared->groups.front();
  return comm::closed_form_load(router, g, a, op, tuning.nvls_efficiency[g.arch]).has_value();
}

// The engine's loads of `a` on router `r` (this model's, or a worker's on another thread): it
// reads the pattern and writes nothing shared.
std::vector<GroupLoad> CollectiveModel::Impl::compute_loads(const Router& r, const Pattern& p,
                                                            Algorithm a, CollOp op,
                                                            int root) const {
  return evaluate_set(r, p, [&](std::size_t g, std::vector<Flow>& out) {
    out = flows_for(r, a, op, p.shared->groups[g], root, tuning);
  });
}

// The pattern's groups on the engine: together (they run at once) or each alone.
std::vector<GroupLoad> CollectiveModel::Impl::evaluate_set(const Router& r, const Pattern& p,
                                                           const comm::FlowSource& flows_of) {
  const std::size_t n = p.shared->groups.size();
  return p.independent ? comm::evaluate_each(r, n, flows_of, p.threads)
                       : comm::evaluate_loads(r, n, flows_of, p.threads);
}

const std::vector<GroupLoad>& CollectiveModel::Impl::store_loads(
    Pattern& p, Algorithm a, CollOp op, int root, std::vector<GroupLoad> each) const {
  p.shared->loads.emplace(shared_key(p, a, op, root), each);
  return p.loads.emplace(a, std::move(each)).first->second;
}

const std::vector<GroupLoad>& CollectiveModel::Impl::loads(Pattern& p, Algorithm a, CollOp op,
                                                           int root, bool fast) const {
  auto it = p.loads.find(a);
  if (it != p.loads.end()) return it->second;
  if (fast && p.shared->groups.size() == 1) {
    const GroupInfo& g = p.shared->groups.front();
    if (auto l = comm::closed_form_load(router, g, a, op, tuning.nvls_efficiency[g.arch]))
      return p.loads.emplace(a, std::vector<GroupLoad>{*l}).first->second;
  }
  auto& known = p.shared->loads;
  if (auto k = known.find(shared_key(p, a, op, root)); k != known.end())
    return p.loads.emplace(a, k->second).first->second;
  return store_loads(p, a, op, root, compute_loads(router, p, a, op, root));
}

const std::vector<int>& CollectiveModel::Impl::reps(Pattern& p, Algorithm a, CollOp op, int root,
                                                    bool fast) const {
  auto it = p.reps.find(a);
  if (it != p.reps.end()) return it->second;
  const std::vector<GroupLoad>& l = loads(p, a, op, root, fast);
  std::vector<std::tuple<int, double, double, double, double>> keys;
  for (std::size_t g = 0; g < p.shared->groups.size(); ++g)
    keys.emplace_back(p.shared->info_class[g], l[g].us_per_byte, l[g].inter_latency_us,
                      p.size_factor.empty() ? 1.0 : p.size_factor[g],
                      p.peer_factor.empty() ? 1.0 : p.peer_factor[g]);
  return p.reps.emplace(a, comm::first_of_each(keys)).first->second;
}

std::vector<GroupLoad> CollectiveModel::Impl::direct_loads(
    const Pattern& p, const std::vector<TrafficMatrix>& w) const {
  return evaluate_set(router, p, [&](std::size_t g, std::vector<Flow>& out) {
    comm::direct_flows(p.shared->groups[g], w[g], out);
  });
}

void CollectiveModel::Impl::add_direct(Pattern& p, const std::vector<TrafficMatrix>& w) const {
  p.loads.emplace(Algorithm::Direct, direct_loads(p, w));
}

// A p2p-based collective: NCCL uses LL up to NCCL_P2P_LL_THRESHOLD bytes per peer.
CollectiveCost CollectiveModel::Impl::p2p(const GroupInfo& g, const GroupLoad& l, CollOp op,
                                          double size, double bytes_per_peer,
                                          const CollectiveOptions& o) const {
  if (o.algorithm != Algorithm::Auto && o.algorithm != Algorithm::Direct)
    throw FieldError("algorithm",
                     std::string(to_string(op)) + " uses direct point-to-point transfers");
  const Protocol pr =
      o.protocol == Protocol::Auto ? comm::p2p_protocol(bytes_per_peer, tuning) : o.protocol;
  if (pr == Protocol::LL128) throw FieldError("protocol", "point-to-point uses LL or Simple");
  return one(g, l, op, Algorithm::Direct, pr, size);
}

// Group g of a direct set at `size`: uniform all-to-all sends size/n to each peer, send/recv the
// whole size; a prepared all-to-all scales its matrices (size_factor, peer_factor per byte).
CollectiveCost CollectiveModel::Impl::p2p_of(const Pattern& p, int g, CollOp op, double size,
                                             const CollectiveOptions& o) const {
  const auto i = static_cast<std::size_t>(g);
  const GroupLoad& l = p.loads.at(Algorithm::Direct)[i];
  if (!p.size_factor.empty())
    return p2p(p.shared->groups[i], l, op, size * p.size_factor[i], size * p.peer_factor[i], o);
  const double peer =
      op == CollOp::SendRecv ? size : size / static_cast<double>(p.shared->groups[i].n);
  return p2p(p.shared->groups[i], l, op, size, peer, o);
}

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
  const Choice c = choose(p, op, size, o, fast);
  const auto& l = p.loads.at(c.algorithm);
  std::vector<CollectiveCost> out;
  out.reserve(p.shared->groups.size());
  for (std::size_t g = 0; g < p.shared->groups.size(); ++g)
    out.push_back(one(p.shared->groups[g], l[g], op, c.algorithm, c.protocol, size));
  return out;
}

CollectiveModel::CollectiveModel(const Router& router, const NcclTuning& tuning)
    : impl_(std::make_unique<Impl>(Impl{router, tuning, {}, {}, {}, -1})) {}
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

// Uniform all-to-all: S/n to every peer (S = a rank's send buffer); send/recv: S from the first
// rank to the second.
// A direct collective (all-to-all) moves one flow per ordered pair of ranks, and its traffic
// matrix is n x n: 20,000 ranks were 4 x 10^8 flows, 112 s and 15.6 GB. Refused past
// limits::kMaxDirectPairs before the matrix is allocated.
namespace {
void check_direct_size(const std::vector<comm::GroupInfo>& groups, CollOp op) {
  std::size_t pairs = 0;
  for (const GroupInfo& g : groups) pairs += g.gpus.size() * g.gpus.size();
  if (pairs > limits::kMaxDirectPairs)
    throw InputError("collective", "",
                     std::string(to_string(op)) + " over " + std::to_string(groups.front().n) +
                         " ranks needs " + std::to_string(pairs) + " rank pairs, more than " +
                         std::to_string(limits::kMaxDirectPairs) + " (docs/limits.md)");
}
}  // namespace

void CollectiveModel::Impl::add_uniform_direct(Pattern& p, CollOp op) const {
  if (p.loads.count(Algorithm::Direct)) return;
  check_direct_size(p.shared->groups, op);
  std::vector<TrafficMatrix> unit;
  for (const GroupInfo& g : p.shared->groups) unit.push_back(unit_matrix(op, g.gpus.size()));
  add_direct(p, unit);
}

std::vector<CollectiveCost> CollectiveModel::cost_concurrent(
    CollOp op, const std::vector<std::vector<int>>& groups, double size_bytes,
    const CollectiveOptions& options) const {
  return prepare(op, groups, options).each(size_bytes);
}

CollectiveCost CollectiveModel::cost_uncached(CollOp op, const std::vector<int>& gpus,
                                              double size_bytes,
                                              const CollectiveOptions& options) const {
  // Point-to-point kinds have no closed form or cache to bypass.
  if (op == CollOp::AllToAll || op == CollOp::SendRecv || op == CollOp::Gather ||
      op == CollOp::Scatter || op == CollOp::Hypercube)
    return cost(op, gpus, size_bytes, options);
  Impl::Pattern p;
  p.shared = impl_->make_analysis({gpus});
  return impl_->price(p, op, size_bytes, options, false).front();
}

}  // namespace topoplan

namespace topoplan {

std::pair<double, double> comm::alltoallv_size(const TrafficMatrix& bytes, std::size_t ranks) {
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

CollectiveCost CollectiveModel::all_to_all(const std::vector<int>& gpus, const TrafficMatrix& bytes,
                                           const CollectiveOptions& options) const {
  return all_to_all_concurrent({gpus}, {bytes}, options).front();
}

std::vector<CollectiveCost> CollectiveModel::all_to_all_concurrent(
    const std::vector<std::vector<int>>& groups, const std::vector<TrafficMatrix>& bytes,
    const CollectiveOptions& options) const {
  if (groups.empty() || groups.size() != bytes.size())
    throw InputError("all-to-all: give one traffic matrix per group");
  Impl::Pattern p = impl_->make_pattern(groups);
  std::vector<std::pair<double, double>> sizes;
  std::vector<TrafficMatrix> w = bytes;  // weights per byte of each group's size
  for (std::size_t g = 0; g < groups.size(); ++g) {
    sizes.push_back(comm::alltoallv_size(bytes[g], groups[g].size()));
    for (auto& r : w[g])
      for (double& x : r) x = sizes[g].first > 0 ? x / sizes[g].first : 0;
  }
  const std::vector<GroupLoad> loads = impl_->direct_loads(p, w);
  std::vector<CollectiveCost> out;
  for (std::size_t g = 0; g < groups.size(); ++g)
    out.push_back(impl_->p2p(p.shared->groups[g], loads[g], CollOp::AllToAll, sizes[g].first,
                             sizes[g].second, options));
  return out;
}

CollectiveCost CollectiveModel::send_recv(int src_gpu, int dst_gpu, double bytes,
                                          const CollectiveOptions& options) const {
  return cost(CollOp::SendRecv, {src_gpu, dst_gpu}, bytes, options);
}

}  // namespace topoplan
