// Prepared collectives: a group set analysed and routed once, priced per size on one group of
// each class of identical groups (see PreparedCollective in collective.hpp).
#include <algorithm>
#include <map>
#include <tuple>

#include "comm/model_impl.hpp"
#include "comm/pair_rounds.hpp"
#include "topoplan/error.hpp"

namespace topoplan {

namespace {
bool is_direct(CollOp op) {
  return op == CollOp::AllToAll || op == CollOp::SendRecv;
}
}  // namespace

PreparedCollective CollectiveModel::make_prepared(std::shared_ptr<comm::PreparedPattern> p,
                                                  CollOp op,
                                                  const CollectiveOptions& options) const {
  PreparedCollective out;
  out.model_ = this;
  out.pattern_ = std::move(p);
  out.op_ = op;
  out.options_ = options;
  return out;
}

PreparedCollective CollectiveModel::prepare_set(CollOp op,
                                                const std::vector<std::vector<int>>& groups,
                                                const CollectiveOptions& options, int tag) const {
  if (groups.empty()) throw InputError("collective: no groups given");
  if (comm::is_pair_rounds(op, options)) {
    PreparedCollective out = make_prepared(nullptr, op, options);
    out.rounds_ = std::make_shared<const comm::PairRounds>(
        comm::prepare_rounds(*this, op, groups, options, tag == 1));
    return out;
  }
  if (is_direct(op)) {
    auto p = impl_->cached_ptr(op, 0, groups, tag);
    impl_->add_uniform_direct(*p, op);
    return make_prepared(std::move(p), op, options);
  }
  if (options.root < 0 || std::any_of(groups.begin(), groups.end(), [&](const auto& g) {
        return options.root >= static_cast<int>(g.size());
      }))
    throw FieldError("root", "root rank is outside the group");
  const int root = (op == CollOp::Broadcast || op == CollOp::Reduce) ? options.root : 0;
  return make_prepared(impl_->cached_ptr(op, root, groups, tag), op, options);
}

PreparedCollective CollectiveModel::prepare(CollOp op, const std::vector<std::vector<int>>& groups,
                                            const CollectiveOptions& options) const {
  return prepare_set(op, groups, options, 0);
}

PreparedCollective CollectiveModel::prepare_independent(CollOp op,
                                                        const std::vector<std::vector<int>>& groups,
                                                        const CollectiveOptions& options) const {
  const bool pairs = std::all_of(groups.begin(), groups.end(),
                                 [](const auto& g) { return g.size() == 2 && g[0] != g[1]; });
  if (op != CollOp::SendRecv || options.send_recv != SendRecvPattern::Pair || groups.empty() ||
      !pairs || !impl_->servers_alike())
    return prepare_set(op, groups, options, 1);
  std::vector<std::pair<int, int>> p;
  p.reserve(groups.size());
  for (const auto& g : groups) p.emplace_back(g[0], g[1]);
  return prepare_pairs(op, p, options);
}

PreparedCollective CollectiveModel::prepare_pairs(CollOp op,
                                                  const std::vector<std::pair<int, int>>& pairs,
                                                  const CollectiveOptions& options) const {
  const bool distinct =
      std::all_of(pairs.begin(), pairs.end(), [](const auto& q) { return q.first != q.second; });
  if (op != CollOp::SendRecv || options.send_recv != SendRecvPattern::Pair || pairs.empty() ||
      !distinct || !impl_->servers_alike()) {
    std::vector<std::vector<int>> groups;
    for (const auto& q : pairs) groups.push_back({q.first, q.second});
    return prepare_set(op, groups, options, 1);
  }
  // On identically wired servers a pair's GroupInfo is a function of its GPUs' slots and of
  // whether they share a server (intra classes, NIC choice, CPUs, GPU model all come from the
  // slot), and its load is the one flow's, which evaluate_loads gives exactly as the engine
  // would: pairs with equal keys price alike, so only the first of each is analysed.
  // Between servers on a fabric whose routes are alike whatever their ECMP choices, the pair's
  // load is also a function of its slots and of how high its route climbs (Router::fabric_climb),
  // so each (slots, climb) is routed once: a pipeline over 100,000 GPUs has up to 98,000 stage
  // boundaries and a few dozen such classes (issue 32).
  const Router& r = impl_->router;
  const Topology& t = r.topology();
  const bool by_climb = impl_->fabric_pairs_alike();
  std::map<std::tuple<int, int, int>, std::pair<double, double>> by_class;
  std::vector<std::tuple<int, int, bool, double, double>> keys;
  keys.reserve(pairs.size());
  for (const auto& [a, b] : pairs) {
    const int sa = r.server_slot(a), sb = r.server_slot(b);
    const bool same = t.device(a).node == t.device(b).node;
    const int climb = by_climb && !same ? r.fabric_climb(a, b) : -1;
    std::pair<double, double> load;
    // Inside one server the Router routes by the server's template (servers alike), so a lone
    // flow's links are the template's, copied: its load is a function of the slots (class 0).
    if (climb > 0 || same) {
      auto [it, fresh] = by_class.try_emplace({sa, sb, same ? 0 : climb});
      if (fresh) it->second = impl_->pair_load(a, b);
      load = it->second;
    } else {
      load = impl_->pair_load(a, b);
    }
    keys.emplace_back(sa, sb, same, load.first, load.second);
  }
  std::vector<int> class_of;
  std::vector<std::vector<int>> reps;
  for (int g : comm::first_of_each(keys, &class_of)) {
    const auto& q = pairs[static_cast<std::size_t>(g)];
    reps.push_back({q.first, q.second});
  }
  PreparedCollective out = prepare_set(op, reps, options, 1);
  out.expand_ = std::move(class_of);
  return out;
}

PreparedCollective CollectiveModel::prepare_all_to_all(const std::vector<std::vector<int>>& groups,
                                                       const std::vector<TrafficMatrix>& unit_bytes,
                                                       const CollectiveOptions& options) const {
  if (groups.empty() || groups.size() != unit_bytes.size())
    throw InputError("all-to-all: give one traffic matrix per group");
  auto p = std::make_shared<comm::PreparedPattern>(impl_->make_pattern(groups));
  std::vector<TrafficMatrix> w = unit_bytes;  // weights per byte of each group's size
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto [size, peer] = comm::alltoallv_size(unit_bytes[g], groups[g].size());
    p->size_factor.push_back(size);
    p->peer_factor.push_back(peer);
    for (auto& r : w[g])
      for (double& x : r) x = size > 0 ? x / size : 0;
  }
  impl_->add_direct(*p, w);
  return make_prepared(std::move(p), CollOp::AllToAll, options);
}

CollectiveCost PreparedCollective::slowest(double size_bytes) const {
  if (rounds_) {
    const std::vector<CollectiveCost> all = each(size_bytes);
    return *std::max_element(all.begin(), all.end(),
                             [](const auto& a, const auto& b) { return a.time_us < b.time_us; });
  }
  if (!pattern_) throw InputError("collective: prepared set is empty");
  const CollectiveModel::Impl& m = *model_->impl_;
  comm::PreparedPattern& p = *pattern_;
  if (!is_direct(op_)) return m.choose(p, op_, size_bytes, options_, true).slowest_cost;
  // Same first-maximum rule as choose(): reps are in group order.
  CollectiveCost worst;
  bool any = false;
  for (int g : m.reps(p, Algorithm::Direct, op_, 0, false)) {
    CollectiveCost c = m.p2p_of(p, g, op_, size_bytes, options_);
    if (!any || c.time_us > worst.time_us) worst = std::move(c), any = true;
  }
  return worst;
}

std::vector<CollectiveCost> PreparedCollective::each(double size_bytes) const {
  if (rounds_) return comm::price_rounds(*rounds_, op_, size_bytes);
  if (!pattern_) throw InputError("collective: prepared set is empty");
  const CollectiveModel::Impl& m = *model_->impl_;
  comm::PreparedPattern& p = *pattern_;
  if (!is_direct(op_)) return m.price(p, op_, size_bytes, options_, true);
  std::vector<CollectiveCost> out;
  for (std::size_t g = 0; g < p.shared->groups.size(); ++g)
    out.push_back(m.p2p_of(p, static_cast<int>(g), op_, size_bytes, options_));
  if (expand_.empty()) return out;
  std::vector<CollectiveCost> all;
  for (int c : expand_) all.push_back(out[static_cast<std::size_t>(c)]);
  return all;
}

int PreparedCollective::groups() const {
  if (rounds_) return static_cast<int>(rounds_->ranks.size());
  if (!expand_.empty()) return static_cast<int>(expand_.size());
  return pattern_ ? static_cast<int>(pattern_->shared->groups.size()) : 0;
}

int PreparedCollective::classes(double size_bytes) const {
  if (rounds_) {  // the most of any round's sets
    int most = 0;
    for (const comm::PairRound& r : rounds_->rounds)
      for (const PreparedCollective& s : r.sets)
        most = std::max(most, s.classes(size_bytes * r.share));
    return most;
  }
  if (!pattern_) return 0;
  const CollectiveModel::Impl& m = *model_->impl_;
  comm::PreparedPattern& p = *pattern_;
  const Algorithm a =
      is_direct(op_) ? Algorithm::Direct : m.choose(p, op_, size_bytes, options_, true).algorithm;
  return static_cast<int>(m.reps(p, a, op_, options_.root, true).size());
}

}  // namespace topoplan
