// Hugging Face config.json → ModelSpec. Key names follow transformers' configuration classes
// (LlamaConfig, Qwen2Config, Qwen3Config, Qwen3MoeConfig, MixtralConfig, DeepseekV2Config,
// DeepseekV3Config, GptOssConfig, Glm4MoeConfig; Kimi-K2 ships DeepseekV3's keys as kimi_k2).
#include "io/hf_config.hpp"

#include <algorithm>
#include <filesystem>

#include "io/hf_quant.hpp"
#include "io/json_reader.hpp"

namespace topoplan::io {

namespace {

using nlohmann::json;

// model_type → the family whose keys it uses; `architectures` names map to a model_type when
// model_type is absent or unknown.
struct Family {
  const char* model_type;
  const char* architecture;
};
const std::vector<Family> kFamilies = {{"llama", "LlamaForCausalLM"},
                                       {"mistral", "MistralForCausalLM"},
                                       {"qwen2", "Qwen2ForCausalLM"},
                                       {"qwen3", "Qwen3ForCausalLM"},
                                       {"qwen3_moe", "Qwen3MoeForCausalLM"},
                                       {"mixtral", "MixtralForCausalLM"},
                                       {"deepseek_v2", "DeepseekV2ForCausalLM"},
                                       {"deepseek_v3", "DeepseekV3ForCausalLM"},
                                       {"kimi_k2", "KimiK2ForCausalLM"},
                                       {"gpt_oss", "GptOssForCausalLM"},
                                       {"glm4_moe", "Glm4MoeForCausalLM"}};

bool deepseek_like(const std::string& type) {
  return type == "deepseek_v2" || type == "deepseek_v3" || type == "kimi_k2";
}

// The family: model_type when known, else the first known `architectures` entry.
std::string family_of(const JsonReader& r) {
  const std::string type = r.str_or("model_type", "");
  for (const Family& f : kFamilies)
    if (type == f.model_type) return type;
  if (r.has("architectures") && r.raw().at("architectures").is_array())
    for (const auto& a : r.raw().at("architectures"))
      for (const Family& f : kFamilies)
        if (a.is_string() && a.get<std::string>() == f.architecture) return f.model_type;
  std::string list;
  for (const Family& f : kFamilies) list += (list.empty() ? "" : ", ") + std::string(f.model_type);
  r.fail(type.empty() ? "/architectures" : "/model_type",
         "unsupported model_type \"" + type +
             "\" and no known architectures entry (supported: " + list + ")");
}

// "…/Meta-Llama-3-8B/config.json" → "Meta-Llama-3-8B"; "foo.json" → "foo".
std::string name_from_path(const std::string& source) {
  std::filesystem::path p(source);
  if (p.filename() == "config.json" && p.has_parent_path() && !p.parent_path().filename().empty())
    return utf8_or_replaced(p.parent_path().filename().string());
  return utf8_or_replaced(p.stem().string());
}

void parse_mla(const JsonReader& r, ModelSpec& m) {
  m.attention = AttentionKind::Mla;
  m.mla = {r.integer_or("q_lora_rank", 0), r.integer("kv_lora_rank", 1),
           r.integer("qk_nope_head_dim", 1), r.integer("qk_rope_head_dim", 1),
           r.integer("v_head_dim", 1)};
  m.kv_heads = m.heads;
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
}

// gpt-oss: `layer_types` lists sliding_attention / full_attention per layer (default:
// alternating, even layers sliding); every layer has a sink logit per head and biased linears.
void parse_gpt_oss(const JsonReader& r, ModelSpec& m) {
  m.sliding_window = r.integer("sliding_window", 1);
  m.sliding_layers = (m.layers + 1) / 2;
  if (r.has("layer_types")) {
    const auto& types = r.raw().at("layer_types");
    if (!types.is_array() || static_cast<int>(types.size()) != m.layers)
      r.fail(r.pointer_to("layer_types"), "expected one entry per layer");
    m.sliding_layers = 0;
    for (const auto& t : types) m.sliding_layers += t == "sliding_attention" ? 1 : 0;
  }
  m.attention_sinks = true;
  m.linear_bias = true;  // q, k, v, o and expert biases (attention_bias: true)
}

void parse_moe(const JsonReader& r, const std::string& type, ModelSpec& m) {
  if (type == "mixtral") {
    m.moe.num_experts = r.integer("num_local_experts", 1);
    m.moe.expert_intermediate = m.intermediate;
  } else if (type == "qwen3_moe") {
    m.moe.num_experts = r.integer("num_experts", 1);
    m.moe.expert_intermediate = r.integer("moe_intermediate_size", 1);
    m.moe.layer_freq = r.integer_or("decoder_sparse_step", 1);
    if (r.has("mlp_only_layers") && !r.raw().at("mlp_only_layers").empty())
      r.fail(r.pointer_to("mlp_only_layers"),
             "dense layers at arbitrary positions are not supported");
  } else if (type == "gpt_oss") {
    m.moe.num_experts = r.integer("num_local_experts", 1);
    m.moe.expert_intermediate = m.intermediate;
    m.intermediate = 0;        // every layer is MoE
    m.moe.router_bias = true;  // the router linear has a bias
  } else {                     // deepseek_v2 / deepseek_v3 / kimi_k2 / glm4_moe
    m.moe.num_experts = r.integer("n_routed_experts", 1);
    m.moe.expert_intermediate = r.integer("moe_intermediate_size", 1);
    m.moe.num_shared_experts = r.integer_or("n_shared_experts", 0);
    m.moe.first_dense_layers = r.integer_or("first_k_dense_replace", 0);
    m.moe.layer_freq = r.integer_or("moe_layer_freq", 1);
    // e_score_correction_bias (GLM-4.5 has it too, with the same noaux_tc routing)
    m.moe.router_bias = r.str_or("topk_method", "") == "noaux_tc" || type == "glm4_moe";
    m.mtp_modules = r.integer_or("num_nextn_predict_layers", 0);
    // Group-limited routing (DeepSeek-V2/V3: n_group 8, topk_group 3 / 4); absent or 1: none.
    m.moe.n_group = std::max(1, r.integer_or("n_group", 1));
    m.moe.topk_group =
        r.has("topk_group") ? std::max(1, r.integer_or("topk_group", 1)) : m.moe.n_group;
  }
  m.moe.top_k = r.integer("num_experts_per_tok", 1);
}

}  // namespace

bool is_hf_config(const json& j) {
  return j.contains("model_type") || j.contains("num_hidden_layers");
}

ModelSpec parse_hf_config(const json& j, const std::string& source) {
  JsonReader r(j, source);
  const std::string type = family_of(r);
  ModelSpec m;
  m.name = name_from_path(source);
  m.description = "Hugging Face " + type + " config";
  // The file name (with its folder for config.json), so output does not depend on where it lies.
  std::filesystem::path path(source);
  std::string file = path.filename() == "config.json" ? m.name + "/config.json"
                                                      : utf8_or_replaced(path.filename().string());
  m.sources.push_back("architecture: Hugging Face config " + file);
  m.hidden = r.integer("hidden_size", 1);
  m.layers = r.integer("num_hidden_layers", 1);
  m.vocab = r.integer("vocab_size", 1);
  m.max_context = r.integer("max_position_embeddings", 1);
  m.tied_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.heads = r.integer("num_attention_heads", 1);
  m.kv_heads = r.integer_or("num_key_value_heads", m.heads);
  m.head_dim = r.integer_or("head_dim", m.hidden / m.heads);
  m.intermediate = r.integer_or("intermediate_size", 0);
  std::string act = r.str_or("hidden_act", "silu");
  if (act != "silu" && act != "swish")
    r.fail(r.pointer_to("hidden_act"), "unsupported activation \"" + act + "\" (silu)");
  m.qkv_bias = type == "qwen2" || r.boolean_or("attention_bias", false);
  m.qk_norm = type == "qwen3" || type == "qwen3_moe" || r.boolean_or("use_qk_norm", false);
  if (r.has("torch_dtype"))
    m.dtypes.weights.dtype = dtype_at(r.str_or("torch_dtype", ""), source, "/torch_dtype");
  if (deepseek_like(type)) parse_mla(r, m);
  if (type == "mixtral" || type == "qwen3_moe" || type == "gpt_oss" || type == "glm4_moe" ||
      deepseek_like(type))
    parse_moe(r, type, m);
  if (type == "gpt_oss") parse_gpt_oss(r, m);
  parse_quantization(r, m);
  return m;
}

}  // namespace topoplan::io
