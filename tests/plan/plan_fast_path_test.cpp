// The planner's fast path (prepared, class-priced collectives on placement groups) gives the same
// plans and numbers as the general engine on the full placement (SearchOptions::reference_engine),
// and the same output on 1 and 2 threads. Larger clusters (up to 128 nodes) are compared by
// bench_plan --check (bench/plan/README.md).
#include <doctest/doctest.h>

#include <cmath>

#include "plan/plan_test_util.hpp"

using namespace topoplan;

namespace {

void same(double a, double b, const char* what) {
  CAPTURE(what);
  // Identical in practice; the EP all-to-all is priced from a unit matrix scaled by the size,
  // which may round differently in the last bit (the bound: 1e-9 relative).
  CHECK(std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)));
}

void same(const TimeBreakdown& a, const TimeBreakdown& b) {
  const auto ta = terms(a), tb = terms(b);
  REQUIRE(ta.size() == tb.size());
  for (std::size_t i = 0; i < ta.size(); ++i) same(ta[i].second, tb[i].second, ta[i].first.c_str());
}

void same(const PlanResult& a, const PlanResult& b) {
  CHECK(to_string(a.strategy) == to_string(b.strategy));
  CHECK(a.fits == b.fits);
  CHECK(a.reason == b.reason);
  CHECK(a.meets_limits == b.meets_limits);
  same(a.batch, b.batch, "batch");
  same(a.max_batch, b.max_batch, "max_batch");
  same(a.ttft_ms, b.ttft_ms, "ttft");
  same(a.tpot_ms, b.tpot_ms, "tpot");
  same(a.tokens_per_s, b.tokens_per_s, "tokens/s");
  same(a.memory.used_bytes(), b.memory.used_bytes(), "memory");
  same(a.decode, b.decode);
  same(a.prefill, b.prefill);
  CHECK(a.placement.size() == b.placement.size());
  REQUIRE(a.groups.size() == b.groups.size());
  for (std::size_t i = 0; i < a.groups.size(); ++i) {  // block summaries == full summaries
    const GroupSummary &x = a.groups[i], &y = b.groups[i];
    CAPTURE(x.kind);
    CHECK(x.kind == y.kind);
    CHECK(x.groups == y.groups);
    CHECK(x.size == y.size);
    CHECK(x.worst_class == y.worst_class);
    CHECK(x.bottleneck_GBps == y.bottleneck_GBps);
    CHECK(x.bottleneck_link == y.bottleneck_link);
    CHECK(x.crosses_nodes == y.crosses_nodes);
  }
}

void same(const PlanOutput& a, const PlanOutput& b) {
  REQUIRE(a.plans.size() == b.plans.size());
  for (std::size_t i = 0; i < a.plans.size(); ++i) same(a.plans[i], b.plans[i]);
  REQUIRE(a.pareto.size() == b.pareto.size());
  for (std::size_t i = 0; i < a.pareto.size(); ++i) {
    CHECK(to_string(a.pareto[i].strategy) == to_string(b.pareto[i].strategy));
    same(a.pareto[i].tokens_per_s_per_gpu, b.pareto[i].tokens_per_s_per_gpu, "pareto");
  }
  CHECK(a.explanation == b.explanation);
  REQUIRE(a.bad_placement.has_value() == b.bad_placement.has_value());
  if (a.bad_placement) same(*a.bad_placement, *b.bad_placement);
}

PlanOutput search(const std::string& model, const Router& r, const PlanRequest& q, bool reference,
                  int threads = 1) {
  SearchOptions o;
  o.reference_engine = reference;
  o.threads = threads;
  return plan(load_model(model), r, q, o);
}

}  // namespace

TEST_CASE("fast path == general engine on every built-in server (DeepSeek-R1, Llama-3-70B)") {
  for (const char* server :
       {"hgx-h100-8", "hgx-h20-8", "hgx-h200-8", "hgx-h800-8", "hgx-a800-8", "dgx-a100-8",
        "hgx-b200-8", "gb200-nvl72", "pcie-l40s-8", "pcie-rtx4090-8"}) {
    CAPTURE(server);
    test::Machine m(server);
    for (const char* model : {"deepseek-r1", "llama-3-70b"}) {
      CAPTURE(model);
      same(search(model, *m.router, PlanRequest{}, false), search(model, *m.router, {}, true));
    }
  }
}

TEST_CASE("fast path == general engine on clusters: rail-optimized, fat-tree, oversubscribed") {
  struct Case {
    const char* server;
    int nodes;
    const char* fabric;
    double oversubscription;
  };
  // 16 nodes of rail-optimized fit one leaf per rail; 16 nodes fat-tree need 4 leaves and a
  // spine tier (cross-leaf ECMP); 2:1 oversubscription makes the spines the bottleneck. On
  // fat-tree (4 servers per leaf) blocks of 1, 2 and 4 servers reduce to the first block
  // (replica_blocks.hpp), larger replicas take the general path.
  for (const Case& c :
       {Case{"hgx-h100-8", 4, "rail-optimized", 1.0}, Case{"hgx-h100-8", 16, "fat-tree", 1.0},
        Case{"hgx-h20-8", 16, "fat-tree", 2.0}, Case{"pcie-l40s-8", 4, "rail-optimized", 1.0}}) {
    CAPTURE(c.server);
    CAPTURE(c.nodes);
    CAPTURE(c.fabric);
    ClusterOptions o;
    o.nodes = c.nodes;
    o.fabric = parse_fabric_kind(c.fabric);
    o.oversubscription = c.oversubscription;
    const Topology t = load_topology(c.server, o);
    Router r(t);
    PlanRequest q;
    same(search("deepseek-r1", r, q, false), search("deepseek-r1", r, q, true));
    q.order = PlacementOrder::DpPpTp;  // strided TP groups: every group crosses servers
    q.mode = PlanMode::Decode;
    same(search("llama-3-70b", r, q, false), search("llama-3-70b", r, q, true));
  }
}

TEST_CASE("fast path == general engine where replica blocks straddle leaves (pp pinned to 3)") {
  // 16 fat-tree nodes, 4 servers per leaf: tp8 pp3 replicas are 3-server blocks, the second
  // spans leaves 0 and 1, so the strategy is not reduced; tp8 pp1/pp2 ones are.
  test::Machine m("hgx-h100-8", 16, FabricKind::FatTree);
  for (int pp : {1, 2, 3}) {
    CAPTURE(pp);
    PlanRequest q;
    q.tp = 8;
    q.pp = pp;
    q.gpus = pp == 3 ? 96 : 128;  // tp8 pp3 dp4: 12 servers in 4 blocks of 3
    q.mode = PlanMode::Decode;
    same(search("llama-3-70b", *m.router, q, false), search("llama-3-70b", *m.router, q, true));
  }
  // tp16 pp3 dp2: 6-server replicas straddle leaves (no block), but the TP set tiles in
  // leaf-aligned pairs of servers: its price is the first tile's (replica_blocks.hpp).
  PlanRequest q;
  q.tp = 16;
  q.pp = 3;
  q.gpus = 96;
  q.mode = PlanMode::Decode;
  same(search("llama-3-70b", *m.router, q, false), search("llama-3-70b", *m.router, q, true));
}

TEST_CASE("1 and 2 threads give the same output") {
  test::Machine m("hgx-h100-8", 4);
  const PlanOutput one = search("deepseek-r1", *m.router, PlanRequest{}, false, 1);
  const PlanOutput two = search("deepseek-r1", *m.router, PlanRequest{}, false, 2);
  CHECK(one.threads == 1);
  CHECK(two.threads == 2);
  same(one, two);
  // Not only within tolerance: the same bits (each strategy is evaluated by a pure function).
  for (std::size_t i = 0; i < one.plans.size(); ++i)
    CHECK(one.plans[i].tokens_per_s == two.plans[i].tokens_per_s);
  int calls = 0, last = 0;
  SearchOptions o;
  o.threads = 2;
  o.progress = [&](int done, int total) {
    ++calls;
    CHECK(done == last + 1);  // serialised, in order of completion
    CHECK(total == static_cast<int>(one.plans.size()));
    last = done;
  };
  plan(load_model("deepseek-r1"), *m.router, PlanRequest{}, o);
  CHECK(calls == static_cast<int>(one.plans.size()));
}
