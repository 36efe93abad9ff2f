// topoplan model JSON (docs/model-format.md) → ModelSpec, built-in catalog and validation.
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "io/hf_config.hpp"
#include "io/json_reader.hpp"
#include "io/scale_block.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

namespace {

using io::JsonReader;
using nlohmann::json;

// "bf16" or {"dtype": "fp8", "scale_block": [128, 128], "scale_dtype": "fp32"}.
WeightFormat weight_format(const json& j, const std::string& src, const std::string& ptr) {
  WeightFormat f;
  if (j.is_string()) {
    f.dtype = io::dtype_at(j.get<std::string>(), src, ptr);
    return f;
  }
  if (!j.is_object()) throw InputError(src, ptr, "expected a dtype string or an object");
  JsonReader r(j, src, ptr);
  r.only({"dtype", "scale_block", "scale_dtype"});
  f.dtype = io::dtype_at(r.str_or("dtype", "bf16"), src, r.pointer_to("dtype"));
  f.scale_dtype = io::dtype_at(r.str_or("scale_dtype", "fp32"), src, r.pointer_to("scale_dtype"));
  if (r.has("scale_block")) f.scale_block_elems = io::scale_block_elems(r, "scale_block");
  return f;
}

ModelDtypes parse_dtypes(const JsonReader& r) {
  ModelDtypes d;
  r.only({"weights", "overrides", "kv_cache", "activations", "moe_dispatch", "moe_combine"});
  const std::string& src = r.source();
  if (r.has("weights"))
    d.weights = weight_format(r.raw().at("weights"), src, r.pointer_to("weights"));
  d.kv_cache = io::dtype_at(r.str_or("kv_cache", "bf16"), src, r.pointer_to("kv_cache"));
  d.activations = io::dtype_at(r.str_or("activations", "bf16"), src, r.pointer_to("activations"));
  d.moe_dispatch =
      io::dtype_at(r.str_or("moe_dispatch", "bf16"), src, r.pointer_to("moe_dispatch"));
  d.moe_combine = io::dtype_at(r.str_or("moe_combine", "bf16"), src, r.pointer_to("moe_combine"));
  if (!r.has("overrides")) return d;
  JsonReader o = r.object("overrides");
  for (const auto& [key, value] : o.raw().items()) {
    bool found = false;
    for (std::size_t i = 0; i < kPartCount; ++i) {
      if (to_string(static_cast<Part>(i)) != key) continue;
      d.overrides[i] = weight_format(value, src, o.pointer() + "/" + key);
      found = true;
    }
    if (!found)
      o.fail(o.pointer() + "/" + key,
             "unknown part \"" + key +
                 "\" (embedding, attention, "
                 "dense_mlp, routed_experts, shared_experts, router, norms, lm_head)");
  }
  return d;
}

void parse_attention(const JsonReader& a, ModelSpec& m) {
  a.only({"kind", "heads", "kv_heads", "head_dim", "qkv_bias", "qk_norm", "q_lora_rank",
          "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "sliding_window",
          "sliding_layers", "sinks"});
  std::string kind = a.str_or("kind", "mha");
  m.heads = a.integer("heads", 1);
  if (kind == "mla") {
    m.attention = AttentionKind::Mla;
    m.mla = {a.integer_or("q_lora_rank", 0), a.integer("kv_lora_rank", 1),
             a.integer("qk_nope_head_dim", 1), a.integer("qk_rope_head_dim", 1),
             a.integer("v_head_dim", 1)};
    m.kv_heads = m.heads;
    m.head_dim = m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim;
  } else if (kind == "mha") {
    m.kv_heads = a.integer_or("kv_heads", m.heads);
    m.head_dim = a.integer_or("head_dim", m.heads > 0 ? m.hidden / m.heads : 0);
  } else {
    a.fail(a.pointer_to("kind"), "unknown attention kind \"" + kind + "\" (mha, mla)");
  }
  m.qkv_bias = a.boolean_or("qkv_bias", false);
  m.qk_norm = a.boolean_or("qk_norm", false);
  m.sliding_window = a.integer_or("sliding_window", 0);
  m.sliding_layers = a.integer_or("sliding_layers", 0);
  m.attention_sinks = a.boolean_or("sinks", false);
}

void parse_mlp(const JsonReader& p, ModelSpec& m) {
  p.only({"kind", "intermediate_size"});
  std::string kind = p.str_or("kind", "swiglu");
  if (kind == "gelu") {
    m.mlp = MlpKind::Gelu;
  } else if (kind != "swiglu") {
    p.fail(p.pointer_to("kind"), "unknown MLP kind \"" + kind + "\" (swiglu, gelu)");
  }
  m.intermediate = p.integer_or("intermediate_size", 0);
}

void parse_moe(const JsonReader& e, ModelSpec& m) {
  e.only({"num_experts", "top_k", "expert_intermediate_size", "num_shared_experts",
          "shared_intermediate_size", "first_dense_layers", "layer_freq", "router_bias", "n_group",
          "topk_group"});
  m.moe = {e.integer("num_experts", 1),
           e.integer("top_k", 1),
           e.integer("expert_intermediate_size", 1),
           e.integer_or("num_shared_experts", 0),
           e.integer_or("shared_intermediate_size", 0),
           e.integer_or("first_dense_layers", 0),
           e.integer_or("layer_freq", 1),
           e.boolean_or("router_bias", false)};
  m.moe.n_group = e.has("n_group") ? e.integer("n_group", 1) : 1;
  m.moe.topk_group = e.has("topk_group") ? e.integer("topk_group", 1) : m.moe.n_group;
}

ModelSpec parse_native(const json& j, const std::string& source) {
  JsonReader r(j, source);
  r.only({"name", "description", "sources", "hidden_size", "num_layers", "vocab_size",
          "max_context", "tied_embeddings", "position_embeddings", "norm", "linear_bias",
          "attention", "mlp", "moe", "mtp_modules", "dtypes"});
  ModelSpec m;
  m.name = r.str_or("name", io::utf8_or_replaced(std::filesystem::path(source).stem().string()));
  m.description = r.str_at_most("description", limits::kMaxDescriptionBytes);
  if (r.has("sources")) {
    JsonReader s = r.object("sources");
    for (const auto& [k, v] : j.at("sources").items()) {
      if (!v.is_string()) s.fail(s.pointer_to(k.c_str()), "expected a URL or citation string");
      m.sources.push_back(k + ": " + v.get<std::string>());
    }
  }
  m.hidden = r.integer("hidden_size", 1);
  m.layers = r.integer("num_layers", 1);
  m.vocab = r.integer("vocab_size", 1);
  m.max_context = r.integer("max_context", 1);
  m.tied_embeddings = r.boolean_or("tied_embeddings", false);
  m.position_embeddings = r.integer_or("position_embeddings", 0);
  m.linear_bias = r.boolean_or("linear_bias", false);
  std::string norm = r.str_or("norm", "rmsnorm");
  if (norm == "layernorm") {
    m.norm = NormKind::LayerNorm;
  } else if (norm != "rmsnorm") {
    r.fail(r.pointer_to("norm"), "unknown norm \"" + norm + "\" (rmsnorm, layernorm)");
  }
  parse_attention(r.object("attention"), m);
  parse_mlp(r.object("mlp"), m);
  if (r.has("moe")) parse_moe(r.object("moe"), m);
  m.mtp_modules = r.integer_or("mtp_modules", 0);
  if (r.has("dtypes")) m.dtypes = parse_dtypes(r.object("dtypes"));
  return m;
}

}  // namespace

namespace io {
Dtype dtype_at(const std::string& text, const std::string& source, const std::string& pointer) {
  try {
    return parse_dtype(text);
  } catch (const UnknownNameError& e) {
    throw InputError(source, pointer, e.detail());
  }
}
}  // namespace io

void validate_model(const ModelSpec& m, const std::string& source) {
  auto need = [&](bool ok, const std::string& ptr, const std::string& what) {
    if (!ok) throw InputError(source, ptr, what);
  };
  need(m.hidden > 0 && m.layers > 0 && m.vocab > 0, "/hidden_size", "sizes must be positive");
  need(m.heads > 0, "/attention/heads", "must be positive");
  if (m.attention == AttentionKind::Mha) {
    need(m.kv_heads > 0 && m.heads % m.kv_heads == 0, "/attention/kv_heads",
         "must divide heads (" + std::to_string(m.heads) + ")");
    need(m.head_dim > 0, "/attention/head_dim", "must be positive");
  }
  need(m.sliding_window >= 0 && m.sliding_layers >= 0 && m.sliding_layers <= m.layers,
       "/attention/sliding_layers", "must be in [0, num_layers]");
  need(m.sliding_layers == 0 || m.sliding_window > 0, "/attention/sliding_window",
       "must be positive when sliding_layers is set");
  bool needs_dense = !m.is_moe() || m.moe.first_dense_layers > 0 || m.moe.layer_freq > 1;
  need(!needs_dense || m.intermediate > 0, "/mlp/intermediate_size",
       "required: the model has dense MLP layers");
  if (m.is_moe()) {
    need(m.moe.top_k <= m.moe.num_experts, "/moe/top_k",
         "exceeds num_experts (" + std::to_string(m.moe.num_experts) + ")");
    need(m.moe.first_dense_layers <= m.layers, "/moe/first_dense_layers", "exceeds num_layers");
    need(m.moe.layer_freq >= 1, "/moe/layer_freq", "must be at least 1");
    need(m.moe.n_group >= 1 && m.moe.n_group <= m.moe.num_experts &&
             m.moe.num_experts % m.moe.n_group == 0,
         "/moe/n_group",
         "must divide num_experts (" + std::to_string(m.moe.num_experts) + ") into equal groups");
    need(m.moe.topk_group >= 1 && m.moe.topk_group <= m.moe.n_group, "/moe/topk_group",
         "must be in [1, n_group] (" + std::to_string(m.moe.n_group) + ")");
    need(double(m.moe.top_k) <=
             double(m.moe.topk_group) * m.moe.num_experts / std::max(1, m.moe.n_group),
         "/moe/top_k", "exceeds the experts of topk_group groups");
  }
}

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const auto& p : embedded_files("models/")) {
    if (std::filesystem::path(p).extension() == ".json")
      names.push_back(std::filesystem::path(p).stem().string());
  }
  return names;
}

namespace {

// validate_model() names native pointers; a Hugging Face config has its own keys. MoE layer
// frequency is `decoder_sparse_step` in Qwen3-MoE and `moe_layer_freq` in DeepSeek's configs.
std::string hf_pointer(const std::string& native, const json& j) {
  static const std::pair<const char*, const char*> kKeys[] = {
      {"/hidden_size", "/hidden_size"},
      {"/attention/heads", "/num_attention_heads"},
      {"/attention/kv_heads", "/num_key_value_heads"},
      {"/attention/head_dim", "/head_dim"},
      {"/attention/sliding_layers", "/layer_types"},
      {"/attention/sliding_window", "/sliding_window"},
      {"/mlp/intermediate_size", "/intermediate_size"},
      {"/moe/top_k", "/num_experts_per_tok"},
      {"/attention/q_lora_rank", "/q_lora_rank"},
      {"/attention/kv_lora_rank", "/kv_lora_rank"},
      {"/attention/qk_nope_head_dim", "/qk_nope_head_dim"},
      {"/attention/qk_rope_head_dim", "/qk_rope_head_dim"},
      {"/attention/v_head_dim", "/v_head_dim"},
      {"/moe/first_dense_layers", "/first_k_dense_replace"},
      {"/moe/n_group", "/n_group"},
      {"/moe/topk_group", "/topk_group"}};
  for (const auto& [from, to] : kKeys)
    if (native == from) return to;
  if (native == "/moe/layer_freq")
    return j.contains("decoder_sparse_step") ? "/decoder_sparse_step" : "/moe_layer_freq";
  return native;
}

// The first of `keys` present in `j`, as a pointer (the expert count has one name per family).
std::string present_key(const json& j, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (j.contains(k)) return std::string("/") + k;
  return std::string("/") + *keys.begin();
}

// Resource bounds (topoplan/limits.hpp): loops over layers and experts are linear, and a count
// of 10^9 from a typo would hang every command instead of being refused.
void check_model_bounds(const ModelSpec& m, const json& j, const std::string& source, bool hf) {
  if (m.layers > limits::kMaxModelLayers)
    throw InputError(source, hf ? "/num_hidden_layers" : "/num_layers",
                     "must be <= " + std::to_string(limits::kMaxModelLayers) + ", got " +
                         std::to_string(m.layers) + " (docs/limits.md)");
  if (m.moe.num_experts > limits::kMaxExperts)
    throw InputError(source,
                     hf ? present_key(j, {"n_routed_experts", "num_experts", "num_local_experts"})
                        : "/moe/num_experts",
                     "must be <= " + std::to_string(limits::kMaxExperts) + ", got " +
                         std::to_string(m.moe.num_experts) + " (docs/limits.md)");
}

// Plausibility bounds on the widths (limits::kMaxModelWidth and the rest), checked in the order
// they derive from each other (a head_dim left out is hidden / heads), so the first refused is
// the field the user wrote. An HF config's pointers are its own keys (hf_pointer).
void check_model_widths(const ModelSpec& m, const json& j, const std::string& source, bool hf) {
  struct Width {
    int value;
    const char* native;
    int max;
  };
  const Width widths[] = {
      {m.hidden, "/hidden_size", limits::kMaxModelWidth},
      {m.vocab, "/vocab_size", limits::kMaxVocab},
      {m.heads, "/attention/heads", limits::kMaxHeads},
      {m.kv_heads, "/attention/kv_heads", limits::kMaxHeads},
      {m.mla.q_lora_rank, "/attention/q_lora_rank", limits::kMaxModelWidth},
      {m.mla.kv_lora_rank, "/attention/kv_lora_rank", limits::kMaxModelWidth},
      {m.mla.qk_nope_head_dim, "/attention/qk_nope_head_dim", limits::kMaxModelWidth},
      {m.mla.qk_rope_head_dim, "/attention/qk_rope_head_dim", limits::kMaxModelWidth},
      {m.mla.v_head_dim, "/attention/v_head_dim", limits::kMaxModelWidth},
      {m.head_dim, "/attention/head_dim", limits::kMaxModelWidth},
      {m.intermediate, "/mlp/intermediate_size", limits::kMaxFfnWidth},
      {m.moe.expert_intermediate, "/moe/expert_intermediate_size", limits::kMaxFfnWidth},
      {m.moe.shared_intermediate, "/moe/shared_intermediate_size", limits::kMaxFfnWidth}};
  for (const Width& w : widths) {
    if (w.value <= w.max) continue;
    std::string at = w.native;
    if (hf)
      at = at == "/moe/expert_intermediate_size"
               ? present_key(j, {"moe_intermediate_size", "intermediate_size"})
               : hf_pointer(at, j);
    throw InputError(source, at,
                     "must be <= " + std::to_string(w.max) + ", got " + std::to_string(w.value) +
                         " (docs/limits.md)");
  }
}

}  // namespace

ModelSpec parse_model_json(const std::string& text, const std::string& source) {
  const json j = io::parse_json_text(text, source);
  if (!j.is_object()) throw InputError(source, "", "expected a JSON object");
  const bool hf = io::is_hf_config(j);
  ModelSpec m = hf ? io::parse_hf_config(j, source) : parse_native(j, source);
  check_model_bounds(m, j, source, hf);
  check_model_widths(m, j, source, hf);
  try {
    validate_model(m, source);
  } catch (const InputError& e) {
    if (!hf) throw;
    throw InputError(source, hf_pointer(e.location(), j), e.detail());
  }
  return m;
}

ModelSpec load_model(const std::string& name_or_path) {
  LoadedText t = load_file_or_builtin(name_or_path, "models", "model");
  return parse_model_json(t.text, t.source);
}

}  // namespace topoplan
