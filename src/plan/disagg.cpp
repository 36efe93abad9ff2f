// Disaggregated serving search (disagg.hpp): for every split of the servers into a prefill and a
// decode pool, the prefill options (strategy × prompts per batch) and the decode pool's best
// strategy at the TPOT limit, joined by the KV transfer priced on the graph between the pools.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "topoplan/disagg.hpp"
#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/topology.hpp"
#include "topoplan/topology_io.hpp"

namespace topoplan {

namespace {

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// A billion requests per second is beyond any deployment; larger is a typo.
constexpr double kMaxRequestRate = 1e9;

struct PrefillOption {
  Strategy s;
  double batch = 0, step_us = 0;  // prompts per batch (all replicas), TTFT of that batch alone
};

struct DecodeOption {
  Strategy s;
  double batch = 0, step_us = 0, capacity_rps = 0;
};

// The pool's own request: its GPUs, its phase, no limits (the search applies them) and no pins.
PlanRequest pool_request(const PlanRequest& r, PlanMode mode, int gpus) {
  PlanRequest q = r;
  q.mode = mode;
  q.gpus = gpus;
  q.batch = 0;
  q.tpot_max_ms = q.ttft_max_ms = 0;
  q.workload = PlanWorkload::Steady;
  return q;
}

// Every fitting prefill strategy of `gpus` GPUs at 1, 2, 4, ... prompts per replica, up to one
// prefill chunk of whole prompts (engines batch waiting prompts up to the chunk) and the KV the
// replica can hold.
std::vector<PrefillOption> prefill_options(const ModelSpec& m, const Router& r,
                                           const PlanRequest& req, int gpus, int& evaluated) {
  const PlanRequest q = pool_request(req, PlanMode::Prefill, gpus);
  const Planner p(m, r, q);
  const double chunk_prompts = std::max(1.0, std::floor(req.prefill_chunk / req.prompt));
  std::vector<PrefillOption> out;
  for (const Strategy& s : enumerate_strategies(m, gpus, q)) {
    ++evaluated;
    if (!p.evaluate(s, s.dp).fits) continue;
    const double per_replica = std::min(chunk_prompts, std::floor(p.max_batch(s) / s.dp));
    for (double b = 1; b <= per_replica; b *= 2)
      out.push_back({s, b * s.dp, p.prefill(s, b * s.dp, req.prompt, req.order).total_us()});
  }
  return out;
}

// The decode strategy of `gpus` GPUs that finishes the most requests per second with TPOT
// within the limit: per strategy, the largest batch (whole sequences per replica) whose step
// meets it, found by bisection (the step grows with the batch). `search` also records whether
// any strategy fits in memory and the fastest TPOT one gives, so that a pool that misses only the
// TPOT limit is not called too small.
struct DecodeSearch {
  bool fits_any = false;
  double fastest_tpot_ms = std::numeric_limits<double>::infinity();  // at one sequence/replica
};
std::optional<DecodeOption> best_decode(const ModelSpec& m, const Router& r, const PlanRequest& req,
                                        int gpus, int& evaluated, DecodeSearch& search) {
  const PlanRequest q = pool_request(req, PlanMode::Decode, gpus);
  const Planner p(m, r, q);
  const double accepted = req.tokens_per_step(), context = req.decode_context();
  std::optional<DecodeOption> best;
  for (const Strategy& s : enumerate_strategies(m, gpus, q)) {
    ++evaluated;
    if (!p.evaluate(s, s.dp).fits) continue;
    auto step = [&](double per_replica) {
      return p.decode_step(s, per_replica * s.dp, context, req.order).total_us();
    };
    auto meets = [&](double per_replica) {
      return req.tpot_max_ms <= 0 || step(per_replica) / accepted / 1e3 <= req.tpot_max_ms;
    };
    double lo = 1, hi = std::floor(p.max_batch(s) / s.dp);
    if (hi < 1) continue;
    search.fits_any = true;
    search.fastest_tpot_ms = std::min(search.fastest_tpot_ms, step(lo) / accepted / 1e3);
    if (!meets(lo)) continue;
    if (meets(hi)) lo = hi;
    while (hi - lo > 1) {
      const double mid = std::floor((lo + hi) / 2);
      (meets(mid) ? lo : hi) = mid;
    }
    DecodeOption d{s, lo * s.dp, step(lo), 0};
    d.capacity_rps = d.batch * accepted / (d.step_us * 1e-6) / req.output;
    if (!best || d.capacity_rps > best->capacity_rps) best = d;
  }
  return best;
}

// One request's KV from prefill replica 0 (the pool's first GPUs) to decode replica 0 (the
// decode pool's first GPUs), every stream at once on the graph.
KvTransfer kv_transfer(const ModelSpec& m, const CollectiveModel& comm, const PlanRequest& req,
                       const Strategy& ps, const Strategy& ds, int prefill_gpus) {
  const std::vector<int>& gpus = comm.router().topology().gpus();
  std::vector<std::vector<int>> groups;
  for (const auto& [src, dst] : kv_stream_ranks(m, ps, ds))
    groups.push_back(
        {gpus[static_cast<std::size_t>(src)], gpus[static_cast<std::size_t>(prefill_gpus + dst)]});
  KvTransfer kv;
  kv.bytes_per_token = kv_bytes_per_token(m);
  kv.bytes_per_request = kv.bytes_per_token * kv_tokens_held(m, req.prompt);
  kv.streams = static_cast<int>(groups.size());
  kv.path = comm.router().path(groups[0][0], groups[0][1]).cls;
  const double stream_bytes = kv.bytes_per_request / kv.streams;
  const double us = comm.prepare(CollOp::SendRecv, groups).slowest(stream_bytes).time_us;
  kv.time_ms = us / 1e3;
  kv.GBps = us > 0 ? kv.bytes_per_request / us / 1e3 : 0;
  // Each prefill replica sends its requests' KV back to back over its own streams.
  kv.capacity_requests_per_s = us > 0 ? ps.dp / (us * 1e-6) : INFINITY;
  return kv;
}

}  // namespace

double kv_exposed_us(double kv_us, double prefill_us, int layers, bool layerwise) {
  if (!layerwise || layers < 1) return kv_us;
  const double L = layers;
  return kv_us <= prefill_us ? kv_us / L : kv_us - prefill_us + prefill_us / L;
}

namespace {

// The highest prefill utilisation (at most kDisaggMaxUtilization) whose queueing wait fits in
// `budget_us`; 0 when even an idle pool misses it.
double max_utilization(double budget_us, double step_us, double batch) {
  if (budget_us < 0) return 0;
  double lo = 0, hi = kDisaggMaxUtilization;
  if (disagg_queue_us(hi, step_us, batch) <= budget_us) return hi;
  for (int i = 0; i < 50; ++i) {
    const double mid = (lo + hi) / 2;
    (disagg_queue_us(mid, step_us, batch) <= budget_us ? lo : hi) = mid;
  }
  return lo;
}

struct Split {
  int prefill_units = 0, decode_units = 0;
  int prefill_gpus = 0, decode_gpus = 0;
  bool servers = false;  // units are servers (else GPUs of one server)
};

std::string ratio_text(const Split& sp) {
  return std::to_string(sp.prefill_units) + "P:" + std::to_string(sp.decode_units) + "D" +
         (sp.servers ? "" : " GPUs");
}

// The best joint operating point of one split: each prefill option with the decode pool's best,
// their KV transfer and the prefill queue within TTFT.
std::optional<DisaggResult> best_of_split(const ModelSpec& m, const CollectiveModel& comm,
                                          const PlanRequest& req, bool layerwise, const Split& sp,
                                          const std::vector<PrefillOption>& prefill,
                                          const DecodeOption& decode) {
  const int gp = sp.prefill_gpus, gd = sp.decode_gpus;
  std::optional<DisaggResult> best;
  std::map<std::tuple<int, int, int, bool>, KvTransfer> kv_cache;
  for (const PrefillOption& o : prefill) {
    const auto key = std::make_tuple(o.s.tp, o.s.pp, o.s.dp, o.s.attention_dp);
    auto it = kv_cache.find(key);
    if (it == kv_cache.end())
      it = kv_cache.emplace(key, kv_transfer(m, comm, req, o.s, decode.s, gp)).first;
    KvTransfer kv = it->second;
    kv.exposed_ms = kv_exposed_us(kv.time_ms * 1e3, o.step_us, m.layers, layerwise) / 1e3;
    const double budget = req.ttft_max_ms > 0
                              ? req.ttft_max_ms * 1e3 - kv.exposed_ms * 1e3 - o.step_us
                              : std::numeric_limits<double>::infinity();
    const double rho = max_utilization(budget, o.step_us, o.batch);
    if (rho <= 0) continue;
    DisaggResult r;
    r.kv = kv;
    r.prefill.nodes = sp.servers ? sp.prefill_units : 0;
    r.prefill.gpus = gp;
    r.prefill.strategy = o.s;
    r.prefill.batch = o.batch;
    r.prefill.step_ms = o.step_us / 1e3;
    r.prefill.capacity_requests_per_s = rho * o.batch / (o.step_us * 1e-6);
    r.decode.nodes = sp.servers ? sp.decode_units : 0;
    r.decode.gpus = gd;
    r.decode.strategy = decode.s;
    r.decode.batch = decode.batch;
    r.decode.step_ms = decode.step_us / 1e3;
    r.decode.capacity_requests_per_s = decode.capacity_rps;
    r.requests_per_s = std::min({r.prefill.capacity_requests_per_s,
                                 r.decode.capacity_requests_per_s, kv.capacity_requests_per_s});
    if (best && r.requests_per_s <= best->requests_per_s) continue;
    r.bottleneck = r.requests_per_s == r.decode.capacity_requests_per_s    ? "decode"
                   : r.requests_per_s == r.prefill.capacity_requests_per_s ? "prefill"
                                                                           : "kv_transfer";
    r.ratio = ratio_text(sp);
    best = r;
  }
  return best;
}

// The operating point's figures at the system's request rate.
void fill_operating_point(DisaggResult& r, const PlanRequest& req) {
  const double lambda = r.requests_per_s;
  DisaggPool& p = r.prefill;
  DisaggPool& d = r.decode;
  p.utilization = lambda * p.step_ms * 1e-3 / p.batch;
  d.utilization = lambda / d.capacity_requests_per_s;
  p.tokens_per_s = lambda * req.prompt;
  d.tokens_per_s = lambda * req.output;
  p.tokens_per_s_per_gpu = p.tokens_per_s / p.gpus;
  d.tokens_per_s_per_gpu = d.tokens_per_s / d.gpus;
  r.queue_ms = disagg_queue_us(p.utilization, p.step_ms * 1e3, p.batch) / 1e3;
  r.ttft_ms = r.queue_ms + p.step_ms + r.kv.exposed_ms;
  r.tpot_ms = d.step_ms / req.tokens_per_step();
  r.goodput_tokens_per_s = d.tokens_per_s;
  r.goodput_tokens_per_s_per_gpu = d.tokens_per_s / (p.gpus + d.gpus);
}

std::vector<Split> splits(const Topology& t, const DisaggRequest& dr) {
  const int nodes = t.node_count(), total = static_cast<int>(t.gpus().size());
  const bool servers = nodes >= 2;
  const int unit = servers ? total / nodes : 1, units = servers ? nodes : total;
  if (dr.prefill_nodes > 0 || dr.decode_nodes > 0) {
    if (dr.prefill_nodes < 1 || dr.decode_nodes < 1 || !servers ||
        dr.prefill_nodes + dr.decode_nodes > nodes)
      throw FieldError("prefill_nodes",
                       "with --decode-nodes: both at least 1, and together at most the " +
                           std::to_string(nodes) + " servers of " + t.name);
    return {
        {dr.prefill_nodes, dr.decode_nodes, dr.prefill_nodes * unit, dr.decode_nodes * unit, true}};
  }
  std::vector<Split> out;
  for (int p = 1; p < units; ++p)
    out.push_back({p, units - p, p * unit, (units - p) * unit, servers});
  return out;
}

void compare_with_aggregated(DisaggOutput& out, const ModelSpec& m, const Router& r) {
  PlanRequest q = out.request;
  q.mode = PlanMode::Serve;
  q.top = 1;
  const PlanOutput agg = plan(m, r, q);
  out.strategies_evaluated += agg.strategies_evaluated;
  if (!agg.plans.empty() && agg.plans.front().meets_limits) out.aggregated = agg.plans.front();
  if (!out.best) return;
  const double d = out.best->goodput_tokens_per_s;
  if (!out.aggregated) {
    out.verdict = "disaggregated: no aggregated plan meets the limits on these GPUs";
    return;
  }
  const double a = out.aggregated->tokens_per_s;
  out.verdict =
      (d >= a ? "disaggregated wins by " + fmt("%.2f", d / std::max(a, 1e-30))
              : "aggregated wins by " + fmt("%.2f", a / std::max(d, 1e-30))) +
      "x in output tokens/s within the limits; the disaggregated system is bound by its " +
      out.best->bottleneck + " " + (out.best->bottleneck == "kv_transfer" ? "" : "pool");
}

// The two pools of a mixed cluster (prefill = its first server group, decode = its second),
// each rebuilt as a cluster of its own to be searched on, and their split of the whole cluster
// (prefill GPUs first, as kv_transfer reads them).
struct MixedPools {
  Topology prefill_topology, decode_topology;
  Router prefill, decode;
  Split split;
  MixedPools(const Topology& t, const DisaggRequest& dr)
      : prefill_topology(pool_of(t, dr, 0)),
        decode_topology(pool_of(t, dr, 1)),
        prefill(prefill_topology),
        decode(decode_topology) {
    const auto& g = t.fabric.groups;
    split = {g[0].nodes, g[1].nodes, static_cast<int>(prefill_topology.gpus().size()),
             static_cast<int>(decode_topology.gpus().size()), true};
  }
  static Topology pool_of(const Topology& t, const DisaggRequest& dr, int which) {
    const auto& g = t.fabric.groups;
    if (g.size() != 2)
      throw InputError(t.name, "/cluster/servers",
                       "--disagg on a mixed cluster needs two server groups (prefill first, "
                       "then decode), got " +
                           std::to_string(g.size()));
    if ((dr.prefill_nodes > 0 && dr.prefill_nodes != g[0].nodes) ||
        (dr.decode_nodes > 0 && dr.decode_nodes != g[1].nodes))
      throw FieldError("prefill_nodes", "a mixed cluster's pools are its server groups (" +
                                            std::to_string(g[0].nodes) + " x " + g[0].server +
                                            " prefill, " + std::to_string(g[1].nodes) + " x " +
                                            g[1].server + " decode)");
    return which == 0 ? pool_cluster(t, 0, g[0].nodes) : pool_cluster(t, g[0].nodes, g[1].nodes);
  }
};

DisaggSizing size_for_rate(const DisaggResult& r, double rate) {
  DisaggSizing z;
  z.request_rate = rate;
  const double copies = std::ceil(rate / r.requests_per_s - 1e-9);
  if (copies * (r.prefill.gpus + r.decode.gpus) > static_cast<double>(limits::kMaxGpus))
    throw FieldError("request_rate", "needs " + fmt("%.3g", copies) + " copies of the " + r.ratio +
                                         " system, more than the " +
                                         std::to_string(limits::kMaxGpus) +
                                         " GPUs topoplan plans (docs/limits.md)");
  z.copies = static_cast<int>(copies);
  z.nodes = z.copies * (r.prefill.nodes + r.decode.nodes);
  z.gpus = z.copies * (r.prefill.gpus + r.decode.gpus);
  z.utilization = rate / (z.copies * r.requests_per_s);
  return z;
}

void refuse_pins(const PlanRequest& r) {
  if (r.tp || r.pp || r.dp || r.ep || r.attention_dp)
    throw FieldError("tp",
                     "--tp/--pp/--dp/--ep/--attention-dp pin one strategy, and --disagg "
                     "searches one per pool; drop the pins (or pin the pools' servers "
                     "with --prefill-nodes/--decode-nodes)");
  if (r.workload != PlanWorkload::Steady)
    throw FieldError("workload", "--workload burst/closed is not modelled with --disagg");
  // Each pool searches its own batch on its own GPUs; the aggregated baseline must run on the
  // same GPUs at the same limits, so a batch or a GPU count would apply to one side only.
  if (r.batch > 0)
    throw FieldError(
        "batch",
        "--disagg searches each pool's batch (the decode pool's is set by --tpot-max); "
        "drop --batch");
  if (r.gpus > 0)
    throw FieldError("gpus",
                     "--disagg splits all the servers into pools; size them with "
                     "--prefill-nodes/--decode-nodes, or the cluster with --nodes");
}

// Why no split has a plan: a pool too small for the model, or a limit no pool meets (the fastest
// TPOT a decode pool gives at one sequence per replica, when that is the binding one).
void explain_no_split(DisaggOutput& out, const std::map<int, std::vector<PrefillOption>>& prefill,
                      const std::map<int, std::optional<DecodeOption>>& decode,
                      const DecodeSearch& search) {
  const bool prefill_fits =
      std::any_of(prefill.begin(), prefill.end(), [](const auto& e) { return !e.second.empty(); });
  const bool decode_meets =
      std::any_of(decode.begin(), decode.end(), [](const auto& e) { return e.second.has_value(); });
  if (!prefill_fits || !search.fits_any) {
    out.status = "no_plan_fits";
    out.status_message = std::string("no split leaves the ") +
                         (prefill_fits ? "decode" : "prefill") +
                         " pool a strategy that fits in memory: the model needs more GPUs per "
                         "pool than a split gives (try fewer, larger pools or more servers)";
    return;
  }
  out.status = "no_plan_meets_limits";
  if (!decode_meets) {
    out.status_message = "no decode pool meets --tpot-max " + fmt("%g", out.request.tpot_max_ms) +
                         " ms: the fastest fitting strategy takes " +
                         fmt("%.2f", search.fastest_tpot_ms) +
                         " ms per token at one sequence per replica";
    return;
  }
  if (out.request.ttft_max_ms <= 0 && out.request.tpot_max_ms <= 0) {
    // No limit to blame: some splits fit a prefill pool and others a decode pool, none both.
    out.status = "no_plan_fits";
    out.status_message =
        "no split fits a strategy in both pools at once: each pool needs more of the servers "
        "(or of one server's GPUs) than the other leaves it (try more servers)";
    return;
  }
  out.status_message = "no split of the servers meets --ttft-max/--tpot-max with both pools";
}

}  // namespace

DisaggOutput plan_disagg(const ModelSpec& model, const Router& router, const PlanRequest& request,
                         const DisaggRequest& disagg) {
  refuse_pins(request);
  request.validate(model);
  if (!std::isfinite(disagg.request_rate) || disagg.request_rate < 0 ||
      disagg.request_rate > kMaxRequestRate)
    throw FieldError("request_rate", "must be a finite rate from 0 (none) to 1e9 requests/s");
  const Topology& t = router.topology();
  DisaggOutput out;
  out.model = model.name;
  out.topology = t.name;
  out.gpus = static_cast<int>(t.gpus().size());
  out.nodes = t.node_count();
  out.request = request;
  out.disagg = disagg;
  out.weight_format = describe_gemm_formats(model);
  out.kv_dtype = std::string(to_string(model.dtypes.kv_cache));
  if (out.gpus < 2) throw InputError(t.name, "", "--disagg needs at least 2 GPUs, one per pool");
  const CollectiveModel comm(router,
                             request.comm_tuning ? *request.comm_tuning : NcclTuning::builtin());
  // A mixed cluster's pools are its two server groups, each priced on its own servers with its
  // own GPU; one kind of server is split every way (or as --prefill-nodes/--decode-nodes say).
  std::optional<MixedPools> mixed;
  if (t.fabric.groups.size() > 1) mixed.emplace(t, disagg);
  const Router& prefill_router = mixed ? mixed->prefill : router;
  const Router& decode_router = mixed ? mixed->decode : router;
  out.prefill_gpu = prefill_router.topology().uniform_gpu_spec("a prefill pool").name;
  out.decode_gpu = decode_router.topology().uniform_gpu_spec("a decode pool").name;
  out.gpu = mixed ? out.prefill_gpu + " + " + out.decode_gpu : out.prefill_gpu;
  std::map<int, std::vector<PrefillOption>> prefill;
  std::map<int, std::optional<DecodeOption>> decode;
  DecodeSearch decode_search;
  for (const Split& sp : mixed ? std::vector<Split>{mixed->split} : splits(t, disagg)) {
    const int gp = sp.prefill_gpus, gd = sp.decode_gpus;
    if (!prefill.count(gp))
      prefill[gp] = prefill_options(model, prefill_router, request, gp, out.strategies_evaluated);
    if (!decode.count(gd))
      decode[gd] =
          best_decode(model, decode_router, request, gd, out.strategies_evaluated, decode_search);
    if (prefill[gp].empty() || !decode[gd]) continue;
    if (auto r = best_of_split(model, comm, request, disagg.kv_layerwise, sp, prefill[gp],
                               *decode[gd])) {
      fill_operating_point(*r, request);
      r->prefill.gpu = out.prefill_gpu;
      r->decode.gpu = out.decode_gpu;
      out.splits.push_back(*r);
    }
  }
  std::stable_sort(out.splits.begin(), out.splits.end(), [](const auto& a, const auto& b) {
    return a.goodput_tokens_per_s > b.goodput_tokens_per_s;
  });
  if (!out.splits.empty()) out.best = out.splits.front();
  if (out.best && disagg.request_rate > 0)
    out.sizing = size_for_rate(*out.best, disagg.request_rate);
  if (mixed)
    out.verdict =
        "no aggregated comparison: an aggregated engine runs one GPU kind (plan each "
        "pool's servers alone with `topoplan plan` to compare)";
  else
    compare_with_aggregated(out, model, router);
  if (!out.best) explain_no_split(out, prefill, decode, decode_search);
  return out;
}

}  // namespace topoplan
