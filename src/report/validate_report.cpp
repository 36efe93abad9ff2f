// Text and JSON for validate/calibrate (validate_report.hpp).
#include "report/validate_report.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "report/json_number.hpp"
#include "report/table.hpp"

namespace topoplan::report {
namespace {

std::string algo_proto(const ValidationRow& r) {
  return std::string(to_string(r.algorithm)) + "/" + std::string(to_string(r.protocol));
}

std::map<std::string, std::vector<ValidationRow>> by_op(const std::vector<ValidationRow>& rows) {
  std::map<std::string, std::vector<ValidationRow>> out;
  for (const ValidationRow& r : rows) out[std::string(to_string(r.op))].push_back(r);
  return out;
}

nlohmann::ordered_json summary_json(const ErrorSummary& s) {
  return {{"rows", s.rows},
          {"median_abs_rel_error", json_number(s.median_abs)},
          {"worst_rel_error", json_number(s.worst_signed)}};
}

void print_json(std::ostream& os, const ValidateHeader& h, const std::vector<ValidationRow>& rows) {
  nlohmann::ordered_json doc;
  doc["topology"] = h.topology;
  doc["calibration"] = h.calibration;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const ValidationRow& r : rows) {
    list.push_back({{"log", r.source},
                    {"line", r.line},
                    {"op", std::string(to_string(r.op))},
                    {"size_bytes", json_number(r.size_bytes)},
                    {"in_place", r.in_place},
                    {"measured_us", json_number(r.measured_us)},
                    {"predicted_us", json_number(r.predicted_us)},
                    {"rel_error", json_number(r.rel_error)},
                    {"measured_busbw_GBps", json_number(r.measured_busbw_GBps)},
                    {"predicted_busbw_GBps", json_number(r.predicted_busbw_GBps)},
                    {"algorithm", std::string(to_string(r.algorithm))},
                    {"protocol", std::string(to_string(r.protocol))}});
  }
  doc["rows"] = list;
  nlohmann::ordered_json per_op = nlohmann::ordered_json::object();
  for (const auto& [op, op_rows] : by_op(rows))
    per_op[op] = summary_json(summarize_errors(op_rows));
  doc["summary"] = {{"per_op", per_op}, {"all", summary_json(summarize_errors(rows))}};
  os << doc.dump(2) << "\n";
}

}  // namespace

void print_validate(std::ostream& os, const ValidateHeader& h,
                    const std::vector<ValidationRow>& rows, bool json) {
  if (json) {
    print_json(os, h, rows);
    return;
  }
  os << "# nccl-tests vs model on " << h.topology << " (calibration: " << h.calibration << ")\n";
  Table t({"op", "size", "place", "measured us", "predicted us", "error", "busbw meas",
           "busbw pred", "algo/proto"});
  for (const ValidationRow& r : rows) {
    t.add_row({std::string(to_string(r.op)), fmt("%.0f", r.size_bytes), r.in_place ? "in" : "out",
               fmt("%.2f", r.measured_us), fmt("%.2f", r.predicted_us),
               fmt("%+.1f%%", 100 * r.rel_error), fmt("%.2f", r.measured_busbw_GBps),
               fmt("%.2f", r.predicted_busbw_GBps), algo_proto(r)});
  }
  t.print(os);
  os << "\n";
  Table s({"op", "rows", "median |error|", "worst error"});
  auto add = [&](const std::string& name, const ErrorSummary& e) {
    s.add_row({name, fmt("%.0f", e.rows), fmt("%.1f%%", 100 * e.median_abs),
               fmt("%+.1f%%", 100 * e.worst_signed)});
  };
  for (const auto& [op, op_rows] : by_op(rows)) add(op, summarize_errors(op_rows));
  add("all", summarize_errors(rows));
  s.print(os);
}

void print_calibrate(std::ostream& os, const CommCalibration& c, const std::string& output) {
  Table t({"log", "op", "algo/proto", "rows", "latency us (model)", "GB/s (model)", "adjusts",
           "factor"});
  for (const RegimeFit& f : c.fits) {
    t.add_row({f.source, std::string(to_string(f.op)),
               std::string(to_string(f.algorithm)) + "/" + std::string(to_string(f.protocol)),
               fmt("%.0f", f.rows),
               (f.latency_fitted ? fmt("%.2f", f.latency_us) : std::string("-")) + " (" +
                   fmt("%.2f", f.model_latency_us) + ")",
               fmt("%.2f", f.GBps) + " (" + fmt("%.2f", f.model_GBps) + ")", f.constant,
               fmt("%.4f", f.factor)});
  }
  t.print(os);
  os << "\n# each change is kept only if the fitted rows' worst and median |error| do not grow\n";
  Table ch({"constant", "before", "after", "kept", "worst |err| fitted", "median |err| fitted"},
           {Align::Left, Align::Right, Align::Right, Align::Left, Align::Right, Align::Right});
  for (const CalibrationChange& x : c.changes)
    ch.add_row(
        {x.constant, fmt("%.4g", x.before), fmt("%.4g", x.after),
         x.accepted ? "yes" : "no (error grows)",
         fmt("%.1f%%", 100 * x.worst_before) + " -> " + fmt("%.1f%%", 100 * x.worst_after),
         fmt("%.1f%%", 100 * x.median_before) + " -> " + fmt("%.1f%%", 100 * x.median_after)});
  ch.print(os);
  os << "\n# per size, before and after (held out: every 4th size, not fitted)\n";
  Table r({"log", "size", "set", "measured us", "before us", "err", "after us", "err",
           "algo/proto after"},
          {Align::Left, Align::Right, Align::Left, Align::Right, Align::Right, Align::Right,
           Align::Right, Align::Right, Align::Left});
  for (const CalibrationCheck& x : c.check)
    r.add_row({x.source, fmt("%.0f", x.size_bytes), x.held_out ? "held out" : "fitted",
               fmt("%.2f", x.measured_us), fmt("%.2f", x.before_us),
               fmt("%+.1f%%", 100 * (x.before_us - x.measured_us) / x.measured_us),
               fmt("%.2f", x.after_us),
               fmt("%+.1f%%", 100 * (x.after_us - x.measured_us) / x.measured_us),
               std::string(to_string(x.after_algorithm)) + "/" +
                   std::string(to_string(x.after_protocol))});
  r.print(os);
  const auto line = [&os](const char* what, const ErrorSummary& b, const ErrorSummary& a) {
    os << what << " rows " << b.rows << ": median |err| " << fmt("%.1f%%", 100 * b.median_abs)
       << " -> " << fmt("%.1f%%", 100 * a.median_abs) << ", worst "
       << fmt("%+.1f%%", 100 * b.worst_signed) << " -> " << fmt("%+.1f%%", 100 * a.worst_signed)
       << "\n";
  };
  line("fitted", c.fitted_before, c.fitted_after);
  if (c.held_out_before.rows > 0)
    line("held out", c.held_out_before, c.held_out_after);
  else
    os << "held out rows 0: fewer than 4 sizes in every log\n";
  for (const auto& [type, e] : c.link_efficiency)
    os << "link_efficiency " << type << " = " << fmt("%.4f", e) << "\n";
  if (!output.empty()) os << "wrote " << output << "\n";
}

}  // namespace topoplan::report
