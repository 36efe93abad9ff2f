// calibrate_comm: fit time = latency + size / bandwidth per (operation, algorithm, protocol)
// regime of nccl-tests logs, and move the constants the model used for that regime by the ratio
// of measured to modelled per-byte time and the difference of intercepts (docs/calibration.md).
#include <algorithm>
#include <cmath>
#include <map>

#include "topoplan/error.hpp"
#include "topoplan/nccl_tests.hpp"

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

}  // namespace

CommCalibration calibrate_comm(const CollectiveModel& model, const std::vector<NcclTestsLog>& logs,
                               const CollectiveOptions& options) {
  const Topology& t = model.router().topology();
  CommCalibration out;
  out.tuning = model.tuning();
  std::map<std::string, std::pair<double, double>> weighted;  // constant → (Σ w log f, Σ w)
  for (const NcclTestsLog& log : logs) {
    const int arch = arch_of(t, log_group(t, log).front());
    std::map<std::pair<int, int>, std::vector<ValidationRow>> regimes;
    for (const ValidationRow& r : validate_log(model, log, options))
      regimes[{static_cast<int>(r.algorithm), static_cast<int>(r.protocol)}].push_back(r);
    for (const auto& [key, rows] : regimes) {
      RegimeFit f = fit_regime(rows);
      auto& [sum, w] = weighted[f.constant == "nvls_efficiency" ? f.constant + std::to_string(arch)
                                                                : f.constant];
      sum += f.rows * std::log(f.factor);
      w += f.rows;
      const int a = algo_row(f.algorithm), p = proto_col(f.protocol);
      if (f.latency_fitted && a >= 0) {
        // NVLS replaces the base latency with the intra-node hardware term (tuning.cc).
        const double delta = f.latency_us - f.model_latency_us;
        double& cell = f.algorithm == Algorithm::Nvls ? out.tuning.hw_latency_us[0][a][p]
                                                      : out.tuning.base_latency_us[a][p];
        cell = std::max(0.0, cell + delta);
      }
      out.fits.push_back(f);
    }
  }
  for (const auto& [constant, sw] : weighted) {
    const double factor = std::exp(sw.first / sw.second);  // row-weighted geometric mean
    if (constant.rfind("link_efficiency/", 0) == 0) {
      const std::string type = constant.substr(16);
      double eff = 1;
      for (std::size_t i = 0; i < t.link_count(); ++i)
        if (t.link(static_cast<int>(i)).type == type) eff = t.link(static_cast<int>(i)).efficiency;
      out.link_efficiency.emplace_back(type, std::clamp(eff * factor, 0.01, 1.0));
    } else if (constant.rfind("nvls_efficiency", 0) == 0) {
      double& e = out.tuning.nvls_efficiency[std::stoi(constant.substr(15))];
      e = std::clamp(e * factor, 0.01, 1.0);
    } else if (constant == "ll_factor") {
      out.tuning.ll_bw_factor = std::clamp(out.tuning.ll_bw_factor * factor, 0.01, 1.0);
    } else if (constant == "ll128_factor") {
      out.tuning.ll128_bw_factor = std::clamp(out.tuning.ll128_bw_factor * factor, 0.01, 1.0);
    }
  }
  return out;
}

}  // namespace topoplan
