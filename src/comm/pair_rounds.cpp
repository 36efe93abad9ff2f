// Point-to-point tests as rounds of concurrent pairs (see pair_rounds.hpp).
#include "comm/pair_rounds.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "topoplan/error.hpp"
#include "topoplan/units.hpp"

namespace topoplan::comm {

bool is_pair_rounds(CollOp op, const CollectiveOptions& options) {
  return op == CollOp::Gather || op == CollOp::Scatter || op == CollOp::Hypercube ||
         (op == CollOp::SendRecv && options.send_recv == SendRecvPattern::Ring);
}

std::vector<RoundPairs> rounds_of(CollOp op, const std::vector<int>& group, int root) {
  const int n = static_cast<int>(group.size());
  const std::string name(to_string(op));
  if (std::set<int>(group.begin(), group.end()).size() != group.size())
    throw InputError("collective", "", name + ": a GPU is listed twice in one group");
  if ((op == CollOp::Gather || op == CollOp::Scatter) && (root < 0 || root >= n))
    throw FieldError("root", "root rank is outside the group");
  if (op == CollOp::Hypercube && (n & (n - 1)) != 0)
    throw InputError("collective", "",
                     "hypercube needs a power-of-two number of ranks (nccl-tests "
                     "hypercube_perf), got " +
                         std::to_string(n));
  std::vector<RoundPairs> rounds;
  if (n < 2) return rounds;
  const auto at = [&](int i) { return group[static_cast<std::size_t>(i)]; };
  if (op == CollOp::Hypercube) {
    for (int mask = 1; mask < n; mask <<= 1) {
      RoundPairs r;
      r.share = static_cast<double>(mask) / n;
      for (int i = 0; i < n; ++i) r.pairs.emplace_back(at(i), at(i ^ mask));
      rounds.push_back(std::move(r));
    }
    return rounds;
  }
  RoundPairs r;
  if (op == CollOp::SendRecv) {
    for (int i = 0; i < n; ++i) r.pairs.emplace_back(at(i), at((i + 1) % n));
  } else {
    r.share = 1.0 / n;
    for (int i = 0; i < n; ++i)
      if (i != root)
        r.pairs.push_back(op == CollOp::Gather ? std::pair{at(i), at(root)}
                                               : std::pair{at(root), at(i)});
  }
  rounds.push_back(std::move(r));
  return rounds;
}

PairRounds prepare_rounds(const CollectiveModel& model, CollOp op,
                          const std::vector<std::vector<int>>& groups,
                          const CollectiveOptions& options, bool independent) {
  if (groups.empty()) throw InputError("collective: no groups given");
  if (options.algorithm != Algorithm::Auto && options.algorithm != Algorithm::Direct)
    throw FieldError("algorithm",
                     std::string(to_string(op)) + " uses direct point-to-point transfers");
  const bool share_by_n = op != CollOp::SendRecv;
  for (const auto& g : groups)
    if (!independent && share_by_n && g.size() != groups.front().size())
      throw InputError("collective", "",
                       "concurrent " + std::string(to_string(op)) +
                           " groups must have the same number of ranks (" +
                           std::to_string(groups.front().size()) + " and " +
                           std::to_string(g.size()) + ")");
  std::vector<std::vector<RoundPairs>> per_group;
  PairRounds out;
  std::size_t most = 0;
  for (const auto& g : groups) {
    per_group.push_back(rounds_of(op, g, options.root));
    out.ranks.push_back(static_cast<int>(g.size()));
    most = std::max(most, per_group.back().size());
  }
  CollectiveOptions pair = options;
  pair.send_recv = SendRecvPattern::Pair;
  pair.algorithm = Algorithm::Auto;
  for (std::size_t k = 0; k < most; ++k) {
    PairRound round;
    std::vector<std::vector<int>> pairs;
    std::vector<int> owner;
    auto flush = [&] {
      if (pairs.empty()) return;
      round.sets.push_back(model.prepare(CollOp::SendRecv, pairs, pair));
      round.group_of.push_back(owner);
      pairs.clear();
      owner.clear();
    };
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (k >= per_group[g].size()) continue;
      round.share = per_group[g][k].share;  // equal across groups where it depends on n
      for (const auto& [a, b] : per_group[g][k].pairs) {
        pairs.push_back({a, b});
        owner.push_back(static_cast<int>(g));
      }
      if (independent) flush();
    }
    flush();
    out.rounds.push_back(std::move(round));
  }
  return out;
}

std::vector<CollectiveCost> price_rounds(const PairRounds& r, CollOp op, double size) {
  if (!(size >= 0) || !std::isfinite(size)) throw InputError("collective: size must be ≥ 0 bytes");
  const std::size_t groups = r.ranks.size();
  std::vector<CollectiveCost> out(groups);
  std::vector<double> longest(groups, -1), busy_us(groups, 0);
  for (std::size_t g = 0; g < groups; ++g) {
    out[g].op = op;
    out[g].size_bytes = size;
    out[g].ranks = r.ranks[g];
    out[g].algorithm = Algorithm::Direct;
  }
  for (const PairRound& round : r.rounds) {
    std::vector<CollectiveCost> slowest(groups);
    std::vector<bool> seen(groups, false);
    for (std::size_t s = 0; s < round.sets.size(); ++s) {
      const std::vector<CollectiveCost> each = round.sets[s].each(size * round.share);
      for (std::size_t i = 0; i < each.size(); ++i) {
        const auto g = static_cast<std::size_t>(round.group_of[s][i]);
        if (!seen[g] || each[i].time_us > slowest[g].time_us) slowest[g] = each[i];
        seen[g] = true;
      }
    }
    for (std::size_t g = 0; g < groups; ++g) {
      if (!seen[g]) continue;
      const CollectiveCost& c = slowest[g];
      out[g].time_us += c.time_us;
      out[g].latency_us += c.latency_us;
      if (c.time_us > longest[g]) {
        longest[g] = c.time_us;
        out[g].protocol = c.protocol;
        out[g].channels = c.channels;
        out[g].bottleneck = c.bottleneck;
        busy_us[g] = c.bottleneck.utilisation * c.time_us;
      }
    }
  }
  for (std::size_t g = 0; g < groups; ++g) {
    CollectiveCost& c = out[g];
    if (c.time_us <= 0) continue;
    c.algbw_GBps = achieved_GBps(size * algbw_bytes_factor(op, c.ranks), c.time_us);
    c.busbw_GBps = c.algbw_GBps * busbw_factor(op, c.ranks);
    c.bottleneck.utilisation = std::min(1.0, busy_us[g] / c.time_us);
  }
  return out;
}

}  // namespace topoplan::comm
