// CollectiveModel's choice among NCCL's (algorithm, protocol) candidates: which may run, the
// least time each can take, and which are priced (docs/collective-model.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "comm/model_impl.hpp"
#include "comm/nccl_rules.hpp"
#include "topoplan/error.hpp"

namespace topoplan {

using comm::GroupInfo;
using comm::GroupLoad;

namespace {
constexpr Algorithm kAlgos[] = {Algorithm::Ring,     Algorithm::Tree,    Algorithm::Nvls,
                                Algorithm::NvlsTree, Algorithm::CollNet, Algorithm::Direct};
constexpr Protocol kProtos[] = {Protocol::LL, Protocol::LL128, Protocol::Simple};
}  // namespace

// The candidates choose() may price: (algorithm, protocol) pairs the options and NCCL's rules
// allow, in NCCL's ranking order, each with the least time it can take whatever its loads are.
// `why_not` says why the last refused one was refused.
std::vector<CollectiveModel::Impl::Candidate> CollectiveModel::Impl::candidates(
    const Pattern& p, CollOp op, double size, const CollectiveOptions& o,
    std::string& why_not) const {
  std::vector<Candidate> out;
  for (Algorithm a : kAlgos) {
    if (o.algorithm != Algorithm::Auto && a != o.algorithm) continue;
    if (a == Algorithm::Direct) {  // priced by all_to_all / send_recv
      why_not =
          "direct is the point-to-point algorithm of all-to-all, send-recv, gather and "
          "scatter, not of " +
          std::string(to_string(op));
      continue;
    }
    std::string why;
    for (int g : p.shared->info_reps)
      if (why.empty()) why = comm::algorithm_unavailable(a, op, p.shared->groups[g], o, tuning);
    if (!why.empty()) {
      why_not = why;
      continue;
    }
    for (Protocol pr : kProtos) {
      if (o.protocol != Protocol::Auto && pr != o.protocol) continue;
      bool ok = true;
      for (int g : p.shared->info_reps)
        ok = ok && comm::protocol_enabled(a, pr, p.shared->groups[g]);
      if (!ok) {
        why_not = std::string(to_string(pr)) + " is not enabled for " + std::string(to_string(a)) +
                  " on this group (NCCL's rules)";
        continue;
      }
      // one()'s time is latency + transfer, the transfer ≥ 0 and the latency non-decreasing in
      // the routed inter-server latency (≥ 0): the latency at 0 bounds it from below. Groups of
      // one class share their GroupInfo, so the class representatives give the set's bound.
      double floor_us = 0;
      for (int g : p.shared->info_reps) {
        const GroupInfo& info = p.shared->groups[g];
        if (info.n >= 2)
          floor_us = std::max(floor_us, comm::latency_us(a, pr, op, info, size, 0, tuning));
      }
      out.push_back({a, pr, floor_us, static_cast<int>(out.size())});
    }
  }
  return out;
}

// NCCL's choice: the fastest candidate, the first in ranking order among equals. Candidates are
// priced in order of their floor and skipped once the floor alone loses: pricing routes every
// flow of the algorithm (a ring over 100,000 GPUs is 900,000 flows, a sixth of `collective`
// there, issue 32) and a ring's latency over that many ranks is already 100 ms. Candidates
// whose loads are known are priced first, so that the others are skipped against the best of
// them; the answer is the least (time, rank) either way, as a skipped candidate cannot win.
CollectiveModel::Impl::Choice CollectiveModel::Impl::choose(Pattern& p, CollOp op, double size,
                                                            const CollectiveOptions& o,
                                                            bool fast) const {
  if (!(size >= 0) || !std::isfinite(size)) throw InputError("collective: size must be ≥ 0 bytes");
  std::string why_not;
  p.threads = o.threads;
  std::vector<Candidate> order = candidates(p, op, size, o, why_not);
  std::stable_sort(order.begin(), order.end(),
                   [](const Candidate& x, const Candidate& y) { return x.floor_us < y.floor_us; });
  Choice best;
  double best_time = std::numeric_limits<double>::infinity();
  int best_rank = -1;
  const auto beats = [&](double t, int rank) {
    return t < best_time || (t == best_time && best_rank >= 0 && rank < best_rank);
  };
  const auto price = [&](const Candidate& k) {
    const auto& l = loads(p, k.algorithm, op, o.root, fast);
    // Every member of a class has the same inputs, hence the same cost as its first member;
    // reps are in group order, so the first maximum is the first slowest group overall.
    Choice c{k.algorithm, k.protocol, -1, {}};
    for (int g : reps(p, k.algorithm, op, o.root, fast)) {
      CollectiveCost x = one(p.shared->groups[g], l[g], op, k.algorithm, k.protocol, size);
      if (c.slowest < 0 || x.time_us > c.slowest_cost.time_us) c.slowest = g, c.slowest_cost = x;
    }
    const double worst = std::max(0.0, c.slowest_cost.time_us);
    if (beats(worst, k.rank)) best_time = worst, best_rank = k.rank, best = std::move(c);
  };
  // Which are known is read once: pricing one protocol makes its algorithm's others known.
  // (A closed form is cheap to make, so it need not go first.)
  std::vector<char> ready(order.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    ready[i] = loads_known(p, order[i].algorithm, op, o.root) ? 1 : 0;
  for (const int pass : {1, 0})
    for (std::size_t i = 0; i < order.size(); ++i)
      if (ready[i] == pass && beats(order[i].floor_us, order[i].rank)) price(order[i]);
  if (best.slowest < 0)
    throw FieldError("algorithm/protocol",
                     "cannot run " + std::string(to_string(op)) + ": " + why_not);
  return best;
}

}  // namespace topoplan
