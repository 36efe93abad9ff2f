#include <doctest/doctest.h>

#include <algorithm>

#include "model/moe_balance.hpp"
#include "model/tiny_models.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

using namespace topoplan;
using test::find;

TEST_CASE("tiny dense decode step, tp=1: every kernel by hand") {
  ModelSpec m = test::tiny_dense();
  // B=2 sequences, 1 new token each, L=10 cached: T = 2 tokens. bf16 everywhere (2 B).
  Workload w{.phase = Phase::Decode, .batch = 2, .new_tokens = 1, .context = 10};
  auto ks = layer_kernels(m, LayerType::Dense, w, Shard{});
  REQUIRE(ks.size() == 10);
  // attn_norm: read x + residual, write both: 4 x 2 x 8 x 2 B = 128, + weights 8 x 2 B = 16
  CHECK(find(ks, "attn_norm").bytes == 144);
  // qkv_proj: m=2, n=(2 + 2x1) x 4 = 16, k=8: 2mnk = 512 FLOPs;
  // weights 16 x 8 x 2 B = 256, activations (2x8 in + 2x16 out) x 2 B = 96
  const KernelCost qkv = find(ks, "qkv_proj");
  CHECK(qkv.n == 16);
  CHECK(qkv.flops == 512);
  CHECK(qkv.weight_bytes == 256);
  CHECK(qkv.bytes == 352);
  // attn: each sequence's new token sees L+1 = 11 keys; 2 x heads 2 x (qk 4 + v 4) x 2 seq x 11
  // = 704 FLOPs. KV per token on this GPU: 2 (K,V) x 1 head x 4 x 2 B = 16 B; read 10 + write 1
  // per sequence: 2 x 11 x 16 = 352 B. Plus q and output 2 tok x 2 heads x 8 x 2 B = 64 (the new
  // K,V come from the cache, where kv_store put them).
  const KernelCost attn = find(ks, "attn");
  CHECK(attn.flops == 704);
  CHECK(attn.kv_bytes == 352);
  CHECK(attn.bytes == 416);
  // rope: q and k in place, read + write: 2 tok x (2 + 1 heads) x 4 x 2 B x 2 = 96 B.
  CHECK(find(ks, "rope").bytes == 96);
  // kv_store: read the new K,V (2 tok x 2 x 1 x 4 x 2 B = 32) and write them to the cache (32).
  CHECK(find(ks, "kv_store").bytes == 64);
  // o_proj: 2 x 2 x 8 x 8 = 256 FLOPs; 128 B weights + (16 + 16) x 2 B = 192
  CHECK(find(ks, "o_proj").flops == 256);
  CHECK(find(ks, "o_proj").bytes == 192);
  // SwiGLU up+gate: n = 24: 2 x 2 x 24 x 8 = 768; down: 2 x 2 x 8 x 12 = 384
  CHECK(find(ks, "mlp_up_gate").flops == 768);
  CHECK(find(ks, "mlp_down").flops == 384);
  CHECK(find(ks, "mlp_down").bytes == 12 * 8 * 2 + 2 * (12 + 8) * 2);
  // silu_and_mul: read 2 x 12, write 12 per token: 3 x 2 x 12 x 2 B = 144
  CHECK(find(ks, "mlp_act").bytes == 144);
}

TEST_CASE("GEMM FLOPs of a layer equal 2 x tokens x matmul parameters") {
  ModelSpec m = test::tiny_dense();
  Workload w{.phase = Phase::Decode, .batch = 3, .new_tokens = 1, .context = 5};
  double gemm_flops = 0;
  for (const auto& k : layer_kernels(m, LayerType::Dense, w, Shard{}))
    if (k.kind == KernelKind::Gemm) gemm_flops += k.flops;
  ParamBreakdown p = layer_params(m, LayerType::Dense);
  CHECK(gemm_flops == 2 * 3 * (p[Part::Attention] + p[Part::DenseMlp]));
}

TEST_CASE("prefill attention is causal: S x L + S(S+1)/2 keys") {
  ModelSpec m = test::tiny_dense();
  // 1 sequence, 4 new tokens after 6 cached: 4 x 6 + 4 x 5 / 2 = 34 keys;
  // 2 x 2 heads x 8 x 34 = 1088 FLOPs; KV: read 6 + write 4 tokens x 16 B = 160 B.
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 4, .context = 6};
  const KernelCost attn = find(layer_kernels(m, LayerType::Dense, w, Shard{}), "attn");
  CHECK(attn.flops == 1088);
  CHECK(attn.kv_bytes == 160);
}

TEST_CASE("tensor parallelism splits heads and columns, fewer KV heads than tp replicate") {
  ModelSpec m = test::tiny_dense();
  Workload w{.phase = Phase::Decode, .batch = 2, .new_tokens = 1, .context = 10};
  auto ks = layer_kernels(m, LayerType::Dense, w, Shard{.tp = 2});
  // 1 query head per GPU, the single KV head replicated: n = (1 + 2) x 4 = 12
  CHECK(find(ks, "qkv_proj").n == 12);
  CHECK(find(ks, "attn").kv_bytes == 352);  // the full KV head on each GPU
  CHECK(find(ks, "attn").flops == 352);     // half the heads
  CHECK(find(ks, "mlp_up_gate").n == 12);
  CHECK(find(ks, "o_proj").k == 4);
  // attention DP: each GPU runs all heads on half the sequences
  auto dp = layer_kernels(m, LayerType::Dense, w, Shard{.tp = 2, .attention_dp = true});
  CHECK(find(dp, "qkv_proj").m == 1);
  CHECK(find(dp, "qkv_proj").n == 16);
  CHECK(find(dp, "attn").kv_bytes == 176);
}

TEST_CASE("expected experts touched: limits and monotonicity") {
  // One token touches exactly top_k experts: E_local x k/E summed over shards = k.
  CHECK(expected_experts_touched(1, 8, 256, 256) == doctest::Approx(8));
  CHECK(expected_experts_touched(1, 8, 256, 32) == doctest::Approx(1));  // ep = 8: k/ep
  CHECK(expected_experts_touched(0, 8, 256, 256) == 0);
  // Many tokens touch every local expert.
  CHECK(expected_experts_touched(1e5, 8, 256, 32) == doctest::Approx(32));
  // 3 tokens, top-2 of 4: 4 x (1 - (1/2)^3) = 3.5
  CHECK(expected_experts_touched(3, 2, 4, 4) == doctest::Approx(3.5));
  double prev = 0;
  for (double t = 1; t <= 1024; t *= 2) {  // beyond, 1 - (1-k/E)^T rounds to 1
    double e = expected_experts_touched(t, 8, 256, 256);
    CHECK(e > prev);
    CHECK(e <= 256);
    prev = e;
  }
}

TEST_CASE("tiny MoE layer: grouped GEMMs over the expected touched experts") {
  ModelSpec m = test::tiny_moe();
  Workload w{.phase = Phase::Decode, .batch = 3, .new_tokens = 1, .context = 4};
  auto ks = layer_kernels(m, LayerType::Moe, w, Shard{});
  // T=3 tokens x top-2 = 6 assignments over 3.5 expected experts (4 x (1 - 0.5^3)).
  const KernelCost up = find(ks, "experts_up_gate");
  CHECK(up.kind == KernelKind::GroupedGemm);
  CHECK(up.groups == doctest::Approx(3.5));
  CHECK(up.m == doctest::Approx(6 / 3.5));
  // FLOPs: 2 x 6 assignments x n=2x6 x k=8 = 1152; weights 3.5 x 12 x 8 x 2 B = 672 B
  CHECK(up.flops == doctest::Approx(1152));
  CHECK(up.weight_bytes == doctest::Approx(672));
  // router: 2 x 3 x 4 x 8 = 192; shared expert (intermediate 6): up_gate 2 x 3 x 12 x 8 = 576
  CHECK(find(ks, "router").flops == 192);
  CHECK(find(ks, "shared_up_gate").flops == 576);
  // top-k reads the 3 tokens' 4 scores once: 3 x 4 x 2 B = 24 B; moe_align sorts the 6
  // assignments (read and write: 2 x 6 x 2 B = 24 B).
  CHECK(find(ks, "topk").bytes == 24);
  CHECK(find(ks, "moe_align").bytes == 24);
  // ep=2: the layer waits for the busier of the 2 ranks (issue 14; the mean was 1.75 experts
  // and 3 assignments). Experts: each of a rank's 2 is touched with p = 1 − (1/2)^3 = 7/8, so a
  // rank's count is Binomial(2, 7/8) with F(0) = 1/64, F(1) = 15/64; the max of two has
  // E = (1 − 1/64²) + (1 − 15²/64²) = 2 − 226/4096 = 1.944824.
  // Assignments: Binomial(6, 1/2), F(0..5) = 1, 7, 22, 42, 57, 63 (/64); E[max of 2]
  // = 6 − (1 + 49 + 484 + 1764 + 3249 + 3969)/4096 = 3.676758 → FLOPs 2 × 3.676758 × 12 × 8.
  auto ep = layer_kernels(m, LayerType::Moe, w, Shard{.tp = 1, .ep = 2});
  CHECK(find(ep, "experts_up_gate").groups == doctest::Approx(2 - 226.0 / 4096));
  CHECK(find(ep, "experts_up_gate").flops == doctest::Approx(2 * (6 - 9516.0 / 4096) * 12 * 8));
}

TEST_CASE("tiny MLA: decode attends in latent space, prefill decompresses") {
  ModelSpec m = test::tiny_mla();
  Workload d{.phase = Phase::Decode, .batch = 1, .new_tokens = 1, .context = 5};
  auto ks = layer_kernels(m, LayerType::Dense, d, Shard{.tp = 2});
  // latent per token = kv_lora 6 + rope 2 = 8 elements x 2 B = 16 B, replicated on TP ranks:
  // read 5 + write 1 = 96 B. FLOPs: 2 x 1 head x (qk 8 + v 6) x 6 keys = 168.
  CHECK(find(ks, "attn").kv_bytes == 96);
  CHECK(find(ks, "attn").flops == 168);
  CHECK(find(ks, "kv_a_proj").n == 8);  // replicated latent projection
  CHECK(find(ks, "q_b_proj").n == 4);   // 1 head x (2 + 2)
  // Absorbed decode: kv_b_proj as two batched GEMMs over the query tokens only, q_nope (2) →
  // latent (6) per head before attention and latent (6) → v (3) after: the same weights and
  // flops as one kv_b_proj GEMM of n = 1 head x (2 + 3), k = 6, in two kernels.
  const KernelCost qa = find(ks, "q_absorb"), va = find(ks, "v_absorb");
  CHECK(qa.m == 1);
  CHECK(qa.n * qa.k == 1 * 6 * 2);
  CHECK(va.n * va.k == 1 * 3 * 6);
  CHECK(qa.weight_bytes + va.weight_bytes == 1 * (2 + 3) * 6 * 2);
  CHECK(qa.flops + va.flops == 2 * 1 * (1 * (2 + 3)) * 6);
  CHECK(std::none_of(ks.begin(), ks.end(),
                     [](const KernelCost& k) { return k.name == "kv_b_proj"; }));
  Workload p{.phase = Phase::Prefill, .batch = 1, .new_tokens = 2, .context = 5};
  auto pk = layer_kernels(m, LayerType::Dense, p, Shard{});
  // decompress 5 + 2 keys: kv_b m = 7, n = 2 heads x (2 + 3) = 10
  CHECK(find(pk, "kv_b_proj").m == 7);
  CHECK(find(pk, "kv_b_proj").n == 10);
  // keys: 2 x 5 + 3 = 13; 2 x 2 heads x (4 + 3) x 13 = 364
  CHECK(find(pk, "attn").flops == 364);
}

TEST_CASE("head kernels: prefill computes logits for the last token only") {
  ModelSpec m = test::tiny_dense();
  Workload p{.phase = Phase::Prefill, .batch = 2, .new_tokens = 5, .context = 0};
  auto ks = head_kernels(m, p, Shard{});
  CHECK(find(ks, "lm_head").m == 2);
  CHECK(find(ks, "lm_head").flops == 2 * 2 * 16 * 8);
  CHECK(find(ks, "embedding").m == 10);
  Workload d{.phase = Phase::Decode, .batch = 2, .new_tokens = 1, .context = 5};
  CHECK(find(head_kernels(m, d, Shard{.tp = 2}), "lm_head").n == 8);
}

TEST_CASE("cost grows with batch and context") {
  ModelSpec m = load_model("llama-3-8b");
  auto cost = [&](double b, double l) {
    return total_cost(layer_kernels(m, LayerType::Dense, {Phase::Decode, b, 1, l}, Shard{}));
  };
  CHECK(cost(2, 1000).flops > cost(1, 1000).flops);
  CHECK(cost(1, 2000).bytes > cost(1, 1000).bytes);
  CHECK(cost(8, 1000).weight_bytes == cost(1, 1000).weight_bytes);  // weights read once
}

TEST_CASE("communication volumes per token") {
  ModelSpec ds = load_model("deepseek-v3");
  LayerComm c = layer_comm(ds, LayerType::Moe);
  CHECK(c.tp_allreduce_bytes_per_token == 7168 * 2);
  // dispatch: 8 x 7168 x (1 B FP8 + 4 B / 128 scale) = 59,136 B; combine 8 x 7168 x 2 B
  CHECK(c.moe_dispatch_bytes_per_token == doctest::Approx(8 * 7168 * (1 + 4.0 / 128)));
  CHECK(c.moe_combine_bytes_per_token == 8 * 7168 * 2);
  CHECK(layer_comm(ds, LayerType::Dense).moe_dispatch_bytes_per_token == 0);
}

TEST_CASE("tiny MoE: the top-k combine reads every assignment and writes every token") {
  ModelSpec m = test::tiny_moe();  // hidden 8, 4 experts top-2, bf16 (2 B)
  // Prefill of 5 tokens, EP1: 5 × 2 = 10 assignments. Combine: reads 10 rows of 8, writes 5 rows
  // of 8: (10 + 5) × 8 × 2 B = 240 B.
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 5, .context = 0};
  const auto ks = layer_kernels(m, LayerType::Moe, w, Shard{});
  const KernelCost c = find(ks, "experts_combine");
  CHECK(c.kind == KernelKind::Elementwise);
  CHECK(c.bytes == doctest::Approx(240));
  CHECK(c.weight_bytes == 0);
  // EP2 inside TP2 (no attention DP): the busiest rank sums its assignments (E[max] of two
  // Binomial(10, 1/2), moe_balance.hpp) and writes all 5 tokens: (a + 5) × 16 B.
  Shard ep2{.tp = 2, .ep = 2};
  const double a = moe::busiest_rank_assignments(5, 2, 2);
  CHECK(a > 5);
  CHECK(find(layer_kernels(m, LayerType::Moe, w, ep2), "experts_combine").bytes ==
        doctest::Approx((a + 5) * 16));
  // Attention DP with ep = tp: DeepEP's combine all-to-all sums, no kernel.
  Shard deepep{.tp = 2, .ep = 2, .attention_dp = true};
  bool found = false;
  for (const KernelCost& k : layer_kernels(m, LayerType::Moe, w, deepep))
    found = found || k.name == "experts_combine";
  CHECK_FALSE(found);
}

TEST_CASE("block-scaled fp8 GEMMs are marked for the perf layer, others are not") {
  const ModelSpec r1 = load_model("deepseek-r1");  // fp8, 128x128 blocks
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 64, .context = 0};
  const auto ks = layer_kernels(r1, LayerType::Moe, w, Shard{.tp = 8});
  CHECK(find(ks, "experts_down").block_scaled);
  CHECK(find(ks, "o_proj").block_scaled);
  CHECK_FALSE(find(ks, "attn").block_scaled);
  ModelSpec m = test::tiny_moe();  // bf16
  CHECK_FALSE(find(layer_kernels(m, LayerType::Moe, w, Shard{}), "experts_down").block_scaled);
}

TEST_CASE("experts run by the fused-MoE kernel unless DeepEP dispatches them") {
  // SGLang 0.5.x picks DeepGEMM for the experts only with the DeepEP all-to-all (attention DP
  // over the whole EP group); TP or EP without it run the Triton fused MoE.
  ModelSpec m = test::tiny_moe();
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 5, .context = 0};
  auto fused = [&](const Shard& s) {
    return find(layer_kernels(m, LayerType::Moe, w, s), "experts_down").fused_moe;
  };
  CHECK(fused(Shard{}));
  CHECK(fused(Shard{.tp = 2, .ep = 2}));
  CHECK(fused(Shard{.tp = 2, .ep = 1, .attention_dp = true}));
  CHECK_FALSE(fused(Shard{.tp = 2, .ep = 2, .attention_dp = true}));
  // Dense GEMMs never carry the flag.
  CHECK_FALSE(find(layer_kernels(m, LayerType::Moe, w, Shard{}), "o_proj").fused_moe);
}

TEST_CASE("prefill attention carries its mean keys per query, decode none") {
  ModelSpec m = test::tiny_dense();
  // 4 new tokens after 6 cached: 34 kept scores (test above) over 4 queries = 8.5 = 6 + 5/2.
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 4, .context = 6};
  CHECK(find(layer_kernels(m, LayerType::Dense, w, Shard{}), "attn").mean_keys ==
        doctest::Approx(8.5));
  w.phase = Phase::Decode;
  w.new_tokens = 1;
  CHECK(find(layer_kernels(m, LayerType::Dense, w, Shard{}), "attn").mean_keys == 0);
}

TEST_CASE("fused-MoE rows: a partial last block above one block, by hand") {
  // 2 x 4,096 tokens, R1 TP8: 256 rows per expert, BLOCK_SIZE_M 64: 256 + 63/2 = 287.5 (12.3%
  // more rows; 11.6% measured in the whole H200 layer, r1-layer-h200-2026-12-04.json).
  CHECK(fused_moe_padded_rows(256, 8192) == doctest::Approx(287.5));
  // Up to one block the curves (measured at that m on whole tiles) already price the tile.
  CHECK(fused_moe_padded_rows(32, 8192) == 32);
  CHECK(fused_moe_padded_rows(64, 8192) == 64);
  // A step of at most 64 tokens uses 16-row blocks: 20 rows -> 20 + 15/2 = 27.5.
  CHECK(fused_moe_padded_rows(20, 64) == doctest::Approx(27.5));
  CHECK(fused_moe_padded_rows(10, 64) == 10);
  CHECK(fused_moe_padded_rows(0, 64) == 0);
}

TEST_CASE(
    "tiny MoE prefill: padded rows cost flops, not bytes, and DeepEP experts are not padded") {
  ModelSpec m = test::tiny_moe();
  // 512 tokens x top-2 = 1,024 assignments over all 4 experts (1 - 0.5^512 ≈ 1): 256 rows each,
  // padded to 287.5. up_gate FLOPs 2 x 1,024 x (287.5 / 256) x 12 x 8.
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 512, .context = 0};
  auto ks = layer_kernels(m, LayerType::Moe, w, Shard{});
  const KernelCost up = find(ks, "experts_up_gate");
  CHECK(up.flops == doctest::Approx(2 * 1024 * (287.5 / 256) * 12 * 8));
  CHECK(up.m == doctest::Approx(256));
  // The shared + routed sum: 512 tokens x hidden 8, read two and write one, 2 B each.
  CHECK(find(ks, "experts_shared_add").bytes == doctest::Approx(512 * 8 * 3 * 2));
  // DeepEP (attention DP, ep = tp = 2): DeepGEMM's grouped kernel, no padding term; each rank
  // adds its own tokens: the batch of 1 prompt sits whole on one rank, 512 rows.
  auto dk = layer_kernels(m, LayerType::Moe, w,
                          Shard{.tp = 2, .ep = 2, .expert_tp = 1, .attention_dp = true});
  const KernelCost dup = find(dk, "experts_up_gate");
  CHECK(dup.flops == doctest::Approx(2 * dup.groups * dup.m * 12 * 8));
  CHECK(find(dk, "experts_shared_add").bytes == doctest::Approx(512 * 8 * 3 * 2));
}

TEST_CASE("tiny MLA: RoPE, the KV-cache store and prefill's k concat are kernels") {
  ModelSpec m = test::tiny_mla();
  // Decode, tp 2 (1 local head): RoPE on q_pe (1 head) and k_pe, 2 rope dims each: 4 elements
  // read and written, 16 B; the store reads the 8-element latent and writes it to the cache:
  // 8 x 2 B + 8 x 2 B = 32 B. No concat in decode (absorbed attention).
  Workload d{.phase = Phase::Decode, .batch = 1, .new_tokens = 1, .context = 5};
  auto ks = layer_kernels(m, LayerType::Dense, d, Shard{.tp = 2});
  CHECK(find(ks, "mla_rope").bytes == 16);
  CHECK(find(ks, "mla_kv_store").bytes == 32);
  CHECK(std::none_of(ks.begin(), ks.end(), [](auto& k) { return k.name == "mla_k_concat"; }));
  // Prefill, 2 new tokens after 5: k for 7 keys x 2 heads x qk 4, read and written: 224 B.
  Workload p{.phase = Phase::Prefill, .batch = 1, .new_tokens = 2, .context = 5};
  CHECK(find(layer_kernels(m, LayerType::Dense, p, Shard{}), "mla_k_concat").bytes == 224);
}

TEST_CASE("require_batch: whole sequences only, 0 only where the search picks the batch") {
  CHECK_NOTHROW(topoplan::require_batch(3));
  CHECK_NOTHROW(topoplan::require_batch(0, /*zero_searches=*/true));
  CHECK_THROWS_WITH_AS(topoplan::require_batch(2.5),
                       "batch: must be a whole number of sequences, got 2.5", topoplan::FieldError);
  CHECK_THROWS_AS(topoplan::require_batch(0), topoplan::FieldError);
}
