// `topoplan model roofline` output: the naive bound, the refined estimate, why they differ.
#include "report/roofline_report.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "report/json_number.hpp"
#include "report/table.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {
namespace {

std::string ms(double us) {
  return fmt("%.2f ms", us / 1e3);
}
std::string signed_ms(double us) {
  return fmt("%+.2f ms", us / 1e3);
}

void print_json(std::ostream& os, const RooflineContext& c, const RooflineResult& r) {
  nlohmann::ordered_json j;
  j["model"] = c.model;
  j["gpu"] = c.gpu;
  j["peak_hbm_GBps"] = json_number(c.peak_hbm_GBps);
  j["bandwidth_override"] = c.bandwidth_override;
  j["curves_measured_on_this_gpu"] = c.curves_measured;
  j["provenance"] = c.provenance;
  j["weight_format"] = c.weight_format;
  j["precision_notes"] = c.precision_notes;
  j["workload"] = {{"phase", "decode"},
                   {"batch", c.workload.batch},
                   {"context", c.workload.context},
                   {"tp", c.shard.tp}};
  j["naive_us"] = json_number(r.naive_us);
  j["refined_us"] = json_number(r.refined_us);
  j["refined_per_token_us"] = json_number(r.refined_us / c.workload.batch);
  j["active_weight_bytes"] = json_number(r.active_weight_bytes);
  j["memory"] = {{"weight_bytes_per_gpu", json_number(r.weight_bytes_per_gpu)},
                 {"kv_cache_bytes_per_gpu", json_number(r.kv_cache_bytes_per_gpu)},
                 {"capacity_bytes", json_number(r.memory_bytes)},
                 {"fits", r.fits}};
  j["step"] = {{"kernels", r.kernels_per_step},
               {"flops", json_number(r.flops)},
               {"bytes", json_number(r.bytes)},
               {"weight_bytes", json_number(r.weight_bytes_read)},
               {"kv_bytes", json_number(r.kv_bytes_read)}};
  j["gap_us"] = {{"weights", json_number(r.gap.weights_us)},
                 {"kv_cache", json_number(r.gap.kv_us)},
                 {"activations", json_number(r.gap.activations_us)},
                 {"efficiency", json_number(r.gap.efficiency_us)},
                 {"compute", json_number(r.gap.compute_us)},
                 {"floors", json_number(r.gap.floors_us)}};
  auto& ks = j["kernels"] = nlohmann::ordered_json::array();
  for (const KernelGroup& g : r.groups) {
    ks.push_back({{"name", g.name},
                  {"kind", std::string(to_string(g.kind))},
                  {"count", g.count},
                  {"flops", json_number(g.flops)},
                  {"bytes", json_number(g.bytes)},
                  {"time_us", json_number(g.time_us)},
                  {"ideal_us", json_number(g.ideal_us)},
                  {"memory_us", json_number(g.memory_us)},
                  {"compute_us", json_number(g.compute_us)},
                  {"floor_us", json_number(g.floor_us)},
                  {"bound", std::string(to_string(g.bound))}});
  }
  os << j.dump(2) << "\n";
}

void print_gap(std::ostream& os, const RooflineResult& r) {
  const RooflineGap& g = r.gap;
  Table t({"why the refined estimate differs", "time", "cause"});
  t.add_row({"weights read vs active weights", signed_ms(g.weights_us),
             "MoE experts touched by the batch; embedding gathers rows, not the table"});
  t.add_row({"KV cache reads", signed_ms(g.kv_us), "attention reads the cache at this context"});
  t.add_row({"activations and outputs", signed_ms(g.activations_us), "non-weight bytes"});
  t.add_row({"bandwidth efficiency", signed_ms(g.efficiency_us),
             "kernels reach less than peak HBM bandwidth (efficiency curve)"});
  t.add_row(
      {"compute-bound kernels", signed_ms(g.compute_us), "tensor-core time above memory time"});
  t.add_row({"kernel floors", signed_ms(g.floors_us),
             fmt("%.0f launches", r.kernels_per_step) + " x per-kernel floor"});
  t.print(os, "  ");
}

void print_text(std::ostream& os, const RooflineContext& c, const RooflineResult& r) {
  os << c.model << " on one " << c.gpu << ": one decode step, batch " << fmt("%g", c.workload.batch)
     << ", context " << fmt("%g", c.workload.context) << ", TP " << c.shard.tp
     << (c.shard.tp > 1 ? " (one GPU's shard, communication excluded)" : "") << "\n";
  os << "memory bandwidth " << fmt("%g", c.peak_hbm_GBps) << " GB/s"
     << (c.bandwidth_override ? " (--mem-bw override)" : " (datasheet)") << "\n";
  os << "curves: " << c.provenance << "\n";
  os << "weights: " << c.weight_format << "\n";
  for (const std::string& n : c.precision_notes) os << "note: " << n << "\n";
  os << "\n";
  // Decimal here: bytes ÷ GB/s (10^9 B/s) must read as the division it is.
  os << "naive bound    " << format_bytes_decimal(r.active_weight_bytes / c.shard.tp)
     << " of active weights / " << fmt("%g", c.peak_hbm_GBps) << " GB/s = " << ms(r.naive_us)
     << " per step\n";
  os << "refined        " << fmt("%.0f", r.kernels_per_step) << " kernels = " << ms(r.refined_us)
     << " per step = TPOT (" << ms(r.refined_us / c.workload.batch)
     << " of GPU time per generated token over the batch; "
     << fmt("%.2fx", r.refined_us / r.naive_us) << " the naive bound)\n\n";
  print_gap(os, r);
  os << "\n";
  // Bytes in decimal units, as the bandwidth (GB/s) and the naive line above: bytes ÷ GB/s reads
  // as time. Memory capacity below stays in GiB, as `topo gpus` gives it (issue 28).
  Table k({"kernel", "launches", "bytes", "TFLOP", "time", "share", "ideal", "bound"});
  for (const KernelGroup& g : r.groups) {
    k.add_row({g.name, fmt("%.0f", g.count), format_bytes_decimal(g.bytes),
               fmt("%.3f", g.flops / 1e12), ms(g.time_us),
               fmt("%.1f%%", 100 * g.time_us / r.refined_us), ms(g.ideal_us),
               std::string(to_string(g.bound))});
  }
  k.print(os, "  ");
  if (!r.fits) {
    os << "\nnote: this does not fit one " << c.gpu << ": weights "
       << format_bytes_binary(r.weight_bytes_per_gpu) << " + KV cache "
       << format_bytes_binary(r.kv_cache_bytes_per_gpu) << " > "
       << format_bytes_binary(r.memory_bytes)
       << " (GiB, as topo gpus); both figures are per-step bandwidth time, not a feasible "
          "deployment.\n";
  } else if (r.memory_bytes <= 0) {
    os << "\nnote: memory capacity is not checked under --mem-bw.\n";
  }
  if (!c.curves_measured)
    os << "note: efficiency curves were measured on another GPU and scaled to this one's "
          "datasheet peaks.\n";
}

}  // namespace

void print_roofline(std::ostream& os, const RooflineContext& c, const RooflineResult& r,
                    bool json) {
  if (json) {
    print_json(os, c, r);
  } else {
    print_text(os, c, r);
  }
}

}  // namespace topoplan::report
