// Memory accounting, strategy enumeration and infeasibility reasons, derived by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "plan/plan_test_util.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

TEST_CASE("llama-3-70b bf16 tp8 on 8xH100: weights, reserve, KV and max batch by hand") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-70b");
  PlanRequest r;
  r.prompt = 1024;
  r.output = 1024;
  Planner p(m, *h100.router, r);
  MemoryPerGpu mem = p.memory(strat(8));
  // 70.6e9 parameters x 2 B / 8 GPUs = 17.6 GB (norms replicated: 80 x 2 x 8192 x 2 B, ~2.6 MB).
  CHECK(mem.weights_bytes == doctest::Approx(70.6e9 * 2 / 8).epsilon(0.005));
  // Capacity is what the driver exposes: 81,559 MiB = 85,520,809,984 B (nvidia-smi on H100 SXM),
  // not the marketing 80e9. Reserve: (1 - 0.9) x that (vLLM gpu_memory_utilization 0.9).
  const double capacity = 81559.0 * 1048576;
  CHECK(mem.capacity_bytes == doctest::Approx(capacity));
  CHECK(mem.reserve_bytes == doctest::Approx(0.1 * capacity));
  // KV per token on one GPU: 80 layers x 2 x (8 kv heads / 8) x 128 x 2 B = 40,960 B.
  CHECK(mem.kv_bytes_per_token == 40960);
  // Everything else is what remains for the KV cache.
  CHECK(mem.kv_capacity_bytes == doctest::Approx(0.9 * capacity - mem.weights_bytes -
                                                 mem.activations_bytes - mem.comm_buffers_bytes));
  // Max batch: whole 2048-token sequences in that space, every TP rank holding its share.
  CHECK(p.max_batch(strat(8)) == std::floor(mem.kv_capacity_bytes / (40960.0 * 2048)));
  // The workspace is a prefill chunk of 8192 tokens of bf16 activations plus the sampler's fp32
  // logits for 256 sequences: at least 8192 x 8192 x 2 x 2 B (residual + normed input).
  CHECK(mem.activations_bytes > 8192.0 * 8192 * 2 * 2);
  CHECK(mem.activations_bytes < 2e9);
  // NCCL buffers: channels x 2 ring peers x 4 MiB, some channels but well under 1 GB.
  CHECK(mem.comm_buffers_bytes >= 2 * 4 * 1048576.0);
  CHECK(mem.comm_buffers_bytes < 1e9);
}

TEST_CASE("deepseek-r1 does not fit one H20 but fits eight with tp8") {
  Machine h20("hgx-h20-8");
  ModelSpec m = load_model("deepseek-r1");
  PlanRequest one;
  one.gpus = 1;
  PlanOutput out = plan(m, *h20.router, one);
  REQUIRE(out.plans.size() == 1);
  CHECK_FALSE(out.plans[0].fits);
  CHECK(out.plans[0].reason.find("weights 626.9 GiB") != std::string::npos);  // 673.2e9 B

  Planner p(m, *h20.router, PlanRequest{});
  MemoryPerGpu mem = p.memory(strat(8, 1, 1, 8));
  // 673.15 GB of weights (FP8 + block scales, bf16 embedding/head) / 8 = 84.1 GB, plus the
  // replicated MLA down-projections and norms (~1 GB): below 92.4 GB = 0.9 x 97,871 MiB (the
  // H20's nvidia-smi total, 102.6e9 B).
  CHECK(mem.weights_bytes > 673.15e9 / 8);
  CHECK(mem.weights_bytes < 0.9 * 97871.0 * 1048576);
  // What remains for the KV cache is small: 92.4 - 85.1 - ~1 GB workspace/buffers, under 7.5 GB,
  // i.e. ~100k tokens of 70,272 B.
  CHECK(mem.kv_capacity_bytes > 5e9);
  CHECK(mem.kv_capacity_bytes < 7.5e9);
  PlanResult r = p.evaluate(strat(8, 1, 1, 8));
  CHECK(r.fits);
  CHECK(r.max_batch >= 1);
  // Attention DP replicates the 11.4 GB of MLA weights on each GPU: no longer fits.
  PlanResult adp = p.evaluate(strat(8, 1, 1, 8, true));
  CHECK_FALSE(adp.fits);
  CHECK(adp.reason.find("exceed") != std::string::npos);
}

TEST_CASE("strategy enumeration counts and pins") {
  ModelSpec dense = load_model("llama-3-8b");
  ModelSpec moe = load_model("deepseek-r1");
  PlanRequest r;
  // Ordered triples tp x pp x dp = 8: 10.
  CHECK(enumerate_strategies(dense, 8, r).size() == 10);
  // MoE: tp=1: 4 triples; tp=2: 3 triples x 2 ep x 2 adp; tp=4: 2 x 3 x 2; tp=8: 1 x 4 x 2.
  CHECK(enumerate_strategies(moe, 8, r).size() == 4 + 12 + 12 + 8);
  r.tp = 8;
  r.attention_dp = false;
  auto pinned = enumerate_strategies(moe, 8, r);
  CHECK(pinned.size() == 4);  // ep 1, 2, 4, 8
  for (const Strategy& s : pinned) CHECK((s.tp == 8 && !s.attention_dp));
}

TEST_CASE("divisibility reasons") {
  ModelSpec l8 = load_model("llama-3-8b");  // 32 heads, 8 kv heads, intermediate 14336
  CHECK(divisibility_reason(l8, strat(8)).empty());
  CHECK(divisibility_reason(l8, strat(3)).find("heads 32 not divisible by tp 3") == 0);
  CHECK(divisibility_reason(l8, strat(64)).find("heads") != std::string::npos);
  CHECK(divisibility_reason(l8, strat(1, 33)).find("layers") != std::string::npos);
  ModelSpec ds = load_model("deepseek-r1");  // 256 experts
  CHECK(divisibility_reason(ds, strat(8, 1, 1, 8)).empty());
  CHECK(divisibility_reason(ds, strat(6, 1, 1, 3)).find("heads 128") == 0);
  // With attention DP the heads are not split; 256 experts still need ep | 256.
  CHECK(divisibility_reason(ds, strat(6, 1, 1, 3, true)).find("experts 256") == 0);
}

TEST_CASE("a TP group across servers is refused under --max-tp-class NVL") {
  Machine two("hgx-h100-8", 2);
  ModelSpec m = load_model("llama-3-8b");
  PlanRequest r;
  r.max_tp_class = PathClass::NVL;
  Planner p(m, *two.router, r);
  CHECK(p.evaluate(strat(8, 1, 2)).fits);
  PlanResult wide = p.evaluate(strat(16));
  CHECK_FALSE(wide.fits);
  CHECK(wide.reason.find("path class NET") != std::string::npos);
}

TEST_CASE("bad requests are field errors naming the request member, not a flag") {
  Machine h100("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  PlanRequest r;
  r.mtp_accept = 3;  // more than 1 + 1 draft token
  CHECK_THROWS_AS(Planner(m, *h100.router, r), FieldError);
  r = PlanRequest{};
  r.ep = 2;
  CHECK_THROWS_WITH(Planner(m, *h100.router, r), doctest::Contains("ep: "));
  r = PlanRequest{};
  r.gpus = 9;
  CHECK_THROWS_WITH(Planner(m, *h100.router, r), doctest::Contains("gpus: 9 GPUs asked"));
  CHECK_THROWS_AS(parse_plan_mode("serving"), UnknownNameError);
  CHECK(parse_path_class("nvl") == PathClass::NVL);
}

namespace {
// The field a bad request is refused for ("" when it is accepted).
std::string refused_field(const ModelSpec& m, const PlanRequest& r) {
  try {
    r.validate(m);
  } catch (const FieldError& e) {
    return e.field();
  }
  return "";
}
}  // namespace

TEST_CASE("every number of a request is checked where it enters: inf, NaN, past 2^53") {
  const ModelSpec m = load_model("llama-3-8b");  // context 8192
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto with = [](auto set) {
    PlanRequest r;
    set(r);
    return r;
  };
  CHECK(refused_field(m, PlanRequest{}).empty());
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.batch = inf; })) == "batch");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.batch = nan; })) == "batch");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.batch = 1e19; })) == "batch");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.batch = kMaxCount; })).empty());
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.prompt = nan; })) == "prompt");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.output = inf; })) == "output");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.prefill_chunk = inf; })) == "prefill_chunk");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.tpot_max_ms = inf; })) == "tpot_max_ms");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.ttft_max_ms = nan; })) == "ttft_max_ms");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.mtp_accept = nan; })) == "mtp_accept");
  // inf context was blamed on prompt/output with a count of INT64_MIN; a finite one too long for
  // the model is blamed on the context itself.
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.context = inf; })) == "context");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.context = 9000; })) == "context");
  CHECK(refused_field(m, with([&](PlanRequest& r) { r.prompt = 8000; })) == "prompt/output");
  // 1 + INT_MAX draft tokens overflowed an int; a draft longer than the output is refused.
  CHECK(refused_field(m, with([&](PlanRequest& r) {
                        r.mtp_accept = 2;
                        r.mtp_draft = std::numeric_limits<int>::max();
                      })) == "mtp_draft");
}
