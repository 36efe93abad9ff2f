// Hugging Face `quantization_config` → weight formats (docs/model-format.md, "Hugging Face
// config.json"). Linear layers of the decoder are quantized; embedding, LM head, norms and router
// keep the checkpoint's 16-bit dtype, as every method below leaves them (DeepSeek-V3's FP8
// checkpoint, AutoAWQ/GPTQ, llm-compressor `ignore: [lm_head]`, ModelOpt `exclude_modules`,
// gpt-oss `modules_to_not_convert`).
#include "io/hf_quant.hpp"

#include "io/scale_block.hpp"

namespace topoplan::io {

namespace {

using nlohmann::json;

// A group_size: -1 (per-channel: one scale per row) and 0 count no scales; a group is held to the
// model JSON's scale-block rule (io/scale_block.hpp), so `group_size: 1` is refused there too.
double group_elems(const JsonReader& q, const char* key) {
  if (!q.has(key) || !q.raw().at(key).is_number_integer()) return 0;
  if (q.raw().at(key).get<long long>() <= 0) return 0;
  return scale_block_elems(q, key);
}

// AutoAWQ / AutoGPTQ: `bits` integers, fp16 scale + packed `bits`-bit zero point per group.
WeightFormat awq_gptq(const JsonReader& q) {
  int bits = q.integer("bits", 1);
  if (bits != 4 && bits != 8) q.fail(q.pointer_to("bits"), "supported: 4 or 8");
  WeightFormat f = precision_format("int4");
  if (bits == 8) f.dtype = Dtype::INT8;
  f.zero_point = f.dtype;
  f.scale_block_elems = group_elems(q, "group_size");
  return f;
}

// llm-compressor's compressed-tensors: the first config group's `weights` scheme. No
// `input_activations` scheme means weight-only (W4A16, W8A16).
WeightFormat compressed_tensors(const JsonReader& q) {
  JsonReader groups = q.object("config_groups");
  if (!groups.raw().is_object() || groups.raw().empty())
    q.fail(q.pointer_to("config_groups"), "expected at least one config group");
  const std::string name = groups.raw().begin().key();
  JsonReader g = groups.object(name.c_str());
  JsonReader w = g.object("weights");
  const int bits = w.integer("num_bits", 1);
  const std::string type = w.str_or("type", "int");
  const std::string strategy = w.str_or("strategy", "tensor");
  WeightFormat f;
  if (type == "float" && bits == 8) {
    f = precision_format("fp8");
    f.scale_block_elems = strategy == "block" ? scale_block_elems(w, "block_structure") : 0;
  } else if (type == "float" && bits == 4) {
    f = precision_format("fp4");  // NVFP4: group 16, e4m3 scales (format nvfp4-pack-quantized)
  } else if (type == "int" && (bits == 4 || bits == 8)) {
    f = precision_format("int4");
    if (bits == 8) f.dtype = Dtype::INT8;
    f.scale_block_elems = strategy == "group" ? group_elems(w, "group_size") : 0;
    f.zero_point = w.boolean_or("symmetric", true) ? std::nullopt : std::optional<Dtype>(f.dtype);
  } else {
    w.fail(w.pointer_to("num_bits"), "unsupported scheme: " + type + " " + std::to_string(bits) +
                                         " bits (float 8, float 4, int 4, int 8)");
  }
  f.weight_only = !g.has("input_activations");
  return f;
}

// NVIDIA ModelOpt: quant_algo FP8 (per-tensor scales) or NVFP4 (16-element e4m3 groups).
WeightFormat modelopt(const JsonReader& q, ModelSpec& m) {
  const std::string algo = q.str_or("quant_algo", "");
  if (q.str_or("kv_cache_quant_algo", "") == "FP8") m.dtypes.kv_cache = Dtype::FP8;
  if (algo == "FP8") {
    WeightFormat f = precision_format("fp8");
    f.scale_block_elems = 0;
    return f;
  }
  if (algo == "NVFP4") return precision_format("fp4");
  q.fail(q.pointer_to("quant_algo"),
         "unsupported ModelOpt quant_algo \"" + algo + "\" (FP8, NVFP4)");
}

}  // namespace

void parse_quantization(const JsonReader& r, ModelSpec& m) {
  if (!r.has("quantization_config")) return;
  JsonReader q = r.object("quantization_config");
  const std::string method = q.str_or("quant_method", "");
  const WeightFormat keep = m.dtypes.weights;
  WeightFormat f;
  if (method == "fp8") {
    f = precision_format("fp8");
    // Without weight_block_size: one per-tensor scale, too small to count.
    f.scale_block_elems =
        q.has("weight_block_size") ? scale_block_elems(q, "weight_block_size") : 0;
  } else if (method == "awq" || method == "gptq") {
    f = awq_gptq(q);
  } else if (method == "compressed-tensors") {
    f = compressed_tensors(q);
  } else if (method == "modelopt") {
    f = modelopt(q, m);
  } else if (method == "mxfp4") {
    // gpt-oss: only the MoE experts are MXFP4; attention, router, embedding and LM head stay in
    // torch_dtype (its modules_to_not_convert).
    if (m.is_moe()) {
      m.dtypes.overrides[static_cast<std::size_t>(Part::RoutedExperts)] = precision_format("mxfp4");
      return;
    }
    f = precision_format("mxfp4");
  } else {
    q.fail(q.pointer_to("quant_method"),
           "unsupported quant_method \"" + method +
               "\" (fp8, compressed-tensors, modelopt, mxfp4, awq, gptq)");
  }
  m.dtypes.weights = f;
  // DeepEP dispatches FP8 tokens to experts that multiply in FP8/FP4.
  if (!f.weight_only && (f.dtype == Dtype::FP8 || f.dtype == Dtype::FP4))
    m.dtypes.moe_dispatch = Dtype::FP8;
  for (Part p : {Part::Embedding, Part::LmHead, Part::Norms, Part::Router})
    m.dtypes.overrides[static_cast<std::size_t>(p)] = keep;
}

}  // namespace topoplan::io
