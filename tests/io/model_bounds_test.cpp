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
  struct Case {
    const std::string& file;
    const char *key, *at_bound, *past, *pointer, *bound;
  };
  // "heads" 4097 is refused by the bound before validate_model says kv_heads must divide it;
  // every size at 10^9 (accepted before, it overflowed int in the planner) stops at hidden.
  const Case cases[] = {
      {dense, "hidden_size", "131072", "131073", "/hidden_size", "131072"},
      {dense, "vocab_size", "16777216", "16777217", "/vocab_size", "16777216"},
      {dense, "heads", "4096", "4097", "/attention/heads", "4096"},
      {dense, "head_dim", "131072", "131073", "/attention/head_dim", "131072"},
      {dense, "intermediate_size", "524288", "524289", "/mlp/intermediate_size", "524288"},
      {mla, "kv_lora_rank", "131072", "131073", "/attention/kv_lora_rank", "131072"},
      {mla, "expert_intermediate_size", "524288", "524289", "/moe/expert_intermediate_size",
       "524288"},
      {mla, "shared_intermediate_size", "524288", "524289", "/moe/shared_intermediate_size",
       "524288"},
      {dense, "hidden_size", "131072", "1000000000", "/hidden_size", "131072"}};
  for (const Case& c : cases) {
    const std::string key = std::string("\"") + c.key + "\": ";
    CHECK(refusal(c.file, key + c.at_bound, key + c.past) ==
          std::string("m.json: ") + c.pointer + ": must be <= " + c.bound + ", got " + c.past +
              " (docs/limits.md)");
  }
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
