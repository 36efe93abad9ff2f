// Time of one micro-batch through a pipeline stage: the compute model's kernel times of the
// local shard plus every collective of the layer priced on the placement, all groups of a kind
// at once (docs/planner.md, "Step time").
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "plan/comm_sms.hpp"
#include "plan/moe_traffic.hpp"
#include "plan/placement_internal.hpp"
#include "plan/planner_impl.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology.hpp"

namespace topoplan {

namespace {

enum KernelSet { kDense = 0, kMoe = 1, kHeadFirst = 2, kHeadLast = 3, kDraft = 4 };

const GpuSpec& first_gpu(const Router& r, int gpus) {
  const Topology& t = r.topology();
  if (t.gpus().empty()) throw InputError(t.name, "", "the topology has no GPUs to plan on");
  if (gpus > static_cast<int>(t.gpus().size()))
    throw FieldError("gpus", std::to_string(gpus) +
                                 " GPUs asked ({gpus}, or the pinned tp x pp x dp) but " + t.name +
                                 " has " + std::to_string(t.gpus().size()));
  return t.uniform_gpu_spec("a serving plan");
}

// GPUs the plan uses: --gpus, else the product of tp, pp and dp when all three are pinned (vLLM
// --tensor-parallel-size 4 on an 8-GPU box uses 4), else the whole topology.
int plan_gpus(const PlanRequest& q, const Router& r) {
  if (q.gpus > 0) return q.gpus;
  if (q.tp && q.pp && q.dp) return *q.tp * *q.pp * *q.dp;
  return static_cast<int>(r.topology().gpus().size());
}

}  // namespace

TimeBreakdown kernel_breakdown(const ComputeModel& cm, const std::vector<KernelCost>& kernels,
                               double eager_launch_us) {
  TimeBreakdown b;
  for (const KernelCost& k : kernels) {
    KernelTiming t = cm.explain(k);
    // In a CUDA graph the GPU idles graph_gap_us between consecutive kernels; eagerly, the
    // launch wait below covers it.
    b.floors_us += t.floor_us + (eager_launch_us > 0 ? 0 : cm.graph_gap_us());
    b.launch_overhead_us += std::max(0.0, eager_launch_us - t.time_us);
    double body = t.time_us - t.floor_us;
    if (t.compute_us > t.memory_us || k.bytes <= 0) {
      b.compute_us += body;
      continue;
    }
    // Memory-bound: the time is bytes ÷ achieved bandwidth, so each kind of byte owns its share.
    b.weights_us += body * k.weight_bytes / k.bytes;
    b.kv_us += body * k.kv_bytes / k.bytes;
    b.activations_us += body * (k.bytes - k.weight_bytes - k.kv_bytes) / k.bytes;
  }
  return b;
}

Planner::Impl::Impl(const ModelSpec& m, const Router& r, PlanRequest q, SearchOptions o)
    : model(m),
      router(&r),
      req(std::move(q)),
      gpus(plan_gpus(req, r)),
      gpu(first_gpu(r, gpus)),
      cm(ComputeModel::for_gpu(gpu).with_fp8_block_gemm(req.fp8_block_gemm)),
      comm(r, req.comm_tuning ? *req.comm_tuning : NcclTuning::builtin()),
      comm_options([this] {
        CollectiveOptions opts;
        opts.allow_nvls = req.nvls;
        return opts;
      }()),
      placer(r, StepCounts{m.layers, layer_count(m, LayerType::Moe)}),
      blocks(r),
      search(std::move(o)) {
  precision_notes = fit_formats_to_gpu(model, gpu);
}

Shard Planner::Impl::shard(const Strategy& s) const {
  return Shard{.tp = s.tp, .ep = s.ep, .expert_tp = s.tp / s.ep, .attention_dp = s.attention_dp};
}

TimeBreakdown Planner::Impl::kernels(int what, const Strategy& s, const Workload& w) const {
  KernelKey key{what,    s.tp,         s.ep,     s.attention_dp, static_cast<int>(w.phase),
                w.batch, w.new_tokens, w.context};
  auto it = kernel_cache.find(key);
  if (it != kernel_cache.end()) return it->second;
  Shard sh = shard(s);
  std::vector<KernelCost> ks;
  if (what == kDense || what == kMoe) {
    ks = layer_kernels(model, what == kDense ? LayerType::Dense : LayerType::Moe, w, sh);
  } else {
    std::vector<KernelCost> head = head_kernels(model, w, sh);  // embedding, final norm, lm_head
    if (what == kHeadFirst) ks.assign(head.begin(), head.begin() + 1);
    if (what == kHeadLast) ks.assign(head.begin() + 1, head.end());
    if (what == kDraft) {
      // One MTP pass (DeepSeek-V3 §2.2): embedding, a projection of [h; emb] (2h → h), one
      // decoder layer and the shared LM head.
      ks = layer_kernels(model, model.is_moe() ? LayerType::Moe : LayerType::Dense, w, sh);
      ks.insert(ks.end(), head.begin(), head.end());
    }
  }
  // Prefill runs eagerly in SGLang/vLLM (graphs are captured for decode batch sizes only).
  bool eager = w.phase == Phase::Prefill || !req.cuda_graphs;
  TimeBreakdown b = kernel_breakdown(cm, ks, eager ? cm.eager_launch_us() : 0);
  kernel_cache.emplace(key, b);
  return b;
}

int Planner::Impl::tp_tile(const Strategy& s, PlacementOrder order) const {
  return search.reference_engine ? 0 : blocks.tp_tile_groups(s, order);
}

int Planner::Impl::block_dp(const Strategy& s, PlacementOrder order) const {
  return search.reference_engine ? s.dp : blocks.replicas(s, order);
}

std::vector<GroupSummary> Planner::Impl::summarize(const Placement& p) const {
  Strategy block = p.strategy;
  block.dp = block_dp(p.strategy, p.order);
  if (block.dp == p.strategy.dp) return summarize_groups(*router, p);
  const PlacementGroups g = placer.groups(block, p.order);
  std::vector<GroupSummary> out = {summarize_group(*router, "tp", g.tp_groups, false),
                                   summarize_group(*router, "ep", g.ep_groups, true),
                                   summarize_group(*router, "pp", g.pp_chains, false),
                                   summarize_group(*router, "dp", p.dp_groups, false)};
  const int copies = p.strategy.dp / block.dp;
  for (std::size_t k = 0; k < 3; ++k) out[k].groups *= copies;
  return out;
}

namespace {
// prepared() prices the first EP group of two or more GPUs (EP groups are alike on a
// symmetric placement), so the held groups keep that one: recutting every EP group of a
// 16,384-GPU placement for each ep variant cost more than pricing it.
void keep_first_ep_group(PlacementGroups& g) {
  auto it = std::find_if(g.ep_groups.begin(), g.ep_groups.end(),
                         [](const std::vector<int>& e) { return e.size() >= 2; });
  std::vector<std::vector<int>> first;
  if (it != g.ep_groups.end()) first.push_back(std::move(*it));
  g.ep_groups = std::move(first);
}

}  // namespace

const PlacementGroups& Planner::Impl::groups(const Strategy& s, PlacementOrder order) const {
  // TP groups and pipeline chains depend on (tp, pp, block dp, order) only: strategies that
  // differ in dp alone share them when both reduce to the same block, and the ep and
  // attention-DP variants enumerated next to each other share them and their prepared sets.
  // (Optimized chooses its GPUs with the EP groups in its proxy: there ep changes everything.)
  Strategy block = s;
  block.dp = block_dp(s, order);
  const std::tuple<int, int, int, int> key{s.tp, s.pp, block.dp, static_cast<int>(order)};
  if (key != held_key || (s.ep != held_ep && order == PlacementOrder::Optimized)) {
    if (order == PlacementOrder::Optimized) {
      held_groups = placer.groups(block, order);
      keep_first_ep_group(held_groups);
    } else {
      // placer.groups() less the DP groups and all but the first EP group, refilled in place.
      placement_detail::validate_strategy(*router, block);
      placement_detail::pricing_groups(block, order, router->topology().gpus(), held_groups);
    }
    held_prepared.clear();
    held_key = key;
    held_ep = s.ep;
  } else if (s.ep != held_ep) {
    placement_detail::add_ep_groups(s, held_groups, /*first_only=*/true);
    held_prepared.erase(kOpAllToAll);
    held_prepared.erase(kOpAllToAllNormal);
    held_ep = s.ep;
  }
  return held_groups;
}

namespace {
// The tile premise on the placer's side: tp-pp-dp TP group i is GPUs i·tp .. i·tp + tp − 1 of
// the topology's order. A placer that broke it would make the tile's price wrong, not slower.
void check_tile(const Router& r, const std::vector<std::vector<int>>& tp_groups, int tp, int n) {
  const auto& gpus = r.topology().gpus();
  bool ok = static_cast<int>(tp_groups.size()) >= n;
  for (int i = 0; ok && i < n; ++i)
    for (int j = 0; ok && j < tp; ++j)
      ok = tp_groups[static_cast<std::size_t>(i)].size() == static_cast<std::size_t>(tp) &&
           tp_groups[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] ==
               gpus[static_cast<std::size_t>(i * tp + j)];
  if (!ok) throw std::logic_error("planner: tp-pp-dp TP groups are not runs of consecutive GPUs");
}

// The stage boundaries of every pipeline chain: each is its own send/recv (chains' sends are
// not concurrent in the step model).
std::vector<std::pair<int, int>> boundaries(const PlacementGroups& g) {
  std::vector<std::pair<int, int>> out;
  std::size_t n = 0;
  for (const auto& chain : g.pp_chains) n += chain.empty() ? 0 : chain.size() - 1;
  out.reserve(n);
  for (const auto& chain : g.pp_chains)
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) out.emplace_back(chain[i], chain[i + 1]);
  return out;
}
}  // namespace

const PreparedCollective& Planner::Impl::prepared(int code, const Strategy& s,
                                                  PlacementOrder order) const {
  const PlacementGroups& g = groups(s, order);
  auto it = held_prepared.find(code);
  if (it != held_prepared.end()) return it->second;
  PreparedCollective p;
  if (code == kOpAllToAll || code == kOpAllToAllNormal) {
    // The first EP group: EP groups are alike on a symmetric placement (docs/planner.md). Kept
    // across strategies: many share their first EP group (same tp, ep).
    for (const auto& e : g.ep_groups) {
      if (e.size() < 2) continue;
      auto [at, fresh] = ep_prepared.try_emplace({code, e});
      if (fresh) {
        // Both matrices are linear in a copy's bytes: prepared for one byte, priced at `bytes`.
        TrafficMatrix unit = code == kOpAllToAll
                                 ? moe_dispatch_matrix(static_cast<int>(e.size()), 1.0,
                                                       1.0 / model.moe.top_k, model.moe.top_k)
                                 : deepep_normal_matrix(router->topology(), e, 1.0, 1.0, model.moe);
        at->second = comm.prepare_all_to_all({e}, {unit}, comm_options);
      }
      p = at->second;
      break;
    }
  } else if (code == static_cast<int>(CollOp::SendRecv)) {
    const std::vector<std::pair<int, int>> pairs = boundaries(g);
    if (!pairs.empty()) p = comm.prepare_pairs(CollOp::SendRecv, pairs, comm_options);
  } else if (const int n = tp_tile(s, order); n > 0) {
    auto [at, fresh] = tile_prepared.try_emplace({code, s.tp, static_cast<int>(order)});
    if (fresh) {
      check_tile(*router, g.tp_groups, s.tp, n);
      at->second = comm.prepare(static_cast<CollOp>(code),
                                {g.tp_groups.begin(), g.tp_groups.begin() + n}, comm_options);
    }
    p = at->second;
  } else {
    p = comm.prepare(static_cast<CollOp>(code), g.tp_groups, comm_options);
  }
  return held_prepared.emplace(code, std::move(p)).first->second;
}

double Planner::Impl::reference_us(int code, const Strategy& s, PlacementOrder order,
                                   double bytes) const {
  const Placement& pl = placer.place(s, order);
  double us = 0;
  if (code == kOpAllToAll || code == kOpAllToAllNormal) {
    for (const auto& g : pl.ep_groups) {
      if (g.size() < 2) continue;
      TrafficMatrix tm = code == kOpAllToAll
                             ? moe_dispatch_matrix(static_cast<int>(g.size()), 1.0,
                                                   bytes / model.moe.top_k, model.moe.top_k)
                             : deepep_normal_matrix(router->topology(), g, 1.0, bytes, model.moe);
      us = comm.all_to_all(g, tm, comm_options).time_us;
      break;
    }
  } else if (code == static_cast<int>(CollOp::SendRecv)) {
    for (const auto& chain : pl.pp_chains)
      for (std::size_t i = 0; i + 1 < chain.size(); ++i)
        us = std::max(us, comm.send_recv(chain[i], chain[i + 1], bytes, comm_options).time_us);
  } else {
    for (const CollectiveCost& c :
         comm.cost_concurrent(static_cast<CollOp>(code), pl.tp_groups, bytes, comm_options))
      us = std::max(us, c.time_us);
  }
  return us;
}

double Planner::Impl::ep_normal_alltoall_us(const Strategy& s, PlacementOrder order,
                                            double bytes) const {
  return collective_code_us(kOpAllToAllNormal, s, order, bytes);
}

double Planner::Impl::collective_us(CollOp op, const Strategy& s, PlacementOrder order,
                                    double bytes) const {
  if (op != CollOp::AllToAll && op != CollOp::SendRecv && s.tp < 2) return 0;
  return collective_code_us(op == CollOp::AllToAll ? kOpAllToAll : static_cast<int>(op), s, order,
                            bytes);
}

double Planner::Impl::collective_code_us(int code, const Strategy& s, PlacementOrder order,
                                         double bytes) const {
  if (bytes <= 0) return 0;
  // Keyed by the block's dp: strategies reducing to the same block price the same groups. A
  // tiled TP set prices the same whatever pp, dp, ep and attention DP are (pp 0 marks it).
  const bool tp_op = code != kOpAllToAll && code != kOpAllToAllNormal &&
                     code != static_cast<int>(CollOp::SendRecv);
  CommKey key =
      tp_op && tp_tile(s, order) > 0
          ? CommKey{code, s.tp, 0, 0, 0, false, static_cast<int>(order), bytes}
          : CommKey{
                code, s.tp, s.pp, block_dp(s, order), s.ep, s.attention_dp, static_cast<int>(order),
                bytes};
  auto it = comm_cache.find(key);
  if (it != comm_cache.end()) return it->second;
  double us = 0;
  if (search.reference_engine) {
    us = reference_us(code, s, order, bytes);
  } else if (const PreparedCollective& p = prepared(code, s, order); p.groups() > 0) {
    us = p.slowest(bytes).time_us;
  }
  comm_cache.emplace(key, us);
  return us;
}

TimeBreakdown Planner::Impl::layer_comm_time(LayerType t, const Strategy& s, PlacementOrder order,
                                             double tokens, Phase phase) const {
  LayerTraffic tr = layer_traffic(model, t, s, tokens, req.moe_comm);
  TimeBreakdown b;
  b.tp_allreduce_us =
      tr.tp_allreduces * collective_us(CollOp::AllReduce, s, order, tr.tp_allreduce_bytes);
  b.dp_gather_us = collective_us(CollOp::AllGather, s, order, tr.dp_gather_bytes) +
                   collective_us(CollOp::ReduceScatter, s, order, tr.dp_gather_bytes);
  if (tr.ep_dispatch_bytes_per_rank > 0) {
    LayerComm c = layer_comm(model, t);
    double per_rank = tokens / s.tp;  // tokens of one attention-DP rank
    if (phase == Phase::Prefill) {
      // DeepEP normal kernels (prefill): one copy per destination rank / node (moe_traffic.hpp).
      double k = model.moe.top_k;
      b.ep_alltoall_us =
          ep_normal_alltoall_us(s, order, per_rank * c.moe_dispatch_bytes_per_token / k) +
          ep_normal_alltoall_us(s, order, per_rank * c.moe_combine_bytes_per_token / k);
      return b;
    }
    // Low-latency kernels (decode): one RDMA copy per (token, expert) pair.
    b.ep_alltoall_us =
        collective_us(CollOp::AllToAll, s, order, per_rank * c.moe_dispatch_bytes_per_token) +
        collective_us(CollOp::AllToAll, s, order, per_rank * c.moe_combine_bytes_per_token);
  }
  return b;
}

double Planner::Impl::pp_send_us(const Strategy& s, PlacementOrder order, double tokens) const {
  if (s.pp == 1) return 0;
  return collective_us(CollOp::SendRecv, s, order,
                       tokens * layer_comm(model, LayerType::Dense).pp_bytes_per_token);
}

// DeepEP's normal (prefill) kernels copy on SMs: 20 of the H800's 132 (DeepEP Buffer.num_sms
// default; DeepSeek-V3 §3.2.2); its low-latency (decode) kernels receive by RDMA hooks that hold
// no SM while compute runs (DeepEP README, "low-latency kernels ... without occupying SMs").
TimeBreakdown Planner::Impl::moe_layer_tbo(const Strategy& s, PlacementOrder order,
                                           const Workload& w, double& ramp_us) const {
  Workload half = w;
  if (w.batch >= 2)
    half.batch = w.batch / 2;
  else
    half.new_tokens = w.new_tokens / 2;  // one prompt: its tokens split (SGLang's split index)
  TimeBreakdown k = kernels(kMoe, s, half).scaled(2);
  const TimeBreakdown c =
      layer_comm_time(LayerType::Moe, s, order, half.tokens(), w.phase).scaled(2);
  const double comm_us = c.tp_allreduce_us + c.dp_gather_us + c.ep_alltoall_us;
  const double sms = gpu.sm_count > 0 ? gpu.sm_count : kH800Sms;
  const double share = w.phase == Phase::Prefill ? held_sm_slowdown(kDualPipeCommSms, sms) : 0.0;
  const TboLayer t = tbo_layer(k.total_us(), comm_us, share);
  const double f = comm_us > 0 ? t.exposed_comm_us / comm_us : 0;
  k.tp_allreduce_us = c.tp_allreduce_us * f;
  k.dp_gather_us = c.dp_gather_us * f;
  k.ep_alltoall_us = c.ep_alltoall_us * f;
  k.comm_hidden_us = t.hidden_comm_us;
  ramp_us = t.ramp_us;
  return k;
}

TimeBreakdown Planner::Impl::stage_time(const Strategy& s, PlacementOrder order, const Workload& w,
                                        bool draft) const {
  TimeBreakdown dense = kernels(kDense, s, w), moe;
  dense += layer_comm_time(LayerType::Dense, s, order, w.tokens(), w.phase);
  // Two-batch overlap needs two halves (a batch of 2+, or a prompt of 2+ tokens) and MoE
  // communication to hide.
  double ramp_us = 0;
  const bool tbo = req.two_batch_overlap && model.is_moe() && s.ep > 1 && w.tokens() >= 2;
  if (model.is_moe()) {
    if (tbo) {
      moe = moe_layer_tbo(s, order, w, ramp_us);
    } else {
      moe = kernels(kMoe, s, w);
      moe += layer_comm_time(LayerType::Moe, s, order, w.tokens(), w.phase);
    }
  }
  TimeBreakdown worst;
  double worst_us = -1;
  for (int stage = 0; stage < s.pp; ++stage) {
    StageLayers sl = stage_layers(model, s.pp, stage);
    int n_moe = 0;
    for (int i = sl.first; i < sl.first + sl.count; ++i)
      n_moe += layer_type(model, i) == LayerType::Moe ? 1 : 0;
    TimeBreakdown t = dense.scaled(sl.count - n_moe);
    t += moe.scaled(n_moe);
    if (n_moe > 0) {  // the overlap's start, once per stage
      t.ep_alltoall_us += ramp_us;
      t.comm_hidden_us = std::max(0.0, t.comm_hidden_us - ramp_us);
    }
    if (stage == 0) t += kernels(kHeadFirst, s, w);
    if (stage == s.pp - 1) {
      t += kernels(kHeadLast, s, w);
      // Vocab-parallel logits are gathered across TP ranks before sampling (SGLang all-gather).
      double rows = w.logit_rows();
      if (!s.attention_dp)
        t.tp_allreduce_us +=
            collective_us(CollOp::AllGather, s, order,
                          rows * model.vocab * element_bytes(model.dtypes.activations));
      if (draft && req.mtp_accept > 0) {
        Workload d = w;
        d.new_tokens = 1;
        TimeBreakdown one = kernels(kDraft, s, d);
        one += layer_comm_time(model.is_moe() ? LayerType::Moe : LayerType::Dense, s, order,
                               d.tokens(), d.phase);
        t += one.scaled(req.mtp_draft);
      }
    }
    if (t.total_us() > worst_us) {
      worst_us = t.total_us();
      worst = t;
    }
  }
  return worst;
}

}  // namespace topoplan
