// nccl-tests measurements against the collective model (include/topoplan/nccl_tests.hpp).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "topoplan/error.hpp"
#include "topoplan/nccl_tests.hpp"

namespace topoplan {

std::vector<int> log_group(const Topology& t, const NcclTestsLog& log) {
  if (static_cast<int>(t.gpus().size()) < log.ranks)
    throw InputError(log.source, "",
                     "ran on " + std::to_string(log.ranks) + " ranks but topology '" + t.name +
                         "' has " + std::to_string(t.gpus().size()) + " GPUs (use --nodes)");
  if (t.node_count() < log.nodes)
    throw InputError(log.source, "",
                     "ran on " + std::to_string(log.nodes) + " hosts but topology '" + t.name +
                         "' has " + std::to_string(t.node_count()) + " servers (use --nodes " +
                         std::to_string(log.nodes) + ")");
  if (log.nodes <= 1) return {t.gpus().begin(), t.gpus().begin() + log.ranks};
  if (log.ranks % log.nodes != 0)
    throw InputError(log.source, "",
                     std::to_string(log.ranks) + " ranks on " + std::to_string(log.nodes) +
                         " hosts do not split evenly; give the ranks with `collective --ranks`");
  const int per_host = log.ranks / log.nodes;
  std::vector<int> group;
  for (int node = 0; node < log.nodes; ++node) {
    const std::vector<int> gpus = t.gpus_of_node(node);
    if (static_cast<int>(gpus.size()) < per_host)
      throw InputError(log.source, "",
                       "ran " + std::to_string(per_host) + " ranks per host but server " +
                           std::to_string(node) + " of '" + t.name + "' has " +
                           std::to_string(gpus.size()) + " GPUs");
    group.insert(group.end(), gpus.begin(), gpus.begin() + per_host);
  }
  return group;
}

std::string log_gpu_mismatch(const Topology& t, const NcclTestsLog& log) {
  if (log.gpu_name.empty() || t.gpus().empty()) return "";
  const std::string model = t.device(t.gpus().front()).model;
  const std::string key = model.substr(0, model.find('-'));
  for (std::size_t at = log.gpu_name.find(key); at != std::string::npos;
       at = log.gpu_name.find(key, at + 1)) {
    const std::size_t end = at + key.size();
    const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(log.gpu_name[at - 1]));
    const bool ends =
        end == log.gpu_name.size() || !std::isdigit(static_cast<unsigned char>(log.gpu_name[end]));
    if (starts && ends) return "";
  }
  return "the log ran on '" + log.gpu_name + "', the topology's GPUs are " + model;
}

std::vector<ValidationRow> validate_log(const CollectiveModel& model, const NcclTestsLog& log,
                                        const CollectiveOptions& options, bool in_place) {
  const std::vector<int> group = log_group(model.router().topology(), log);
  CollectiveOptions o = options;
  if (log.op == CollOp::SendRecv) o.send_recv = SendRecvPattern::Ring;  // what sendrecv_perf runs
  std::vector<ValidationRow> out;
  for (const CollectiveMeasurement& m : log.rows) {
    if (m.in_place != in_place) continue;
    const CollectiveCost c = model.cost(log.op, group, m.size_bytes, o);
    ValidationRow r;
    r.op = log.op;
    r.size_bytes = m.size_bytes;
    r.in_place = m.in_place;
    r.measured_us = m.time_us;
    r.predicted_us = c.time_us;
    r.rel_error = (c.time_us - m.time_us) / m.time_us;
    r.measured_busbw_GBps = m.busbw_GBps;
    r.predicted_busbw_GBps = c.busbw_GBps;
    r.algorithm = c.algorithm;
    r.protocol = c.protocol;
    r.bottleneck_type = c.bottleneck.type;
    r.predicted_latency_us = c.latency_us;
    r.source = log.source;
    r.line = m.line;
    out.push_back(r);
  }
  return out;
}

ErrorSummary summarize_errors(const std::vector<ValidationRow>& rows) {
  ErrorSummary s;
  s.rows = static_cast<int>(rows.size());
  if (rows.empty()) return s;
  std::vector<double> abs;
  for (const ValidationRow& r : rows) {
    abs.push_back(std::abs(r.rel_error));
    if (std::abs(r.rel_error) >= s.worst_abs) {
      s.worst_abs = std::abs(r.rel_error);
      s.worst_signed = r.rel_error;
    }
  }
  std::sort(abs.begin(), abs.end());
  const std::size_t n = abs.size();
  s.median_abs = n % 2 ? abs[n / 2] : (abs[n / 2 - 1] + abs[n / 2]) / 2;
  return s;
}

Topology with_link_efficiency(const Topology& t,
                              const std::vector<std::pair<std::string, double>>& efficiency) {
  Topology out;
  out.name = t.name;
  out.description = t.description;
  out.fabric = t.fabric;
  out.set_catalog(t.shared_catalog());
  out.reserve(t.device_count(), t.link_count());
  for (std::size_t i = 0; i < t.device_count(); ++i) out.add_device(t.device(static_cast<int>(i)));
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    Link l = t.link(static_cast<int>(i));
    for (const auto& [type, e] : efficiency)
      if (l.type == type) l.efficiency = e;
    out.add_link(std::move(l));
  }
  return out;
}

}  // namespace topoplan
