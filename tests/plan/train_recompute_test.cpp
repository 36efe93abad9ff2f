// Selective recompute by module (Megatron-Core recompute_modules) and FP8 parameter gathers:
// the activation bytes each module drops, the forward it re-runs, the collectives a checkpointed
// block repeats, and what --fp8-param-gather changes in memory and in the parameter all-gather,
// each against a hand derivation.
#include <doctest/doctest.h>

#include "model/tiny_models.hpp"
#include "plan/plan_test_util.hpp"
#include "plan/train_impl.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology.hpp"

using namespace topoplan;

namespace {

TrainRequest request(double seq, int gbs) {
  return test::train_request(seq, gbs);
}

TrainStrategy selective(unsigned modules) {
  return TrainStrategy{
      .dp = 4, .recompute = Recompute::Selective, .recompute_modules = modules, .micro_batch = 1};
}

double act(const ModelSpec& m, const TrainStrategy& s, LayerType t) {
  return train_activation_bytes_per_layer(m, s, 4, true, false, t);
}

}  // namespace

TEST_CASE("recompute modules: the activation bytes each one drops, by hand") {
  // tiny_moe, T = 4 tokens, tp 1. Dense layer 768 (train_memory_test). MoE layer: replicated
  // 8h x T = 256, Q/K/V/o 192, log-sum-exp 32; 8 routed copies x 2 B x (h 8 + SwiGLU 3 x 6) =
  // 416; the shared expert (I 6) 4 x 2 B x 18 = 144. Total 1,040.
  ModelSpec m = test::tiny_moe();
  const TrainStrategy none{.dp = 4, .micro_batch = 1};
  CHECK(act(m, none, LayerType::Moe) == 1040);
  CHECK(act(m, selective(kRcCoreAttn), LayerType::Moe) == 1040);  // flash: nothing to drop
  // layernorm: the two norm outputs (QKV and MLP inputs, 4h x T = 128).
  CHECK(act(m, selective(kRcLayernorm), LayerType::Moe) == 1040 - 128);
  // moe_act: the fc2 input of each copy, 8 x 2 B x 6 = 96.
  CHECK(act(m, selective(kRcMoeAct), LayerType::Moe) == 1040 - 96);
  CHECK(act(m, selective(kRcSharedExperts), LayerType::Moe) == 1040 - 144);
  // moe: the routed and shared experts' activations (416 + 144); its input stays.
  CHECK(act(m, selective(kRcMoe), LayerType::Moe) == 1040 - 560);
  CHECK(act(m, selective(kRcMoe | kRcMoeAct), LayerType::Moe) == 1040 - 560);
  // mlp: the dense MLP's SwiGLU activations (288) in dense layers; nothing in MoE layers.
  CHECK(act(m, selective(kRcMlp), LayerType::Dense) == 768 - 288);
  CHECK(act(m, selective(kRcMlp), LayerType::Moe) == 1040);
  // MLA (tiny_mla: 2 heads, qk 2 + 2, v 3, q_lora 4, kv_lora 6): Q 8 + K 8 + V 6 + o 6 = 28
  // x 2 B x T = 224; the compressed path, down outputs (4 + 6 + 2) and normed latents (4 + 6)
  // = 22 x 2 B x T = 176; replicated 256, log-sum-exp 32, SwiGLU 288: 976. mla_up_proj drops
  // Q, K, V (22 x 2 B x T = 176).
  ModelSpec mla = test::tiny_mla();
  CHECK(act(mla, none, LayerType::Dense) == 976);
  CHECK(act(mla, selective(kRcMlaUpProj), LayerType::Dense) == 976 - 176);
  // Without MLA mla_up_proj drops nothing.
  CHECK(act(test::tiny_dense(), selective(kRcMlaUpProj), LayerType::Dense) == 768);
}

TEST_CASE("recompute modules: the forward kernels each one re-runs, by hand") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = test::tiny_mla();
  TrainRequest q = request(4096, 8);
  q.gpus = 8;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s = selective(kRcLayernorm | kRcMlaUpProj | kRcMlp);
  s.dp = 8;
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 4096, .context = 0};
  double norms = 0, up = 0, mlp = 0;
  for (const KernelCost& k : layer_kernels(e.bf16, LayerType::Dense, w, Shard{})) {
    double t = e.cm.kernel_time_us(k);
    if (k.name == "attn_norm" || k.name == "mlp_norm") norms += t;
    if (k.name == "q_b_proj" || k.name == "kv_b_proj" || k.name == "mla_k_concat" ||
        k.name == "mla_rope")
      up += t;
    if (k.name.rfind("mlp_", 0) == 0 && k.name != "mlp_norm") mlp += t;  // the norm is layernorm's
  }
  REQUIRE(norms > 0);
  REQUIRE(up > 0);
  REQUIRE(mlp > 0);
  train::PassTime p = e.pass(0, s);
  CHECK(p.module_fwd[1] == doctest::Approx(norms));
  CHECK(p.module_fwd[3] == doctest::Approx(up));
  CHECK(p.module_fwd[4] == doctest::Approx(mlp));
  // The step's recompute: 2 layers x 1 micro-batch x the three modules' forward.
  TrainPlan plan = e.evaluate(s);
  REQUIRE(plan.fits);
  CHECK(plan.breakdown.recompute_us == doctest::Approx(2 * (norms + up + mlp)));
  // Hardware FLOPs count the re-run GEMMs: (hw − model) TFLOP/s x step x GPUs = 8 GPUs x 2
  // layers x the modules' FLOPs.
  double flops = 0;
  for (const KernelCost& k : layer_kernels(e.bf16, LayerType::Dense, w, Shard{}))
    if (k.name == "q_b_proj" || k.name == "kv_b_proj" || k.name.rfind("mlp_", 0) == 0 ||
        k.name == "attn_norm" || k.name == "mlp_norm" || k.name == "mla_k_concat" ||
        k.name == "mla_rope")
      flops += k.flops;
  CHECK((plan.hw_tflops_per_gpu - plan.tflops_per_gpu) * 1e12 * plan.step_time_ms * 1e-3 ==
        doctest::Approx(2 * flops));
}

TEST_CASE("recompute modules: a checkpointed block repeats its TP and EP collectives") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(4096, 8);
  q.gpus = 2;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.tp = 2, .recompute = Recompute::Selective, .micro_batch = 1};
  s.dp = 1;
  // TP pass = 2 all-reduces of T x h bf16; the MLP's checkpoint re-runs one of them per layer.
  double ar = e.comm.cost(CollOp::AllReduce, 1, 2, 4096.0 * m.hidden * 2);
  double base = e.evaluate(s).breakdown.tp_us;
  s.recompute_modules = kRcMlp;
  CHECK(e.evaluate(s).breakdown.tp_us - base == doctest::Approx(8 * 32 * ar));
  // EP: dispatch + combine once more per MoE layer: 3 passes instead of 2.
  ModelSpec moe = test::tiny_moe();
  TrainRequest qm = request(64, 8);
  qm.gpus = 4;
  train::Evaluator em(moe, *mc.router, qm);
  TrainStrategy t{.dp = 4, .ep = 4, .micro_batch = 1};
  double ep = em.evaluate(t).breakdown.ep_us;
  REQUIRE(ep > 0);
  t.recompute = Recompute::Selective, t.recompute_modules = kRcMoe;
  CHECK(em.evaluate(t).breakdown.ep_us == doctest::Approx(1.5 * ep));
}

TEST_CASE("--fp8-param-gather: no bf16 copy of linear weights, 1 B per GEMM param gathered") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = test::tiny_dense();  // 1,256 parameters, 960 of them in linear layers
  TrainRequest q = request(16, 8);
  TrainStrategy s{.dp = 4, .zero = 1, .micro_batch = 1, .precision = TrainPrecision::FP8};
  TrainPlan plain = evaluate_training(m, *mc.router, q, s);
  q.fp8_param_gather = true;
  TrainPlan gathered = evaluate_training(m, *mc.router, q, s);
  // Weights: bf16 2 x 1,256 + FP8 copy and transpose 2 x 960 = 4,432; without the bf16 copy of
  // the 960 linear weights 2,512.
  CHECK(plain.memory.weights_bytes == 2 * 1256 + 2 * 960);
  CHECK(gathered.memory.weights_bytes == 2 * 1256);
  // DP: reduce-scatter of fp32 gradients (4 x 1,256 = 5,024 B; Megatron's default) + all-gather
  // of 960 FP8 + 296 bf16 = 1,552 B.
  CollectiveModel cm(*mc.router);
  std::vector<int> dp4(mc.topology.gpus().begin(), mc.topology.gpus().begin() + 4);
  double rs = cm.cost(CollOp::ReduceScatter, dp4, 5024).time_us;
  double ag = cm.cost(CollOp::AllGather, dp4, 1552).time_us;
  const TrainBreakdown& b = gathered.breakdown;
  CHECK(b.dp_us + b.dp_hidden_us == doctest::Approx(rs + ag));
  // The cast: 5 B per shard parameter (960 / 4) + the transposes 2 B x 960, not 4 B x 960.
  ComputeModel c = ComputeModel::for_gpu(mc.topology.uniform_gpu_spec("test"));
  auto cast_us = [&](double bytes) { return bytes / (c.achieved_hbm_GBps(bytes) * 1e3); };
  CHECK(plain.breakdown.fp8_overhead_us - gathered.breakdown.fp8_overhead_us ==
        doctest::Approx(cast_us(3840) - cast_us(3120)));
  // BF16 strategies and ZeRO 0 are refused when pinned.
  q.precision = TrainPrecision::BF16;
  CHECK_THROWS_AS(plan_training(m, *mc.router, q), FieldError);
  q.precision = TrainPrecision::FP8, q.zero = 0;
  CHECK_THROWS_AS(plan_training(m, *mc.router, q), FieldError);
}

TEST_CASE("recompute modules: names, description, pins") {
  CHECK(parse_recompute_modules("mla_up_proj,mlp") == (kRcMlaUpProj | kRcMlp));
  CHECK(parse_recompute_modules("moe_act") == kRcMoeAct);
  CHECK_THROWS_AS(parse_recompute_modules("attention"), UnknownNameError);
  CHECK_THROWS_AS(parse_recompute_modules(","), FieldError);
  CHECK(recompute_module_names(kRcLayernorm | kRcMoe) ==
        std::vector<std::string>{"layernorm", "moe"});
  TrainStrategy s = selective(kRcMlaUpProj | kRcMlp);
  CHECK(describe(s) == "tp1 cp1 pp1 dp4 zero1 rc:mla_up_proj+mlp mb1 bf16");
  s.recompute_modules = kRcCoreAttn;
  CHECK(describe(s) == "tp1 cp1 pp1 dp4 zero1 rc:selective mb1 bf16");
  TrainRequest q = request(16, 8);
  q.recompute = Recompute::Full, q.recompute_modules = kRcMlp;
  CHECK_THROWS_AS(q.validate(test::tiny_dense()), FieldError);
}

TEST_CASE("recompute modules: the search tries the MoE recipes' sets, and stops forcing full") {
  // Megatron-Bridge's DeepSeek-V3 H100 preset (1,024 GPUs, TP2 PP8 VP4 EP64, FP8) runs
  // selective recompute ("mla_up_proj", "mlp"), not full: with the module sets searched, the
  // planner's best plan at those pins is selective too.
  test::Machine mc("hgx-h100-8", 128);
  ModelSpec m = load_model("deepseek-v3");
  TrainRequest q = request(4096, 8192);
  q.tp = 2, q.pp = 8, q.vp = 4, q.cp = 1, q.ep = 64, q.zero = 1, q.micro_batch = 1;
  q.precision = TrainPrecision::FP8;
  TrainingResult r = plan_training(m, *mc.router, q);
  REQUIRE(r.plans[0].fits);
  CHECK(r.plans[0].strategy.recompute == Recompute::Selective);
  CHECK((r.plans[0].strategy.recompute_modules & kRcMlaUpProj) != 0);
  // Full recompute at the same pins is slower: it re-runs every layer's forward.
  q.recompute = Recompute::Full;
  TrainingResult full = plan_training(m, *mc.router, q);
  CHECK(full.plans[0].step_time_ms > r.plans[0].step_time_ms);
  // A dense model's search keeps Megatron's default selective set (core_attn).
  test::Machine one("hgx-h100-8");
  TrainRequest d = request(4096, 64);
  d.top = 100;
  for (const TrainPlan& p : plan_training(load_model("llama-3-8b"), *one.router, d).plans)
    CHECK(p.strategy.recompute_modules == kRcCoreAttn);
}
