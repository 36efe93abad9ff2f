// The communication calibration file: the built-in tuning file (topologies/tuning/nccl.json) with
// the refitted cells replaced, so NcclTuning::parse reads it and `--calibration` swaps it in.
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "comm/tuning_keys.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/nccl_tests.hpp"

namespace topoplan {
namespace {
using comm::kAlgoKeys;
using comm::kHwKeys;
using nlohmann::ordered_json;

ordered_json row(const double (&cells)[3]) {
  return ordered_json::array({cells[0], cells[1], cells[2]});
}

// nlohmann writes NaN and inf as null: a calibration file with "ll_factor": null was written and
// then refused by --calibration. Every number must be finite before anything is written.
void require_finite(const ordered_json& j, const std::string& pointer) {
  if (j.is_number_float() && !std::isfinite(j.get<double>()))
    throw InternalError("calibrate: " + pointer + " is not a finite number");
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i)
      require_finite(j[i], pointer + "/" + std::to_string(i));
  if (j.is_object())
    for (const auto& [key, value] : j.items()) require_finite(value, pointer + "/" + key);
}

ordered_json summary(const ErrorSummary& s) {
  return {{"rows", s.rows},
          {"median_abs_rel_error", s.median_abs},
          {"worst_rel_error", s.worst_signed}};
}

std::string algo_proto(Algorithm a, Protocol p) {
  return std::string(to_string(a)) + "/" + std::string(to_string(p));
}

// What calibrate kept and the error per row before and after (docs/calibration.md).
void add_check(ordered_json& doc, const CommCalibration& c) {
  ordered_json changes = ordered_json::array();
  for (const CalibrationChange& x : c.changes)
    changes.push_back({{"constant", x.constant},
                       {"before", x.before},
                       {"after", x.after},
                       {"accepted", x.accepted},
                       {"fitted_worst_abs_before", x.worst_before},
                       {"fitted_worst_abs_after", x.worst_after},
                       {"fitted_median_abs_before", x.median_before},
                       {"fitted_median_abs_after", x.median_after}});
  doc["changes"] = changes;
  ordered_json check = ordered_json::array();
  for (const CalibrationCheck& r : c.check)
    check.push_back({{"log", r.source},
                     {"line", r.line},
                     {"size_bytes", r.size_bytes},
                     {"held_out", r.held_out},
                     {"measured_us", r.measured_us},
                     {"before_us", r.before_us},
                     {"after_us", r.after_us},
                     {"before_rel_error", (r.before_us - r.measured_us) / r.measured_us},
                     {"after_rel_error", (r.after_us - r.measured_us) / r.measured_us},
                     {"before", algo_proto(r.before_algorithm, r.before_protocol)},
                     {"after", algo_proto(r.after_algorithm, r.after_protocol)}});
  doc["check"] = check;
  doc["summary"] = {
      {"fitted", {{"before", summary(c.fitted_before)}, {"after", summary(c.fitted_after)}}},
      {"held_out", {{"before", summary(c.held_out_before)}, {"after", summary(c.held_out_after)}}}};
}
}  // namespace

std::string write_comm_calibration(const CommCalibration& c, const std::string& provenance) {
  const auto base = embedded_file("topologies/tuning/nccl.json");
  if (!base) throw InternalError("embedded topologies/tuning/nccl.json is missing");
  ordered_json doc = ordered_json::parse(*base);
  const NcclTuning& t = c.tuning;
  doc["name"] = "calibrated";
  doc["source"] =
      provenance + "; constants not refitted are those of " + doc["source"].get<std::string>();
  for (int a = 0; a < 6; ++a) {
    doc["base_latency_us"][kAlgoKeys[a]] = row(t.base_latency_us[a]);
    for (int h = 0; h < 3; ++h)
      doc["hw_latency_us"][kHwKeys[h]][kAlgoKeys[a]] = row(t.hw_latency_us[h][a]);
  }
  doc["per_arch"]["nvls_efficiency"] = ordered_json::array(
      {t.nvls_efficiency[0], t.nvls_efficiency[1], t.nvls_efficiency[2], t.nvls_efficiency[3]});
  doc["protocol_bw"]["ll_factor"] = t.ll_bw_factor;
  doc["protocol_bw"]["ll128_factor"] = t.ll128_bw_factor;
  ordered_json eff = ordered_json::object();
  for (const auto& [type, e] : c.link_efficiency) eff[type] = e;
  doc["link_efficiency"] = eff;
  ordered_json fits = ordered_json::array();
  for (const RegimeFit& f : c.fits) {
    fits.push_back({{"log", f.source},
                    {"op", std::string(to_string(f.op))},
                    {"algorithm", std::string(to_string(f.algorithm))},
                    {"protocol", std::string(to_string(f.protocol))},
                    {"rows", f.rows},
                    {"latency_fitted", f.latency_fitted},
                    {"measured_latency_us", f.latency_us},
                    {"measured_GBps", f.GBps},
                    {"model_latency_us", f.model_latency_us},
                    {"model_GBps", f.model_GBps},
                    {"adjusts", f.constant},
                    {"factor", f.factor}});
  }
  doc["fits"] = fits;
  add_check(doc, c);
  require_finite(doc, "");
  std::string text = doc.dump(1) + "\n";
  // What --calibration will read back, checked by the same reader (ranges included) before the
  // file is written: calibrate never writes a file topoplan then refuses.
  (void)NcclTuning::parse(text, "calibrate output");
  return text;
}

}  // namespace topoplan
