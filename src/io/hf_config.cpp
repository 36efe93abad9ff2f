// Hugging Face config.json → ModelSpec. Key names follow transformers' configuration classes
// (LlamaConfig, Qwen2Config, Qwen3MoeConfig, MixtralConfig, DeepseekV3Config).
#include "io/hf_config.hpp"

#include <filesystem>

#include "io/model_reader.hpp"

namespace topoplan::io {

namespace {

using nlohmann::json;

const std::vector<std::string> kSupported = {"llama",     "mistral", "qwen2",       "qwen3",
                                             "qwen3_moe", "mixtral", "deepseek_v2", "deepseek_v3"};

// "…/Meta-Llama-3-8B/config.json" → "Meta-Llama-3-8B"; "foo.json" → "foo".
std::string name_from_path(const std::string& source) {
  std::filesystem::path p(source);
  if (p.filename() == "config.json" && p.has_parent_path() && !p.parent_path().filename().empty())
    return p.parent_path().filename().string();
  return p.stem().string();
}

void parse_mla(const JsonReader& r, ModelSpec& m) {
  m.attention = AttentionKind::Mla;
  m.mla = {r.integer("q_lora_rank", 0), r.integer("kv_lora_rank"), r.integer("qk_nope_head_dim"),
           r.integer("qk_rope_head_dim"), r.integer("v_head_dim")};
  m.kv_heads = m.heads;
  m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
}

void parse_moe(const JsonReader& r, const std::string& type, ModelSpec& m) {
  if (type == "mixtral") {
    m.moe.num_experts = r.integer("num_local_experts");
    m.moe.expert_intermediate = m.intermediate;
  } else if (type == "qwen3_moe") {
    m.moe.num_experts = r.integer("num_experts");
    m.moe.expert_intermediate = r.integer("moe_intermediate_size");
    m.moe.layer_freq = r.integer("decoder_sparse_step", 1);
    if (r.has("mlp_only_layers") && !r.raw().at("mlp_only_layers").empty())
      r.fail(r.at("mlp_only_layers"), "dense layers at arbitrary positions are not supported");
  } else {  // deepseek_v2 / deepseek_v3
    m.moe.num_experts = r.integer("n_routed_experts");
    m.moe.expert_intermediate = r.integer("moe_intermediate_size");
    m.moe.num_shared_experts = r.integer("n_shared_experts", 0);
    m.moe.first_dense_layers = r.integer("first_k_dense_replace", 0);
    m.moe.layer_freq = r.integer("moe_layer_freq", 1);
    m.moe.router_bias = r.string("topk_method", "") == "noaux_tc";  // e_score_correction_bias
    m.mtp_modules = r.integer("num_nextn_predict_layers", 0);
  }
  m.moe.top_k = r.integer("num_experts_per_tok");
}

// Block size of `weight_block_size` ([128, 128] -> 16384 elements).
double block_elems(const JsonReader& q, const char* key) {
  double elems = 1;
  if (!q.raw().at(key).is_array()) q.fail(q.at(key), "expected an array of integers");
  for (const auto& x : q.raw().at(key)) {
    if (!x.is_number_integer() || x.get<long long>() <= 0)
      q.fail(q.at(key), "expected positive integers");
    elems *= x.get<double>();
  }
  return elems;
}

// quantization_config → weight formats. Linear layers of the decoder are quantized; embedding,
// LM head, norms and router keep the checkpoint's 16-bit dtype (DeepSeek-V3's FP8 checkpoint;
// AutoAWQ/GPTQ leave the MoE gate unquantized).
// - fp8 (DeepSeek-V3): e4m3 with an fp32 scale per weight_block_size block; MoE dispatch FP8.
// - awq / gptq: `bits` (4 or 8) integers with an fp16 scale and a packed `bits`-bit zero point
//   (qzeros) per `group_size` weights.
void parse_quantization(const JsonReader& r, ModelSpec& m) {
  if (!r.has("quantization_config")) return;
  JsonReader q = r.object("quantization_config");
  std::string method = q.string("quant_method", "");
  WeightFormat keep = m.dtypes.weights;
  if (method == "fp8") {
    m.dtypes.weights = precision_format("fp8");
    // Without weight_block_size: one per-tensor scale, too small to count.
    m.dtypes.weights.scale_block_elems =
        q.has("weight_block_size") ? block_elems(q, "weight_block_size") : 0;
    m.dtypes.moe_dispatch = Dtype::FP8;  // DeepEP dispatches FP8 with these checkpoints
  } else if (method == "awq" || method == "gptq") {
    int bits = q.integer("bits");
    if (bits != 4 && bits != 8) q.fail(q.at("bits"), "supported: 4 or 8");
    m.dtypes.weights = precision_format("int4");  // fp16 scale + packed zero point per group
    if (bits == 8) m.dtypes.weights.dtype = Dtype::INT8;
    m.dtypes.weights.zero_point = m.dtypes.weights.dtype;
    // group_size -1 (GPTQ per-channel): one scale per output row, not counted.
    m.dtypes.weights.scale_block_elems = 0;
    if (q.has("group_size") && q.raw().at("group_size").is_number_integer() &&
        q.raw().at("group_size").get<long long>() > 0)
      m.dtypes.weights.scale_block_elems = q.raw().at("group_size").get<double>();
  } else {
    q.fail(q.at("quant_method"), "unsupported quant_method \"" + method + "\" (fp8, awq, gptq)");
  }
  for (Part p : {Part::Embedding, Part::LmHead, Part::Norms, Part::Router})
    m.dtypes.overrides[static_cast<std::size_t>(p)] = keep;
}

}  // namespace

bool is_hf_config(const json& j) {
  return j.contains("model_type") || j.contains("num_hidden_layers");
}

ModelSpec parse_hf_config(const json& j, const std::string& source) {
  JsonReader r(j, source);
  std::string type = r.string("model_type", "");
  bool known = false;
  for (const auto& t : kSupported) known = known || t == type;
  if (!known) {
    std::string list;
    for (const auto& t : kSupported) list += (list.empty() ? "" : ", ") + t;
    r.fail("/model_type", "unsupported model_type \"" + type + "\" (supported: " + list + ")");
  }
  ModelSpec m;
  m.name = name_from_path(source);
  m.description = "Hugging Face " + type + " config";
  // The file name (with its folder for config.json), so output does not depend on where it lies.
  std::filesystem::path path(source);
  std::string file =
      path.filename() == "config.json" ? m.name + "/config.json" : path.filename().string();
  m.sources.push_back("architecture: Hugging Face config " + file);
  m.hidden = r.integer("hidden_size");
  m.layers = r.integer("num_hidden_layers");
  m.vocab = r.integer("vocab_size");
  m.max_context = r.integer("max_position_embeddings");
  m.tied_embeddings = r.boolean("tie_word_embeddings", false);
  m.heads = r.integer("num_attention_heads");
  m.kv_heads = r.integer("num_key_value_heads", m.heads);
  m.head_dim = r.integer("head_dim", m.hidden / m.heads);
  m.intermediate = r.integer("intermediate_size", 0);
  std::string act = r.string("hidden_act", "silu");
  if (act != "silu" && act != "swish")
    r.fail(r.at("hidden_act"), "unsupported activation \"" + act + "\" (silu)");
  m.qkv_bias = type == "qwen2" || r.boolean("attention_bias", false);
  m.qk_norm = type == "qwen3" || type == "qwen3_moe";
  if (r.has("torch_dtype"))
    m.dtypes.weights.dtype = dtype_at(r.string("torch_dtype", ""), source, "/torch_dtype");
  if (type.rfind("deepseek", 0) == 0) parse_mla(r, m);
  if (type == "mixtral" || type == "qwen3_moe" || type.rfind("deepseek", 0) == 0)
    parse_moe(r, type, m);
  parse_quantization(r, m);
  return m;
}

}  // namespace topoplan::io
