// Activation quantization kernels before FP8 GEMMs (src/model/layer_cost.cpp, add_quant):
// bytes by hand, one per distinct input, none for bf16 models.
#include <doctest/doctest.h>

#include <algorithm>

#include "topoplan/hardware.hpp"
#include "topoplan/model.hpp"
#include "topoplan/perf.hpp"

using namespace topoplan;

namespace {

const KernelCost* find(const std::vector<KernelCost>& ks, const std::string& name) {
  auto it = std::find_if(ks.begin(), ks.end(), [&](const KernelCost& k) { return k.name == name; });
  return it == ks.end() ? nullptr : &*it;
}

}  // namespace

TEST_CASE("DeepSeek-R1 FP8 decode, one token on one GPU: quantization kernels by hand") {
  ModelSpec m = load_model("deepseek-r1");
  Workload w{.phase = Phase::Decode, .batch = 1, .new_tokens = 1, .context = 100};
  auto ks = layer_kernels(m, LayerType::Moe, w, Shard{});
  // Hidden 7168: read 2 B + write 1 B per element, one fp32 scale per 128 elements:
  // 7168 × 3 + 7168 / 128 × 4 = 21,504 + 224 = 21,728 B.
  const KernelCost* qkv = find(ks, "qkv_a_quant");
  REQUIRE(qkv != nullptr);
  CHECK(qkv->bytes == doctest::Approx(21728));
  CHECK(qkv->kind == KernelKind::Elementwise);
  // q_a_proj and kv_a_proj share one quantized input: a single qkv_a_quant.
  CHECK(std::count_if(ks.begin(), ks.end(), [](auto& k) { return k.name == "qkv_a_quant"; }) == 1);
  // Routed experts' down input: 1 token × top-8 rows × 2048: 8 × 2048 × 3 + 8 × 16 × 4 = 49,664.
  const KernelCost* down = find(ks, "experts_down_quant");
  REQUIRE(down != nullptr);
  CHECK(down->bytes == doctest::Approx(49664));
  // The shared experts' linear and the fused MoE each quantize the hidden states (fused_experts
  // calls per_token_group_quant_fp8 itself; measured in the whole H200 layer, 2026-12-04): the
  // same 21,728 B as qkv_a_quant. Under DeepEP the dispatch carries the FP8 copy: none.
  CHECK(find(ks, "shared_in_quant") != nullptr);
  const KernelCost* moe_in = find(ks, "experts_in_quant");
  REQUIRE(moe_in != nullptr);
  CHECK(moe_in->bytes == doctest::Approx(21728));
  Workload w8{.phase = Phase::Decode, .batch = 8, .new_tokens = 1, .context = 100};
  auto deepep = layer_kernels(m, LayerType::Moe, w8,
                              Shard{.tp = 8, .ep = 8, .expert_tp = 1, .attention_dp = true});
  CHECK(find(deepep, "experts_in_quant") == nullptr);
}

TEST_CASE("bf16 models get no quantization kernels") {
  ModelSpec m = load_model("llama-3-8b");
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 128, .context = 0};
  for (const KernelCost& k : layer_kernels(m, LayerType::Dense, w, Shard{}))
    CHECK(k.name.find("quant") == std::string::npos);
}

TEST_CASE("FP8 weights on A100: weight-only, bf16 math, no activation quantization") {
  // A100 has no FP8 tensor cores (fp8_TFLOPS 0 in the catalog): the GEMM reads 1-byte weights
  // and multiplies in bf16 (Marlin W8A16), so no quant kernel runs and the weight bytes stay.
  ModelSpec m = load_model("llama-3-8b");
  apply_precision(m, "fp8");
  std::vector<std::string> notes = fit_formats_to_gpu(m, Catalog::builtin().gpu("A100-SXM-80GB"));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("weight-only") != std::string::npos);
  Workload w{.phase = Phase::Decode, .batch = 4, .new_tokens = 1, .context = 100};
  auto ks = layer_kernels(m, LayerType::Dense, w, Shard{});
  const KernelCost* up = find(ks, "mlp_up_gate");
  REQUIRE(up != nullptr);
  CHECK(up->math_dtype == Dtype::BF16);
  // 2 x 14336 x 4096 weights at 1 + 4/16384 B.
  CHECK(up->weight_bytes == doctest::Approx(2.0 * 14336 * 4096 * (1 + 4.0 / 16384)));
  for (const KernelCost& k : ks) CHECK(k.name.find("quant") == std::string::npos);
}

TEST_CASE("FP8 on H100 is native, FP4 on H100 is weight-only, FP4 on B200 is native") {
  const Catalog& cat = Catalog::builtin();
  ModelSpec m = load_model("llama-3-8b");
  apply_precision(m, "fp8");
  CHECK(fit_formats_to_gpu(m, cat.gpu("H100-SXM")).empty());
  CHECK(m.dtypes.format(Part::Attention).weight_only == false);
  ModelSpec q = load_model("qwen3-235b-a22b");
  apply_precision(q, "fp4");
  ModelSpec b = q;
  CHECK(fit_formats_to_gpu(q, cat.gpu("H100-SXM")).size() == 1);
  CHECK(q.dtypes.format(Part::RoutedExperts).weight_only);
  CHECK(q.dtypes.moe_dispatch == Dtype::BF16);  // 16-bit experts take 16-bit tokens
  CHECK(fit_formats_to_gpu(b, cat.gpu("B200")).empty());
  CHECK(b.dtypes.moe_dispatch == Dtype::FP8);
  // NVFP4 activations on B200: 0.5 B per element + one e4m3 scale per 16 elements.
  Workload w{.phase = Phase::Decode, .batch = 1, .new_tokens = 1, .context = 100};
  auto ks = layer_kernels(b, LayerType::Moe, w, Shard{});
  const KernelCost* qkv = find(ks, "qkv_quant");
  REQUIRE(qkv != nullptr);
  // Hidden 4096: read 2 B + write 0.5 B per element + 4096 / 16 x 1 B = 10,240 + 256 = 10,496.
  CHECK(qkv->bytes == doctest::Approx(10496));
}
