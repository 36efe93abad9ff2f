#include <doctest/doctest.h>

#include <string>

#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

using namespace topoplan;

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_model_json(text, "m.json");
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return "";
}
const std::string kBase =
    R"({"name": "x", "hidden_size": 8, "num_layers": 2, "vocab_size": 16, "max_context": 64,
        "attention": {"heads": 2, "kv_heads": 1}, "mlp": {"intermediate_size": 12})";
}  // namespace

TEST_CASE("catalog lists every built-in and loads each") {
  auto names = builtin_model_names();
  CHECK(names.size() >= 11);
  for (const auto& n : names) {
    CAPTURE(n);
    ModelSpec m = load_model(n);
    CHECK(m.name == n);
    CHECK(!m.sources.empty());
  }
}

TEST_CASE("minimal user JSON parses with defaults") {
  ModelSpec m = parse_model_json(kBase + "}", "m.json");
  CHECK(m.head_dim == 4);  // hidden / heads
  CHECK(m.mlp == MlpKind::SwiGlu);
  CHECK(m.dtypes.weights.dtype == Dtype::BF16);
}

TEST_CASE("bad input names the file and the JSON pointer") {
  CHECK(error_of("{").find("m.json") != std::string::npos);
  std::string e = error_of(kBase + R"(, "hiden": 3})");
  CHECK(e.find("/hiden") != std::string::npos);
  e = error_of(R"({"name": "x", "hidden_size": 8, "num_layers": 2, "vocab_size": 16,
      "max_context": 64, "attention": {"heads": 2, "kv_heads": 3}, "mlp": {"intermediate_size": 12}})");
  CHECK(e.find("/attention/kv_heads") != std::string::npos);
  e = error_of(kBase + R"(, "dtypes": {"weights": "fp7"}})");
  CHECK(e.find("/dtypes/weights") != std::string::npos);
  e = error_of(kBase + R"(, "dtypes": {"overrides": {"embeding": "bf16"}}})");
  CHECK(e.find("/dtypes/overrides/embeding") != std::string::npos);
  e = error_of(kBase +
               R"(, "moe": {"num_experts": 4, "top_k": 5, "expert_intermediate_size": 6}})");
  CHECK(e.find("/moe/top_k") != std::string::npos);
  e = error_of(R"({"name": "x", "hidden_size": -8})");
  CHECK(e.find("/hidden_size") != std::string::npos);
}

TEST_CASE("unknown model names suggest close ones") {
  try {
    load_model("llama-3-8");
    FAIL("expected UnknownNameError");
  } catch (const UnknownNameError& e) {
    CHECK(std::string(e.what()).find("llama-3-8b") != std::string::npos);
  }
}

TEST_CASE("Hugging Face config.json: llama and deepseek_v3 map to the built-ins") {
  // Values from meta-llama/Meta-Llama-3-8B config.json.
  const char* llama = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
    "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
    "max_position_embeddings": 8192, "hidden_act": "silu", "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "rope_theta": 500000.0})";
  ModelSpec hf = parse_model_json(llama, "/tmp/Meta-Llama-3-8B/config.json");
  CHECK(hf.name == "Meta-Llama-3-8B");
  CHECK(count_params(hf).total.sum() == count_params(load_model("llama-3-8b")).total.sum());
  // Values from deepseek-ai/DeepSeek-V3 config.json.
  const char* ds = R"({"model_type": "deepseek_v3", "hidden_size": 7168,
    "intermediate_size": 18432, "moe_intermediate_size": 2048, "num_hidden_layers": 61,
    "num_attention_heads": 128, "num_key_value_heads": 128, "n_shared_experts": 1,
    "n_routed_experts": 256, "num_experts_per_tok": 8, "first_k_dense_replace": 3,
    "moe_layer_freq": 1, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64, "v_head_dim": 128, "topk_method": "noaux_tc", "vocab_size": 129280,
    "n_group": 8, "topk_group": 4,
    "max_position_embeddings": 163840, "num_nextn_predict_layers": 1, "hidden_act": "silu",
    "tie_word_embeddings": false, "torch_dtype": "bfloat16",
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3",
                            "quant_method": "fp8", "weight_block_size": [128, 128]}})";
  ModelSpec d = parse_model_json(ds, "ds.json");
  ModelSpec builtin = load_model("deepseek-v3");
  CHECK(count_params(d).total.sum() == count_params(builtin).total.sum());
  CHECK(count_params(d).mtp == count_params(builtin).mtp);
  CHECK(weight_bytes(d, count_params(d).total) ==
        weight_bytes(builtin, count_params(builtin).total));
  CHECK(kv_bytes_per_token(d) == 70272);
  // Group-limited routing: 8 groups, 4 kept (the built-in's, from the same config).
  CHECK(d.moe.n_group == 8);
  CHECK(d.moe.topk_group == 4);
  CHECK(builtin.moe.n_group == 8);
  CHECK(builtin.moe.topk_group == 4);
  CHECK(builtin.moe.group_limited());
}

TEST_CASE("group-limited routing: defaults, and groups that do not divide are refused") {
  const std::string moe =
      R"(, "moe": {"num_experts": 8, "top_k": 2, "expert_intermediate_size": 6)";
  ModelSpec m = parse_model_json(kBase + moe + "}}", "m.json");
  CHECK(m.moe.n_group == 1);
  CHECK_FALSE(m.moe.group_limited());
  // n_group alone keeps every group (no limit).
  m = parse_model_json(kBase + moe + R"(, "n_group": 4}})", "m.json");
  CHECK(m.moe.topk_group == 4);
  CHECK_FALSE(m.moe.group_limited());
  CHECK(error_of(kBase + moe + R"(, "n_group": 3}})").find("/moe/n_group") != std::string::npos);
  CHECK(error_of(kBase + moe + R"(, "n_group": 4, "topk_group": 5}})").find("/moe/topk_group") !=
        std::string::npos);
  // top_k 3 exceeds the 2 experts of the one group of 2 a token keeps.
  const std::string moe3 =
      R"(, "moe": {"num_experts": 8, "top_k": 3, "expert_intermediate_size": 6)";
  CHECK(error_of(kBase + moe3 + R"(, "n_group": 4, "topk_group": 1}})").find("/moe/top_k") !=
        std::string::npos);
}

TEST_CASE("Hugging Face config: qwen3_moe and mixtral keys, unsupported model_type") {
  const char* qwen = R"({"model_type": "qwen3_moe", "hidden_size": 4096, "intermediate_size": 12288,
    "moe_intermediate_size": 1536, "num_hidden_layers": 94, "num_attention_heads": 64,
    "num_key_value_heads": 4, "head_dim": 128, "num_experts": 128, "num_experts_per_tok": 8,
    "decoder_sparse_step": 1, "mlp_only_layers": [], "vocab_size": 151936,
    "max_position_embeddings": 40960, "tie_word_embeddings": false, "hidden_act": "silu"})";
  CHECK(count_params(parse_model_json(qwen, "q.json")).total.sum() ==
        count_params(load_model("qwen3-235b-a22b")).total.sum());
  const char* mix = R"({"model_type": "mixtral", "hidden_size": 6144, "intermediate_size": 16384,
    "num_hidden_layers": 56, "num_attention_heads": 48, "num_key_value_heads": 8,
    "num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32768,
    "max_position_embeddings": 65536, "hidden_act": "silu"})";
  CHECK(count_params(parse_model_json(mix, "x.json")).active.sum() ==
        count_params(load_model("mixtral-8x22b")).active.sum());
  std::string e = error_of(R"({"model_type": "gpt_neox", "num_hidden_layers": 2})");
  CHECK(e.find("/model_type") != std::string::npos);
  e = error_of(R"({"model_type": "llama", "hidden_size": 64})");
  CHECK(e.find("/num_hidden_layers") != std::string::npos);
}

TEST_CASE("Hugging Face quantization_config: AWQ int4 with fp16 group scales") {
  // A Llama-3-8B AWQ config: linear layers int4 + fp16 scale per 128 weights, the rest bf16.
  const char* awq = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
    "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
    "vocab_size": 128256, "max_position_embeddings": 8192, "torch_dtype": "float16",
    "quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128,
                            "zero_point": true, "version": "gemm"}})";
  ModelSpec m = parse_model_json(awq, "awq.json");
  ParamCount c = count_params(m);
  double linear = c.total[Part::Attention] + c.total[Part::DenseMlp];
  double other = c.total[Part::Embedding] + c.total[Part::LmHead] + c.total[Part::Norms];
  // 0.5 B per int4 weight + (2 B fp16 scale + 0.5 B packed int4 zero) per 128-weight group.
  CHECK(weight_bytes(m, c.total) == doctest::Approx(linear * (0.5 + 2.5 / 128) + 2 * other));
  std::string e = error_of(R"({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
    "num_attention_heads": 2, "vocab_size": 10, "max_position_embeddings": 8,
    "quantization_config": {"quant_method": "bitsandbytes"}})");
  CHECK(e.find("/quantization_config/quant_method") != std::string::npos);
}
