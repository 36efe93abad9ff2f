// `compare`'s Pareto fronts side by side (issue 30 part 1): a design's unconstrained best point
// may serve 4 tokens/s per user and another's 14, so comparing those says little. Buyers compare
// at the same service level: here every design's front (plan.hpp ParetoPoint: tokens/s/GPU
// against tokens/s/user over every fitting strategy and batch) is read at named per-user speeds,
// and the speeds where the winner changes are found.
#include <algorithm>
#include <cmath>
#include <set>

#include "report/compare.hpp"
#include "report/compare_costs.hpp"
#include "report/table.hpp"

namespace topoplan::report {

namespace {

constexpr double kWPerMW = 1e6;

// A design's best front point with at least `min_user` tokens/s per user, by the criterion.
std::optional<FrontPick> pick(const DesignResult& d, double min_user) {
  std::optional<FrontPick> best;
  for (const ParetoPoint& q : d.plan.pareto) {
    if (q.tokens_per_s_per_user < min_user || q.tokens_per_s_per_gpu <= 0) continue;
    if (best && q.tokens_per_s_per_gpu <= best->point.tokens_per_s_per_gpu) continue;
    FrontPick f{q, 0, std::nullopt};
    if (d.power_W > 0)
      f.tokens_per_s_per_mw = q.tokens_per_s_per_gpu * d.gpus / d.power_W * kWPerMW;
    if (d.usd_per_gpu_hour)
      f.usd_per_mtok = usd_per_mtok(d.usd_per_gpu_hour->value, q.tokens_per_s_per_gpu);
    best = f;
  }
  return best;  // within one design the GPU-hour price is one number: tok/s/GPU orders both
}

// Higher is better: tokens/s per GPU, or tokens per dollar when every design is priced.
double score(const FrontPick& f, bool priced) {
  return priced ? 1 / *f.usd_per_mtok : f.point.tokens_per_s_per_gpu;
}

int winner_of(const std::vector<std::optional<FrontPick>>& picks, bool priced) {
  int w = -1;
  for (std::size_t i = 0; i < picks.size(); ++i)
    if (picks[i] && (w < 0 || score(*picks[i], priced) > score(*picks[w], priced)))
      w = static_cast<int>(i);
  return w;
}

// The designs whose pick equals the winner's (to a part in a million): a tie, not a lead.
std::vector<int> tied_with(const std::vector<std::optional<FrontPick>>& picks, int w, bool priced) {
  std::vector<int> out;
  if (w < 0) return out;
  const double best = score(*picks[w], priced);
  for (std::size_t i = 0; i < picks.size(); ++i)
    if (static_cast<int>(i) != w && picks[i] &&
        std::fabs(score(*picks[i], priced) - best) <= 1e-6 * std::fabs(best))
      out.push_back(static_cast<int>(i));
  return out;
}

std::vector<std::optional<FrontPick>> picks_at(const Comparison& c, double min_user) {
  std::vector<std::optional<FrontPick>> out;
  for (const DesignResult& d : c.designs) out.push_back(pick(d, min_user));
  return out;
}

// The winner on every interval between consecutive front speeds, merged where it stays.
std::vector<FrontRange> ranges_of(const Comparison& c, bool priced) {
  std::set<double> speeds;
  for (const DesignResult& d : c.designs)
    for (const ParetoPoint& q : d.plan.pareto)
      if (q.tokens_per_s_per_gpu > 0) speeds.insert(q.tokens_per_s_per_user);
  std::vector<FrontRange> out;
  double from = 0;
  for (double s : speeds) {
    const auto picks = picks_at(c, s);
    const int w = winner_of(picks, priced);
    const std::vector<int> tied = tied_with(picks, w, priced);
    if (!out.empty() && out.back().winner == w && out.back().tied == tied)
      out.back().to_tokens_per_s_per_user = s;
    else
      out.push_back({from, s, w, tied});
    from = s;
  }
  return out;
}

// The ranges for reading: one narrower than a tenth of its upper speed (fronts zig-zag where
// strategies change) is folded into the range before it; --json keeps every crossing.
std::vector<FrontRange> readable(std::vector<FrontRange> r) {
  constexpr double kNarrow = 0.1;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 1; i < r.size() && !changed; ++i) {
      const bool narrow = r[i].to_tokens_per_s_per_user - r[i].from_tokens_per_s_per_user <
                          kNarrow * r[i].to_tokens_per_s_per_user;
      if (narrow || (r[i].winner == r[i - 1].winner && r[i].tied == r[i - 1].tied)) {
        r[i - 1].to_tokens_per_s_per_user = r[i].to_tokens_per_s_per_user;
        r.erase(r.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
      }
    }
  }
  return r;
}

std::string summary_of(const Comparison& c, const Fronts& f) {
  if (f.ranges.empty()) return "no design has a front (no plan fits)";
  const std::vector<FrontRange> ranges = readable(f.ranges);
  const std::string by = f.criterion == "usd_per_mtok"
                             ? "$ per million output tokens at the GPU-hour price"
                             : "tokens/s/GPU";
  // "A", or "A and B" when they tie.
  auto who = [&c](const FrontRange& r) {
    std::string s = c.designs[r.winner].spec.name;
    for (int t : r.tied) s += " and " + c.designs[t].spec.name;
    return s;
  };
  if (ranges.size() == 1 && !ranges.front().tied.empty())
    return who(ranges.front()) + " tie on " + by + " at every per-user speed, up to " +
           fmt("%.1f", ranges.front().to_tokens_per_s_per_user) + " tok/s/user";
  if (ranges.size() == 1)
    return c.designs[ranges.front().winner].spec.name + " leads on " + by +
           " at every per-user speed, up to " +
           fmt("%.1f", ranges.front().to_tokens_per_s_per_user) +
           " tok/s/user (the fastest point of any front): the fronts do not cross";
  std::string s =
      "The fronts cross (ranges under 10% wide folded; --json has each): on " + by + ", ";
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const FrontRange& r = ranges[i];
    s += (i ? "; " : "") + who(r) + (r.tied.empty() ? " wins " : " tie ") +
         (i == 0 ? "up to " + fmt("%.1f", r.to_tokens_per_s_per_user)
                 : "from " + fmt("%.1f", r.from_tokens_per_s_per_user) + " to " +
                       fmt("%.1f", r.to_tokens_per_s_per_user)) +
         " tok/s/user";
  }
  return s;
}

}  // namespace

const std::vector<std::pair<std::string, double>>& operating_point_speeds() {
  // Conventions, not measurements: 50 tok/s/user is a TPOT of 20 ms (chat that outpaces
  // reading), 20 tok/s/user a TPOT of 50 ms (the limit of issue 30's example), 0 the engine's
  // largest batch. A decode token per TPOT, so with MTP the speeds count accepted tokens.
  static const std::vector<std::pair<std::string, double>> speeds = {
      {"interactive", 50}, {"balanced", 20}, {"max throughput", 0}};
  return speeds;
}

Fronts compare_fronts(const Comparison& c) {
  Fronts f;
  bool priced = true;
  for (const DesignResult& d : c.designs) priced &= d.usd_per_gpu_hour.has_value();
  f.criterion = priced ? "usd_per_mtok" : "tokens_per_s_per_gpu";
  for (const auto& [name, speed] : operating_point_speeds()) {
    OperatingPoint p{name, speed, picks_at(c, speed), -1, {}};
    p.winner = winner_of(p.picks, priced);
    p.tied = tied_with(p.picks, p.winner, priced);
    f.points.push_back(std::move(p));
  }
  f.ranges = ranges_of(c, priced);
  f.summary = summary_of(c, f);
  return f;
}

}  // namespace topoplan::report
