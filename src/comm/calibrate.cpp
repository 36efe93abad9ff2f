// calibrate_comm: fit time = latency + size / bandwidth per (operation, algorithm, protocol)
// regime of nccl-tests logs, and move the constants the model used for that regime by the ratio
// of measured to modelled per-byte time and the difference of intercepts (docs/calibration.md).
// Each move is kept only if the fitted rows' error does not grow with it; every 4th size is held
// out of the fit to show the error on sizes it did not see.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "topoplan/error.hpp"
#include "topoplan/nccl_tests.hpp"
#include "topoplan/route.hpp"

namespace topoplan {
namespace {

struct Line {
  double a = 0, b = 0;  // y = a + b x
  bool intercept = false;
};

// Least squares of y = a + b x. The intercept is only free when the sizes reach from the
// latency-bound end to the bandwidth-bound end (at least 3 sizes spanning a factor of 64):
// rows on the bandwidth plateau alone pin the slope but leave the intercept to noise. Otherwise,
// or when the free fit gives a negative intercept or slope, the intercept is fixed at `a0` (the
// model's latency) and only the slope is fitted.
Line fit(const std::vector<double>& x, const std::vector<double>& y, double a0) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double var = sxx - sx * sx / n;
  const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  const bool spans = x.size() >= 3 && *hi >= 64 * *lo;
  if (spans && var > 1e-12 * sxx) {
    const double b = (sxy - sx * sy / n) / var, a = (sy - b * sx) / n;
    if (a >= 0 && b > 0) return {a, b, true};
  }
  double num = 0;
  for (std::size_t i = 0; i < x.size(); ++i) num += x[i] * (y[i] - a0);
  return {a0, std::max(num / sxx, 1e-30), false};
}

int algo_row(
    Algorithm a) {  // index into NcclTuning tables (tree, ring, collnet, ., nvls, nvlstree)
  switch (a) {
    case Algorithm::Tree:
      return 0;
    case Algorithm::Ring:
      return 1;
    case Algorithm::CollNet:
      return 2;
    case Algorithm::Nvls:
      return 4;
    case Algorithm::NvlsTree:
      return 5;
    default:
      return -1;
  }
}
int proto_col(Protocol p) {
  return p == Protocol::LL ? 0 : p == Protocol::LL128 ? 1 : 2;
}

int arch_of(const Topology& t, int gpu) {
  const int sm = t.gpu_spec(gpu).sm_version;
  return sm < 80 ? 0 : sm < 90 ? 1 : sm < 100 ? 2 : 3;
}

// The constant that sets the regime's bandwidth in the model.
std::string constant_of(const ValidationRow& r) {
  if (r.algorithm == Algorithm::Nvls || r.algorithm == Algorithm::NvlsTree)
    return "nvls_efficiency";
  if (r.protocol == Protocol::LL) return "ll_factor";
  if (r.protocol == Protocol::LL128) return "ll128_factor";
  return "link_efficiency/" + r.bottleneck_type;
}

RegimeFit fit_regime(const std::vector<ValidationRow>& rows) {
  RegimeFit f;
  const ValidationRow& r0 = rows.front();
  f.op = r0.op;
  f.algorithm = r0.algorithm;
  f.protocol = r0.protocol;
  f.source = r0.source;
  f.rows = static_cast<int>(rows.size());
  f.constant = constant_of(r0);
  std::vector<double> x, y, model;
  double lat = 0;
  for (const ValidationRow& r : rows) {
    x.push_back(r.size_bytes);
    y.push_back(r.measured_us);
    model.push_back(r.predicted_us);
    lat += r.predicted_latency_us / static_cast<double>(rows.size());
  }
  const Line m = fit(x, y, lat), p = fit(x, model, lat);
  f.latency_fitted = m.intercept;
  f.latency_us = m.a;
  f.GBps = 1 / (m.b * 1e3);  // bytes per µs → GB/s
  f.model_latency_us = lat;
  f.model_GBps = 1 / (p.b * 1e3);
  f.factor = p.b / m.b;
  return f;
}

// A proposed constant: apply() moves it in a calibration and returns (old, new) value.
struct Candidate {
  std::string constant;
  std::function<std::pair<double, double>(CommCalibration&)> apply;
};

// Every 4th distinct size of a log (sorted; the 4th, 8th, ...) when it has 4 or more.
std::set<double> held_out_sizes(const NcclTestsLog& log) {
  std::set<double> sizes;
  for (const CollectiveMeasurement& m : log.rows)
    if (!m.in_place) sizes.insert(m.size_bytes);
  std::set<double> held;
  if (sizes.size() < 4) return held;
  int i = 0;
  for (double s : sizes)
    if (++i % 4 == 0) held.insert(s);
  return held;
}

// Every out-of-place row of every log priced with calibration `c` on `base` (validate_log order).
std::vector<ValidationRow> price_logs(const Topology& base, const CommCalibration& c,
                                      const std::vector<NcclTestsLog>& logs,
                                      const CollectiveOptions& o) {
  const Topology t = with_link_efficiency(base, c.link_efficiency);
  const Router r(t);
  const CollectiveModel m(r, c.tuning);
  std::vector<ValidationRow> rows;
  for (const NcclTestsLog& log : logs) {
    const auto x = validate_log(m, log, o);
    rows.insert(rows.end(), x.begin(), x.end());
  }
  return rows;
}

std::vector<ValidationRow> pick(const std::vector<ValidationRow>& rows,
                                const std::vector<bool>& held, bool want_held) {
  std::vector<ValidationRow> out;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (held[i] == want_held) out.push_back(rows[i]);
  return out;
}

double link_type_efficiency(const Topology& t, const CommCalibration& c, const std::string& type) {
  for (const auto& [k, e] : c.link_efficiency)
    if (k == type) return e;
  for (std::size_t i = 0; i < t.link_count(); ++i)
    if (t.link(static_cast<int>(i)).type == type) return t.link(static_cast<int>(i)).efficiency;
  return 1;
}

// A multiplicative move of the constant a regime's bandwidth depends on, clamped to (0, 1].
Candidate factor_candidate(const Topology& t, const std::string& constant, double factor) {
  auto scale = [factor](double& v) {
    const double old = v;
    v = std::clamp(v * factor, 0.01, 1.0);
    return std::pair{old, v};
  };
  if (constant.rfind("link_efficiency/", 0) == 0)
    return {constant, [&t, constant, factor](CommCalibration& c) {
              const std::string type = constant.substr(16);
              const double old = link_type_efficiency(t, c, type);
              const double now = std::clamp(old * factor, 0.01, 1.0);
              c.link_efficiency.erase(
                  std::remove_if(c.link_efficiency.begin(), c.link_efficiency.end(),
                                 [&](const auto& x) { return x.first == type; }),
                  c.link_efficiency.end());
              c.link_efficiency.emplace_back(type, now);
              return std::pair{old, now};
            }};
  if (constant.rfind("nvls_efficiency", 0) == 0) {
    const int arch = std::stoi(constant.substr(15));
    return {"nvls_efficiency/" + std::to_string(arch),
            [scale, arch](CommCalibration& c) { return scale(c.tuning.nvls_efficiency[arch]); }};
  }
  if (constant == "ll_factor")
    return {constant, [scale](CommCalibration& c) { return scale(c.tuning.ll_bw_factor); }};
  return {constant, [scale](CommCalibration& c) { return scale(c.tuning.ll128_bw_factor); }};
}

// A freed intercept moves the regime's latency cell by the difference, never below 0. NVLS
// replaces the base latency with the intra-node hardware term (tuning.cc).
Candidate latency_candidate(const RegimeFit& f) {
  const int a = algo_row(f.algorithm), p = proto_col(f.protocol);
  const bool nvls = f.algorithm == Algorithm::Nvls;
  const double delta = f.latency_us - f.model_latency_us;
  const std::string name = std::string(nvls ? "hw_latency_us/nvlink/" : "base_latency_us/") +
                           std::string(to_string(f.algorithm)) + "/" +
                           std::string(to_string(f.protocol));
  return {name, [a, p, nvls, delta](CommCalibration& c) {
            double& cell = nvls ? c.tuning.hw_latency_us[0][a][p] : c.tuning.base_latency_us[a][p];
            const double old = cell;
            cell = std::max(0.0, cell + delta);
            return std::pair{old, cell};
          }};
}

// Fits every regime of the logs' fitted rows; the proposed moves, bandwidth constants first.
std::vector<Candidate> propose(const CollectiveModel& model, const std::vector<NcclTestsLog>& logs,
                               const CollectiveOptions& options, CommCalibration& out) {
  const Topology& t = model.router().topology();
  std::map<std::string, std::pair<double, double>> weighted;  // constant → (Σ w log f, Σ w)
  std::vector<Candidate> latency;
  for (const NcclTestsLog& log : logs) {
    const int arch = arch_of(t, log_group(t, log).front());
    const std::set<double> held = held_out_sizes(log);
    std::map<std::pair<int, int>, std::vector<ValidationRow>> regimes;
    for (const ValidationRow& r : validate_log(model, log, options))
      if (!held.count(r.size_bytes))
        regimes[{static_cast<int>(r.algorithm), static_cast<int>(r.protocol)}].push_back(r);
    for (const auto& [key, rows] : regimes) {
      RegimeFit f = fit_regime(rows);
      auto& [sum, w] = weighted[f.constant == "nvls_efficiency" ? f.constant + std::to_string(arch)
                                                                : f.constant];
      sum += f.rows * std::log(f.factor);
      w += f.rows;
      if (f.latency_fitted && algo_row(f.algorithm) >= 0) latency.push_back(latency_candidate(f));
      out.fits.push_back(f);
    }
  }
  std::vector<Candidate> all;
  for (const auto& [constant, sw] : weighted)  // row-weighted geometric mean
    all.push_back(factor_candidate(t, constant, std::exp(sw.first / sw.second)));
  all.insert(all.end(), latency.begin(), latency.end());
  return all;
}

}  // namespace

CommCalibration calibrate_comm(const CollectiveModel& model, const std::vector<NcclTestsLog>& logs,
                               const CollectiveOptions& options) {
  const Topology& t = model.router().topology();
  CommCalibration cur;
  cur.tuning = model.tuning();
  const std::vector<Candidate> candidates = propose(model, logs, options, cur);
  std::vector<bool> held;
  for (const NcclTestsLog& log : logs) {
    const std::set<double> sizes = held_out_sizes(log);
    for (const CollectiveMeasurement& m : log.rows)
      if (!m.in_place) held.push_back(sizes.count(m.size_bytes) > 0);
  }
  const std::vector<ValidationRow> before = price_logs(t, cur, logs, options);
  std::vector<ValidationRow> now = before;
  ErrorSummary fitted = summarize_errors(pick(now, held, false));
  // Greedy: a move is kept when neither the worst nor the median |error| of the fitted rows
  // grows (a raised ring latency that tips the choice to tree/LL and worsens the worst row is
  // refused; issue 28).
  for (const Candidate& c : candidates) {
    CommCalibration trial = cur;
    const auto [old_value, new_value] = c.apply(trial);
    const std::vector<ValidationRow> rows = price_logs(t, trial, logs, options);
    const ErrorSummary s = summarize_errors(pick(rows, held, false));
    const double slack = 1e-9;
    CalibrationChange ch{c.constant,       old_value,   new_value,         false,
                         fitted.worst_abs, s.worst_abs, fitted.median_abs, s.median_abs};
    ch.accepted =
        s.worst_abs <= fitted.worst_abs + slack && s.median_abs <= fitted.median_abs + slack;
    if (ch.accepted) {
      cur = std::move(trial);
      now = rows;
      fitted = s;
    }
    cur.changes.push_back(ch);
  }
  for (std::size_t i = 0; i < before.size(); ++i) {
    const ValidationRow &b = before[i], &a = now[i];
    cur.check.push_back({b.source, b.line, b.size_bytes, held[i], b.measured_us, b.predicted_us,
                         a.predicted_us, b.algorithm, a.algorithm, b.protocol, a.protocol});
  }
  cur.fitted_before = summarize_errors(pick(before, held, false));
  cur.fitted_after = fitted;
  cur.held_out_before = summarize_errors(pick(before, held, true));
  cur.held_out_after = summarize_errors(pick(now, held, true));
  return cur;
}

}  // namespace topoplan
