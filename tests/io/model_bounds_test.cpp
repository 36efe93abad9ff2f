// Model width bounds (include/topoplan/limits.hpp, docs/limits.md): every width at its bound is
// accepted and planned without overflow (the asan preset runs this under UBSan), one past it is
// refused at the field the user wrote, in the native format and in Hugging Face configs.
#include <doctest/doctest.h>

#include <string>

#include "core/error_of.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/model.hpp"
#include "topoplan/plan.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using test::error_of;

namespace {

const std::string kData = std::string(TOPOPLAN_SOURCE_DIR) + "/tests/io/data/";
const std::string kHf = std::string(TOPOPLAN_SOURCE_DIR) + "/tests/model/data/hf/";

// `text` with the first `from` replaced by `to` (the test fails if `from` is not there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string refusal(const std::string& file, const std::string& from, const std::string& to) {
  const std::string text = replaced(read_text_file(file), from, to);
  return error_of([&] { parse_model_json(text, "m.json"); });
}

}  // namespace

TEST_CASE("model widths: every bound at once is accepted and planned without overflow") {
  CHECK(limits::kMaxModelWidth == 131072);
  CHECK(limits::kMaxFfnWidth == 524288);
  CHECK(limits::kMaxHeads == 4096);
  CHECK(limits::kMaxVocab == 16777216);
  const Topology topology = load_topology("hgx-h100-8");  // the router keeps a reference
  const Router router(topology);
  for (const char* name : {"model_dense_at_bounds.json", "model_mla_moe_at_bounds.json"}) {
    CAPTURE(name);
    const ModelSpec m = load_model(kData + name);
    CHECK(m.hidden == limits::kMaxModelWidth);
    CHECK(m.vocab == limits::kMaxVocab);
    CHECK(m.heads == limits::kMaxHeads);
    CHECK(m.intermediate == limits::kMaxFfnWidth);
    // Dense: per layer q, k, v and o are hidden x heads x head_dim = 2^17 x 2^12 x 2^17 = 2^46
    // parameters each, so 4 layers hold 2^50 (1.1e15), 2.3 PB in bf16: far past 8 x 80 GB.
    // The answer is "does not fit", with finite numbers, not an overflow or a crash.
    const PlanOutput out = plan(m, router, PlanRequest{});
    CHECK(out.status == "no_plan_fits");
    REQUIRE(!out.plans.empty());
    CHECK(out.plans.front().reason.find("weights") != std::string::npos);
  }
}

TEST_CASE("model widths: one past a bound is refused at the field that holds it") {
  const std::string dense = kData + "model_dense_at_bounds.json";
  const std::string mla = kData + "model_mla_moe_at_bounds.json";
  CHECK(refusal(dense, "\"hidden_size\": 131072", "\"hidden_size\": 131073") ==
        "m.json: /hidden_size: must be <= 131072, got 131073 (docs/limits.md)");
  CHECK(refusal(dense, "\"vocab_size\": 16777216", "\"vocab_size\": 16777217") ==
        "m.json: /vocab_size: must be <= 16777216, got 16777217 (docs/limits.md)");
  // Refused by the bound before validate_model says kv_heads must divide heads.
  CHECK(refusal(dense, "\"heads\": 4096", "\"heads\": 4097") ==
        "m.json: /attention/heads: must be <= 4096, got 4097 (docs/limits.md)");
  CHECK(refusal(dense, "\"head_dim\": 131072", "\"head_dim\": 131073") ==
        "m.json: /attention/head_dim: must be <= 131072, got 131073 (docs/limits.md)");
  CHECK(refusal(dense, "\"intermediate_size\": 524288", "\"intermediate_size\": 524289") ==
        "m.json: /mlp/intermediate_size: must be <= 524288, got 524289 (docs/limits.md)");
  CHECK(refusal(mla, "\"kv_lora_rank\": 131072", "\"kv_lora_rank\": 131073") ==
        "m.json: /attention/kv_lora_rank: must be <= 131072, got 131073 (docs/limits.md)");
  CHECK(refusal(mla, "\"expert_intermediate_size\": 524288",
                "\"expert_intermediate_size\": 524289") ==
        "m.json: /moe/expert_intermediate_size: must be <= 524288, got 524289 (docs/limits.md)");
  CHECK(refusal(mla, "\"shared_intermediate_size\": 524288",
                "\"shared_intermediate_size\": 524289") ==
        "m.json: /moe/shared_intermediate_size: must be <= 524288, got 524289 (docs/limits.md)");
  // Every size at 10^9 (was accepted and overflowed int in the planner): the first is hidden.
  CHECK(refusal(dense, "\"hidden_size\": 131072", "\"hidden_size\": 1000000000") ==
        "m.json: /hidden_size: must be <= 131072, got 1000000000 (docs/limits.md)");
}

TEST_CASE("model widths: Hugging Face configs are located at their own keys") {
  CHECK(refusal(kHf + "qwen3-30b-a3b.json", "\"moe_intermediate_size\": 768",
                "\"moe_intermediate_size\": 600000") ==
        "m.json: /moe_intermediate_size: must be <= 524288, got 600000 (docs/limits.md)");
  CHECK(refusal(kHf + "qwen3-30b-a3b.json", "\"num_attention_heads\": 32",
                "\"num_attention_heads\": 8192") ==
        "m.json: /num_attention_heads: must be <= 4096, got 8192 (docs/limits.md)");
  CHECK(refusal(kHf + "deepseek-v3.json", "\"kv_lora_rank\": 512", "\"kv_lora_rank\": 200000") ==
        "m.json: /kv_lora_rank: must be <= 131072, got 200000 (docs/limits.md)");
  // Mixtral's experts take intermediate_size: the dense key is named, the one in the file.
  CHECK(refusal(kHf + "mixtral-8x7b.json", "\"intermediate_size\": 14336",
                "\"intermediate_size\": 600000") ==
        "m.json: /intermediate_size: must be <= 524288, got 600000 (docs/limits.md)");
}
