// --precision and --kv-dtype: the weight formats engines load checkpoints in, with the scale
// bytes each carries (docs/model-format.md, "Precision").
#include <array>
#include <cstdio>
#include <optional>

#include "core/name_table.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

namespace {

struct PrecisionEntry {
  std::string_view name;
  WeightFormat format;
};

// Block sizes and scale types, by source:
// - fp8: e4m3 with one fp32 scale per 128×128 weight block, DeepSeek-V3's checkpoint
//   (config.json quantization_config.weight_block_size [128, 128]; DeepSeek-V3 report §3.3.2).
// - fp4: NVFP4, e2m1 with one e4m3 scale per 16 elements plus one fp32 scale per tensor
//   (NVIDIA TensorRT Model Optimizer / "Introducing NVFP4", NVIDIA blog 2025). The per-tensor
//   scale is 4 B per matrix, under 1e-7 of its bytes, and is not counted.
// - mxfp4: OCP MXFP4, e2m1 with one e8m0 scale per 32 elements (OCP Microscaling spec v1.0
//   §5.3; gpt-oss's experts).
// - int4: AWQ/GPTQ, 4-bit integers with an fp16 scale and a packed 4-bit zero point per group
//   of 128 input elements (AutoAWQ/AutoGPTQ `group_size` 128, `qzeros` packed like `qweight`).
WeightFormat format(Dtype d, double block = 0, Dtype scale = Dtype::FP32,
                    std::optional<Dtype> zero = std::nullopt) {
  WeightFormat f;
  f.dtype = d;
  f.scale_block_elems = block;
  f.scale_dtype = scale;
  f.zero_point = zero;
  return f;
}

const std::array<PrecisionEntry, 6> kPrecisions{{
    {"bf16", format(Dtype::BF16)},
    {"fp16", format(Dtype::FP16)},
    {"fp8", format(Dtype::FP8, 128 * 128, Dtype::FP32)},
    {"fp4", format(Dtype::FP4, 16, Dtype::FP8)},
    {"mxfp4", format(Dtype::FP4, 32, Dtype::E8M0)},
    {"int4", format(Dtype::INT4, 128, Dtype::FP16, Dtype::INT4)},
}};

bool sixteen_bit(Dtype d) {
  return d == Dtype::BF16 || d == Dtype::FP16;
}

}  // namespace

std::vector<std::string> precision_names() {
  std::vector<std::string> out;
  for (const auto& p : kPrecisions) out.emplace_back(p.name);
  return out;
}

WeightFormat precision_format(std::string_view name) {
  for (const auto& p : kPrecisions)
    if (p.name == name) return p.format;
  if (name == "nvfp4") return precision_format("fp4");
  if (name == "awq" || name == "gptq") return precision_format("int4");
  throw UnknownNameError("precision", std::string(name), precision_names());
}

void apply_precision(ModelSpec& m, std::string_view name) {
  const WeightFormat f = precision_format(name);
  ModelDtypes& d = m.dtypes;
  // What the non-GEMM parts keep: their own 16-bit format, else the activations' dtype.
  for (Part p : {Part::Embedding, Part::LmHead, Part::Norms, Part::Router}) {
    WeightFormat keep = d.format(p);
    if (!sixteen_bit(keep.dtype)) keep = format(d.activations);
    d.overrides[static_cast<std::size_t>(p)] = keep;
  }
  for (Part p : {Part::Attention, Part::DenseMlp, Part::RoutedExperts, Part::SharedExperts})
    d.overrides[static_cast<std::size_t>(p)].reset();
  d.weights = f;
  // DeepEP dispatches FP8 tokens (1×128 fp32 scales) to FP8/FP4 experts, 16-bit ones otherwise.
  bool low_math = f.dtype == Dtype::FP8 || f.dtype == Dtype::FP4;
  d.moe_dispatch = low_math ? Dtype::FP8 : d.activations;
}

void apply_kv_dtype(ModelSpec& m, std::string_view name) {
  Dtype d = parse_dtype(name);
  if (d != Dtype::BF16 && d != Dtype::FP16 && d != Dtype::FP8)
    throw UnknownNameError("KV cache dtype", std::string(name), {"bf16", "fp16", "fp8"});
  m.dtypes.kv_cache = d;
}

std::string describe(const WeightFormat& f) {
  std::string s(to_string(f.dtype));
  if (f.scale_block_elems > 0) {
    char buf[96];
    const std::string scale(to_string(f.scale_dtype));
    std::snprintf(buf, sizeof buf, ", %s scale%s per %.0f elements", scale.c_str(),
                  f.zero_point ? " + zero point" : "", f.scale_block_elems);
    s += buf;
  }
  char bytes[48];
  std::snprintf(bytes, sizeof bytes, " (%.5g B/param)", f.bytes_per_element());
  s += bytes;
  if (f.weight_only) s += ", weight-only: dequantized to 16-bit in the GEMM";
  return s;
}

std::string describe_gemm_formats(const ModelSpec& m) {
  const WeightFormat a = m.dtypes.format(Part::Attention);
  std::string s = describe(a);
  if (!m.is_moe()) return s;
  const WeightFormat e = m.dtypes.format(Part::RoutedExperts);
  if (describe(e) == s) return s;
  return "attention " + s + "; experts " + describe(e);
}

}  // namespace topoplan
