#include <doctest/doctest.h>

#include "model/tiny_models.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

using namespace topoplan;

TEST_CASE("KV cache bytes per token") {
  // Llama-3-70B: 80 layers x 2 (K,V) x 8 KV heads x 128 x 2 B = 327,680 B
  ModelSpec l70 = load_model("llama-3-70b");
  CHECK(kv_bytes_per_token(l70) == 327680);
  // tp=8: one KV head per GPU -> 327,680 / 8; tp=16: the 8 heads are replicated, still 1 head
  CHECK(kv_bytes_per_token(l70, Shard{.tp = 8}) == 40960);
  CHECK(kv_bytes_per_token(l70, Shard{.tp = 16}) == 40960);
  CHECK(kv_bytes_per_token(l70, Shard{.tp = 8}, 4) == 10240);  // 20 layers per stage
  // DeepSeek-V3 MLA: (512 + 64) x 61 layers x 2 B (bf16) = 70,272 B, the same on every TP rank
  ModelSpec ds = load_model("deepseek-v3");
  CHECK(kv_bytes_per_token(ds) == 70272);
  CHECK(kv_bytes_per_token(ds, Shard{.tp = 8}) == 70272);
  ds.dtypes.kv_cache = Dtype::FP8;
  CHECK(kv_bytes_per_token(ds) == 35136);
}

TEST_CASE("pipeline stages split layers evenly, remainder first") {
  ModelSpec m = load_model("deepseek-v3");  // 61 layers
  CHECK(stage_layers(m, 4, 0).count == 16);
  CHECK(stage_layers(m, 4, 1).first == 16);
  CHECK(stage_layers(m, 4, 3).first == 46);
  CHECK(stage_layers(m, 4, 3).count == 15);
}

TEST_CASE("sharded weights: conservation and replication") {
  ModelSpec m = test::tiny_moe();
  ParamCount c = count_params(m);
  // pp only: stages partition the model exactly.
  ShardLayout pp{.shard = Shard{}, .pp = 2};
  CHECK(params_per_gpu(m, pp, 0).sum() + params_per_gpu(m, pp, 1).sum() == c.total.sum());
  // tp=2 (experts split 2 ways too, ep=1): everything halves except norms and router, which
  // every rank holds: 2 x per-GPU - total = norms 40 + router 32 (GQA KV head 1 < tp is
  // replicated only in the cache, the K/V weights split by column: 4 columns each rank).
  ShardLayout tp{.shard = Shard{.tp = 2}};
  double per_gpu = params_per_gpu(m, tp, 0).sum();
  CHECK(2 * per_gpu - c.total.sum() == 40 + 32);
  // ep=2, tp=1: routed experts halve, nothing else changes.
  ShardLayout ep{.shard = Shard{.tp = 1, .ep = 2}};
  CHECK(params_per_gpu(m, ep, 0)[Part::RoutedExperts] == 288);
}

TEST_CASE("MLA latent projections are replicated across tensor parallel ranks") {
  ModelSpec m = test::tiny_mla();
  ShardLayout tp{.shard = Shard{.tp = 2}};
  // per layer: q_a 32 + kv_a 64 replicated; q_b 32, kv_b 60, o 48 split: 96 + 70 = 166
  CHECK(params_per_gpu(m, tp, 0)[Part::Attention] == 2 * 166);
}

TEST_CASE("DeepSeek-R1 FP8 weights on 8 GPUs (tp=8, ep=8)") {
  ModelSpec m = load_model("deepseek-r1");
  ShardLayout l{.shard = Shard{.tp = 8, .ep = 8}};
  double per_gpu = weight_bytes_per_gpu(m, l);
  double total = weight_bytes(m, count_params(m).total);
  // Split parts make up nearly all bytes, so per GPU is a bit over 1/8 of the total (~84 GB).
  CHECK(per_gpu > total / 8);
  CHECK(per_gpu < total / 8 * 1.02);
  ShardLayout mtp = l;
  mtp.load_mtp = true;
  CHECK(weight_bytes_per_gpu(m, mtp) > per_gpu);
}

TEST_CASE("shard validity") {
  ModelSpec l70 = load_model("llama-3-70b");  // 64 heads, 8 KV heads
  CHECK_FALSE(shard_problem(l70, Shard{.tp = 8}));
  CHECK_FALSE(shard_problem(l70, Shard{.tp = 16}));  // KV heads replicated
  CHECK(shard_problem(l70, Shard{.tp = 3}));
  CHECK(shard_problem(l70, Shard{.tp = 1, .ep = 2}));  // dense model
  ModelSpec ds = load_model("deepseek-v3");            // 256 experts, intermediate 2048
  CHECK_FALSE(shard_problem(ds, Shard{.tp = 8, .ep = 64}));
  CHECK(shard_problem(ds, Shard{.tp = 1, .ep = 3}));
  CHECK(shard_problem(ds, Shard{.tp = 1, .ep = 1, .expert_tp = 3}));
  CHECK_THROWS_AS(kv_bytes_per_token(l70, Shard{.tp = 0}), InputError);
  CHECK_THROWS_AS(layer_kernels(l70, LayerType::Dense, Workload{}, Shard{.tp = 1, .ep = 0}),
                  InputError);
  CHECK_THROWS_AS(params_per_gpu(l70, ShardLayout{.shard = Shard{}, .pp = 2}, 2), InputError);
}

TEST_CASE("weights per GPU by hand: tied copy on the last stage, MTP when loaded") {
  ModelSpec m = test::tiny_dense();
  m.tied_embeddings = true;
  // pp=2: stage 0 = layer 0 (attention 192 + norms 16 + MLP 288 = 496) + embedding 128 = 624;
  // stage 1 = layer 1 496 + final norm 8 + the tied matrix's copy 128 = 632 -> x 2 B = 1264 B.
  ShardLayout pp{.shard = Shard{}, .pp = 2};
  CHECK(params_per_gpu(m, pp, 0).sum() == 624);
  CHECK(params_per_gpu(m, pp, 1).sum() == 632);
  CHECK(weight_bytes_per_gpu(m, pp) == 1264);

  ModelSpec moe = test::tiny_moe();  // 1720 parameters
  moe.mtp_modules = 1;
  // MTP: one MoE block (attention 192 + norms 16 + routed 576 + shared 144 + router 32 = 960)
  // + eh_proj 2 x 8 x 8 = 128 + 3 norms x 8 = 24 -> 1112.
  CHECK(count_params(moe).mtp == 1112);
  ShardLayout l{.shard = Shard{}, .pp = 1, .load_mtp = true};
  CHECK(weight_bytes_per_gpu(moe, l) == (1720 + 1112) * 2);
  l.load_mtp = false;
  CHECK(weight_bytes_per_gpu(moe, l) == 1720 * 2);
}

TEST_CASE("redundant expert slots: EP144 over 288 slots holds two experts per GPU") {
  // DeepSeek-V3's decode deployment: 256 routed experts + 32 copies = 288 slots over EP144.
  ModelSpec ds = load_model("deepseek-v3");
  CHECK(shard_problem(ds, Shard{.tp = 144, .ep = 144, .attention_dp = true}));  // 256 % 144
  CHECK(shard_problem(ds, Shard{.tp = 144, .ep = 144}));  // 128 heads: TP attention cannot split
  ds.moe.redundant_experts = 32;
  CHECK(ds.moe.expert_slots() == 288);
  CHECK_FALSE(shard_problem(ds, Shard{.tp = 144, .ep = 144, .attention_dp = true}));
  // One expert: gate, up, down of 7,168 x 2,048 = 44,040,192 parameters; two per GPU.
  const ShardLayout l{.shard = Shard{.tp = 144, .ep = 144, .attention_dp = true}};
  const ParamBreakdown gpu = params_per_gpu(ds, l, 0);
  const double moe_layers = 58;  // 61 layers, the first 3 dense
  CHECK(gpu[Part::RoutedExperts] == doctest::Approx(moe_layers * 2 * 44040192.0));
  // The model's own parameter count does not change: copies are a deployment.
  CHECK(count_params(ds).total[Part::RoutedExperts] ==
        doctest::Approx(moe_layers * 256 * 44040192.0));
}
