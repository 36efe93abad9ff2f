// Text and JSON for validate --probe (probe_report.hpp).
#include "report/probe_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "report/json_number.hpp"
#include "report/table.hpp"

namespace topoplan::report {
namespace {

double rel_error(const ProbeRow& r) {
  return r.predicted_us / r.measured_us - 1;
}

struct Summary {
  std::size_t n = 0;
  double median_abs = 0, worst = 0;  // worst: the signed error of largest magnitude
};

Summary summarize(const std::vector<const ProbeRow*>& rows) {
  Summary s;
  std::vector<double> abs;
  for (const ProbeRow* r : rows) {
    const double e = rel_error(*r);
    abs.push_back(std::fabs(e));
    if (std::fabs(e) > std::fabs(s.worst)) s.worst = e;
  }
  s.n = abs.size();
  if (abs.empty()) return s;
  std::sort(abs.begin(), abs.end());
  const std::size_t h = abs.size() / 2;
  s.median_abs = abs.size() % 2 ? abs[h] : 0.5 * (abs[h - 1] + abs[h]);
  return s;
}

std::map<std::string, std::vector<const ProbeRow*>> by_family(const ProbeValidation& v) {
  std::map<std::string, std::vector<const ProbeRow*>> out;
  for (const ProbeRow& r : v.rows) out[r.family].push_back(&r);
  return out;
}

std::vector<const ProbeRow*> all_rows(const ProbeValidation& v) {
  std::vector<const ProbeRow*> out;
  for (const ProbeRow& r : v.rows) out.push_back(&r);
  return out;
}

nlohmann::ordered_json summary_json(const Summary& s) {
  return {{"points", s.n},
          {"median_abs_rel_error", json_number(s.median_abs)},
          {"worst_rel_error", json_number(s.worst)}};
}

void print_json(std::ostream& os, const ProbeValidation& v, bool points) {
  nlohmann::ordered_json doc;
  doc["probe"] = v.source;
  doc["gpu"] = v.gpu_name;
  doc["catalog_gpu"] = v.catalog_gpu;
  doc["compute_model"] = v.provenance;
  doc["date"] = v.date;
  doc["driver_version"] = v.driver_version;
  doc["cuda_version"] = v.cuda_version;
  doc["nccl_version"] = v.nccl_version;
  nlohmann::ordered_json fam = nlohmann::ordered_json::object();
  for (const auto& [name, rows] : by_family(v)) fam[name] = summary_json(summarize(rows));
  doc["families"] = fam;
  doc["all"] = summary_json(summarize(all_rows(v)));
  nlohmann::ordered_json host = nlohmann::ordered_json::array();
  for (const ProbeHostRow& h : v.host)
    host.push_back({{"gpu", h.gpu},
                    {"h2d_GBps", json_number(h.h2d_GBps)},
                    {"d2h_GBps", json_number(h.d2h_GBps)},
                    {"predicted_GBps", json_number(h.predicted_GBps)},
                    {"predicted_from", h.link}});
  doc["host_links"] = host;
  if (points) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const ProbeRow& r : v.rows)
      list.push_back({{"family", r.family},
                      {"label", r.label},
                      {"m", json_number(r.m)},
                      {"n", json_number(r.n)},
                      {"k", json_number(r.k)},
                      {"groups", json_number(r.groups)},
                      {"bytes", json_number(r.bytes)},
                      {"measured_us", json_number(r.measured_us)},
                      {"predicted_us", json_number(r.predicted_us)},
                      {"rel_error", json_number(rel_error(r))}});
    doc["points"] = list;
  }
  os << doc.dump(2) << "\n";
}

}  // namespace

void print_probe_validation(std::ostream& os, const ProbeValidation& v, bool points, bool json) {
  if (json) {
    print_json(os, v, points);
    return;
  }
  os << "# probe " << v.source << " vs model\n";
  os << "GPU " << v.gpu_name << " (catalog " << v.catalog_gpu << "), " << v.date << ", driver "
     << (v.driver_version.empty() ? "?" : v.driver_version) << ", CUDA "
     << (v.cuda_version.empty() ? "?" : v.cuda_version) << ", NCCL "
     << (v.nccl_version.empty() ? "-" : v.nccl_version) << "\n";
  os << "compute model: " << v.provenance << "\n";
  os << "error = predicted / measured - 1 (negative: the model is faster than the GPU)\n\n";
  if (points) {
    Table t({"family", "label", "m", "n", "k", "groups", "measured us", "predicted us", "error"});
    for (const ProbeRow& r : v.rows)
      t.add_row({r.family, r.label, fmt("%.0f", r.m), fmt("%.0f", r.n), fmt("%.0f", r.k),
                 fmt("%.0f", r.groups), fmt("%.2f", r.measured_us), fmt("%.2f", r.predicted_us),
                 fmt("%+.1f%%", 100 * rel_error(r))});
    t.print(os);
    os << "\n";
  }
  Table s({"family", "points", "median |error|", "worst error"});
  auto add = [&](const std::string& name, const Summary& e) {
    s.add_row({name, fmt("%.0f", static_cast<double>(e.n)), fmt("%.1f%%", 100 * e.median_abs),
               fmt("%+.1f%%", 100 * e.worst)});
  };
  for (const auto& [name, rows] : by_family(v)) add(name, summarize(rows));
  add("all", summarize(all_rows(v)));
  s.print(os);
  if (v.host.empty()) return;
  os << "\n";
  Table h({"host link", "h2d GB/s", "d2h GB/s", "predicted GB/s", "pred/meas h2d - 1", "from"});
  for (const ProbeHostRow& r : v.host)
    h.add_row({"gpu " + std::to_string(r.gpu), fmt("%.1f", r.h2d_GBps), fmt("%.1f", r.d2h_GBps),
               fmt("%.1f", r.predicted_GBps),
               fmt("%+.1f%%", 100 * (r.predicted_GBps / r.h2d_GBps - 1)), r.link});
  h.print(os);
}

}  // namespace topoplan::report
