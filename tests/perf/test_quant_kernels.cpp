// Activation quantization kernels before FP8 GEMMs (src/model/layer_cost.cpp, add_quant):
// bytes by hand, one per distinct input, none for bf16 models.
#include <doctest/doctest.h>

#include <algorithm>

#include "topoplan/model.hpp"

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
  // Shared and routed experts (both FP8) read one quantized copy of the hidden states.
  CHECK(find(ks, "shared_in_quant") != nullptr);
  CHECK(find(ks, "experts_in_quant") == nullptr);
}

TEST_CASE("bf16 models get no quantization kernels") {
  ModelSpec m = load_model("llama-3-8b");
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 128, .context = 0};
  for (const KernelCost& k : layer_kernels(m, LayerType::Dense, w, Shard{}))
    CHECK(k.name.find("quant") == std::string::npos);
}
