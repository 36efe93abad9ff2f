// Placement of a strategy's ranks on GPUs: orders, coordinates, groups, and the Placer cache.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <tuple>

#include "plan/placement_internal.hpp"
#include "topoplan/error.hpp"

namespace topoplan {

namespace {
constexpr PlacementOrder kOrders[] = {PlacementOrder::TpPpDp, PlacementOrder::DpPpTp,
                                      PlacementOrder::PpTpDp, PlacementOrder::Optimized};
}  // namespace

bool operator==(const Strategy& a, const Strategy& b) {
  return a.tp == b.tp && a.pp == b.pp && a.dp == b.dp && a.ep == b.ep &&
         a.attention_dp == b.attention_dp;
}

std::string_view to_string(PlacementOrder order) {
  switch (order) {
    case PlacementOrder::TpPpDp:
      return "tp-pp-dp";
    case PlacementOrder::DpPpTp:
      return "dp-pp-tp";
    case PlacementOrder::PpTpDp:
      return "pp-tp-dp";
    case PlacementOrder::Optimized:
      return "optimized";
  }
  return "?";
}

std::vector<std::string> placement_order_names() {
  std::vector<std::string> names;
  for (PlacementOrder o : kOrders) names.emplace_back(to_string(o));
  return names;
}

PlacementOrder parse_placement_order(std::string_view text) {
  std::string norm;
  for (char c : text)
    norm += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (PlacementOrder o : kOrders)
    if (norm == to_string(o)) return o;
  throw UnknownNameError("placement order", std::string(text), placement_order_names());
}

std::vector<int> Placement::devices() const {
  std::vector<int> out;
  out.reserve(ranks.size());
  for (const RankPlacement& r : ranks) out.push_back(r.device);
  return out;
}

RankCoords rank_coords(const Strategy& s, PlacementOrder order, int rank) {
  const placement_detail::Coords c = placement_detail::coords_of(s, order, rank);
  return {c.tp, c.pp, c.dp};
}

namespace placement_detail {

Coords coords_of(const Strategy& s, PlacementOrder order, int rank) {
  switch (order) {
    case PlacementOrder::DpPpTp:  // dp innermost, tp outermost
      return {rank / (s.dp * s.pp), (rank / s.dp) % s.pp, rank % s.dp};
    case PlacementOrder::PpTpDp:  // pp innermost, then tp, then dp
      return {(rank / s.pp) % s.tp, rank % s.pp, rank / (s.pp * s.tp)};
    case PlacementOrder::TpPpDp:
    case PlacementOrder::Optimized:
      break;
  }
  return {rank % s.tp, (rank / s.tp) % s.pp, rank / (s.tp * s.pp)};
}

void validate_strategy(const Router& router, const Strategy& s) {
  auto dim = [](const char* name, int v) {
    if (v < 1)
      throw FieldError(std::string("strategy.") + name,
                       std::string(name) + " must be at least 1, got " + std::to_string(v));
  };
  dim("tp", s.tp);
  dim("pp", s.pp);
  dim("dp", s.dp);
  dim("ep", s.ep);
  if (s.tp % s.ep != 0)
    throw FieldError("strategy.ep", "ep " + std::to_string(s.ep) + " must divide tp " +
                                        std::to_string(s.tp) +
                                        " (experts are split inside each TP group)");
  const auto available = router.topology().gpus().size();
  if (static_cast<std::size_t>(s.gpus()) > available)
    throw InputError("strategy", "",
                     "tp×pp×dp = " + std::to_string(s.gpus()) + " GPUs but topology '" +
                         router.topology().name + "' has " + std::to_string(available));
}

// EP groups follow SGLang/vLLM: expert_tp = tp/ep consecutive TP ranks share one expert shard set,
// and the EP group is the strided set of TP ranks with the same expert-TP rank.
void add_ep_groups(const Strategy& s, PlacementGroups& p, bool first_only) {
  p.ep_groups.clear();
  const int ep = s.ep, etp = s.tp / s.ep;
  if (first_only && ep < 2) return;
  for (const auto& tp_group : p.tp_groups)
    for (int j = 0; j < etp; ++j) {
      std::vector<int> g;
      for (int k = 0; k < ep; ++k) g.push_back(tp_group[static_cast<std::size_t>(k * etp + j)]);
      p.ep_groups.push_back(std::move(g));
      if (first_only) return;
    }
}

namespace {
// Resizes `groups` to `n` groups of `size` members each, keeping the inner vectors' storage
// (the planner refills one set per strategy: reallocating 10^5 small vectors each time was a
// fifth of a 100,000-GPU search).
void shape(std::vector<std::vector<int>>& groups, int n, int size) {
  groups.resize(static_cast<std::size_t>(n));
  for (auto& g : groups) g.resize(static_cast<std::size_t>(size));
}
}  // namespace

void pricing_groups(const Strategy& s, PlacementOrder order, const std::vector<int>& device_of_rank,
                    PlacementGroups& p) {
  // Rank r sits at grid position (dp·pp + pp_rank)·tp + tp_rank, as in groups_of.
  shape(p.tp_groups, s.dp * s.pp, s.tp);
  shape(p.pp_chains, s.dp * s.tp, s.pp);
  for (int r = 0; r < s.gpus(); ++r) {
    const Coords c = coords_of(s, order, r);
    const int dev = device_of_rank[static_cast<std::size_t>(r)];
    p.tp_groups[static_cast<std::size_t>(c.dp * s.pp + c.pp)][static_cast<std::size_t>(c.tp)] = dev;
    p.pp_chains[static_cast<std::size_t>(c.dp * s.tp + c.tp)][static_cast<std::size_t>(c.pp)] = dev;
  }
  add_ep_groups(s, p, /*first_only=*/true);
  p.dp_groups.clear();
}

PlacementGroups groups_of(const Strategy& s, PlacementOrder order,
                          const std::vector<int>& device_of_rank) {
  // grid[(dp·pp + pp_rank)·tp + tp_rank] = device
  std::vector<int> grid(static_cast<std::size_t>(s.gpus()), -1);
  for (int r = 0; r < s.gpus(); ++r) {
    const Coords c = coords_of(s, order, r);
    grid[static_cast<std::size_t>((c.dp * s.pp + c.pp) * s.tp + c.tp)] =
        device_of_rank[static_cast<std::size_t>(r)];
  }
  auto at = [&](int t, int q, int d) {
    return grid[static_cast<std::size_t>((d * s.pp + q) * s.tp + t)];
  };
  PlacementGroups p;
  for (int d = 0; d < s.dp; ++d)
    for (int q = 0; q < s.pp; ++q) {
      std::vector<int> g;
      for (int t = 0; t < s.tp; ++t) g.push_back(at(t, q, d));
      p.tp_groups.push_back(std::move(g));
    }
  add_ep_groups(s, p);
  for (int d = 0; d < s.dp; ++d)
    for (int t = 0; t < s.tp; ++t) {
      std::vector<int> g;
      for (int q = 0; q < s.pp; ++q) g.push_back(at(t, q, d));
      p.pp_chains.push_back(std::move(g));
    }
  for (int q = 0; q < s.pp; ++q)
    for (int t = 0; t < s.tp; ++t) {
      std::vector<int> g;
      for (int d = 0; d < s.dp; ++d) g.push_back(at(t, q, d));
      p.dp_groups.push_back(std::move(g));
    }
  return p;
}

Placement assemble(const Router& router, const Strategy& s, PlacementOrder order,
                   const std::vector<int>& device_of_rank) {
  const Topology& topo = router.topology();
  Placement p;
  p.strategy = s;
  p.order = order;
  p.ranks.reserve(static_cast<std::size_t>(s.gpus()));
  for (int r = 0; r < s.gpus(); ++r) {
    const int dev = device_of_rank[static_cast<std::size_t>(r)];
    const Device& d = topo.device(dev);
    const Coords c = coords_of(s, order, r);
    RankPlacement rp;
    rp.rank = r;
    rp.device = dev;
    rp.device_id = d.id;
    rp.node = d.node;
    rp.local_gpu = d.local_index;
    rp.nic = router.nic_of_gpu(dev);
    if (rp.nic >= 0) rp.nic_id = topo.device(rp.nic).id;
    rp.tp_rank = c.tp;
    rp.pp_rank = c.pp;
    rp.dp_rank = c.dp;
    p.ranks.push_back(std::move(rp));
  }
  PlacementGroups g = groups_of(s, order, device_of_rank);
  p.tp_groups = std::move(g.tp_groups);
  p.ep_groups = std::move(g.ep_groups);
  p.pp_chains = std::move(g.pp_chains);
  p.dp_groups = std::move(g.dp_groups);
  return p;
}

}  // namespace placement_detail

Placement place(const Router& router, const Strategy& strategy, PlacementOrder order) {
  placement_detail::validate_strategy(router, strategy);
  if (order == PlacementOrder::Optimized)
    return placement_detail::place_optimized(router, placement_detail::compute_locality(router),
                                             strategy, StepCounts{});
  const auto& gpus = router.topology().gpus();
  const std::vector<int> first(gpus.begin(), gpus.begin() + strategy.gpus());
  return placement_detail::assemble(router, strategy, order, first);
}

struct Placer::Impl {
  const Router* router = nullptr;
  StepCounts step;
  bool have_locality = false;
  placement_detail::Locality locality;  // computed on the first Optimized request
  using Key = std::tuple<int, int, int, int, bool, int>;
  static Key key(const Strategy& s, PlacementOrder order) {
    return {s.tp, s.pp, s.dp, s.ep, s.attention_dp, static_cast<int>(order)};
  }
  std::map<Key, std::unique_ptr<Placement>> cache;
};

Placer::Placer(const Router& router, const StepCounts& step) : impl_(std::make_unique<Impl>()) {
  impl_->router = &router;
  impl_->step = step;
}
Placer::~Placer() = default;
Placer::Placer(Placer&&) noexcept = default;
Placer& Placer::operator=(Placer&&) noexcept = default;
const Router& Placer::router() const {
  return *impl_->router;
}

const Placement& Placer::place(const Strategy& s, PlacementOrder order) const {
  const Impl::Key key = Impl::key(s, order);
  auto it = impl_->cache.find(key);
  if (it != impl_->cache.end()) return *it->second;
  std::unique_ptr<Placement> p;
  if (order == PlacementOrder::Optimized) {
    placement_detail::validate_strategy(*impl_->router, s);
    if (!impl_->have_locality) {
      impl_->locality = placement_detail::compute_locality(*impl_->router);
      impl_->have_locality = true;
    }
    p = std::make_unique<Placement>(
        placement_detail::place_optimized(*impl_->router, impl_->locality, s, impl_->step));
  } else {
    p = std::make_unique<Placement>(topoplan::place(*impl_->router, s, order));
  }
  return *impl_->cache.emplace(key, std::move(p)).first->second;
}

Placement Placer::take(const Strategy& s, PlacementOrder order) const {
  place(s, order);
  const Impl::Key key = Impl::key(s, order);
  auto node = impl_->cache.extract(key);
  return std::move(*node.mapped());
}

PlacementGroups Placer::groups(const Strategy& s, PlacementOrder order) const {
  if (order == PlacementOrder::Optimized) {
    const Placement& p = place(s, order);
    return PlacementGroups{p.tp_groups, p.ep_groups, p.pp_chains, p.dp_groups};
  }
  placement_detail::validate_strategy(*impl_->router, s);
  const auto& gpus = impl_->router->topology().gpus();
  return placement_detail::groups_of(s, order,
                                     std::vector<int>(gpus.begin(), gpus.begin() + s.gpus()));
}

}  // namespace topoplan
