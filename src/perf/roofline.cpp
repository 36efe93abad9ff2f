// Decode-step roofline: the seed's naive bound next to the sum of priced per-layer kernels.
#include <algorithm>
#include <map>

#include "topoplan/error.hpp"
#include "topoplan/perf.hpp"

namespace topoplan {

double naive_bound_us(double active_weight_bytes, double GBps) {
  return active_weight_bytes / (GBps * 1e3);
}

namespace {

// Adds `count` launches of kernel `k` to its group and to the result's totals and gap terms.
void add_kernels(RooflineResult& r, std::map<std::string, KernelGroup>& groups,
                 const ComputeModel& cm, const KernelCost& k, double count) {
  KernelTiming t = cm.explain(k);
  // The step replays in a CUDA graph: each kernel also waits the graph's inter-kernel gap.
  t.floor_us += cm.graph_gap_us();
  t.time_us += cm.graph_gap_us();
  KernelGroup& g = groups[k.name];
  g.name = k.name;
  g.kind = k.kind;
  g.count += count;
  g.flops += count * k.flops;
  g.bytes += count * k.bytes;
  g.weight_bytes += count * k.weight_bytes;
  g.kv_bytes += count * k.kv_bytes;
  g.time_us += count * t.time_us;
  g.floor_us += count * t.floor_us;
  // What the naive bound charges for these bytes: the same formula, kernel by kernel.
  const double ideal = naive_bound_us(k.bytes, cm.peak_hbm_GBps());
  g.ideal_us += count * ideal;
  g.compute_us += count * t.compute_us;
  g.memory_us += count * t.memory_us;
  r.gap.floors_us += count * t.floor_us;
  // time − ideal = floor + (memory − ideal) + max(0, compute − memory), kernel by kernel.
  r.gap.efficiency_us += count * (t.memory_us - ideal);
  r.gap.compute_us += count * std::max(0.0, t.compute_us - t.memory_us);
  r.kernels_per_step += count;
  r.flops += count * k.flops;
  r.bytes += count * k.bytes;
  r.weight_bytes_read += count * k.weight_bytes;
  r.kv_bytes_read += count * k.kv_bytes;
  r.refined_us += count * t.time_us;
}

}  // namespace

void validate_roofline(const ModelSpec& m, const Workload& w, const Shard& s) {
  require_batch(w.batch);
  require_context_within(w.context, m);
  if (s.tp < 1 || m.heads % s.tp != 0)
    throw FieldError("tp", std::to_string(s.tp) + " does not divide the " +
                               std::to_string(m.heads) + " attention heads of " + m.name);
}

RooflineResult decode_roofline(const ModelSpec& m, const ComputeModel& cm, const Workload& w,
                               const Shard& s) {
  if (w.phase != Phase::Decode) throw InputError("roofline", "", "expects a decode workload");
  RooflineResult r;
  const double peak = cm.peak_hbm_GBps();
  r.active_weight_bytes = weight_bytes(m, count_params(m).active);
  r.naive_us = naive_bound_us(r.active_weight_bytes / s.tp, peak);
  std::map<std::string, KernelGroup> groups;
  for (LayerType t : {LayerType::Dense, LayerType::Moe}) {
    const int n = layer_count(m, t);
    if (n == 0) continue;
    for (const KernelCost& k : layer_kernels(m, t, w, s)) add_kernels(r, groups, cm, k, n);
  }
  for (const KernelCost& k : head_kernels(m, w, s)) add_kernels(r, groups, cm, k, 1);
  // Byte terms at peak bandwidth: with the terms summed per kernel they add up to refined − naive.
  r.gap.weights_us = (r.weight_bytes_read - r.active_weight_bytes / s.tp) / (peak * 1e3);
  r.gap.kv_us = r.kv_bytes_read / (peak * 1e3);
  r.gap.activations_us = (r.bytes - r.weight_bytes_read - r.kv_bytes_read) / (peak * 1e3);
  ShardLayout layout;
  layout.shard = s;
  r.weight_bytes_per_gpu = weight_bytes_per_gpu(m, layout);
  r.kv_cache_bytes_per_gpu = kv_bytes_per_token(m, s) * w.batch * (w.context + w.new_tokens);
  r.memory_bytes =
      cm.bandwidth_overridden() ? 0 : cm.gpu().usable_memory_bytes();  // as the planner
  r.fits =
      r.memory_bytes <= 0 || r.weight_bytes_per_gpu + r.kv_cache_bytes_per_gpu <= r.memory_bytes;
  for (auto& [name, g] : groups) {
    const double mem_share = g.memory_us, comp_share = g.compute_us;
    g.bound = g.floor_us >= std::max(mem_share, comp_share)
                  ? Bound::Floor
                  : (comp_share > mem_share ? Bound::Compute : Bound::Memory);
    r.groups.push_back(g);
  }
  std::sort(r.groups.begin(), r.groups.end(),
            [](const KernelGroup& a, const KernelGroup& b) { return a.time_us > b.time_us; });
  return r;
}

}  // namespace topoplan
