// Dtype names and sizes, weight formats with scales, and the names of model enums.
#include <array>
#include <cctype>
#include <string>

#include "core/name_table.hpp"
#include "topoplan/dtype.hpp"
#include "topoplan/error.hpp"
#include "topoplan/kernel.hpp"
#include "topoplan/model.hpp"

namespace topoplan {

namespace {
constexpr std::array<NameEntry<Dtype>, 8> kDtypeNames{{
    {Dtype::FP32, "fp32"},
    {Dtype::BF16, "bf16"},
    {Dtype::FP16, "fp16"},
    {Dtype::FP8, "fp8"},
    {Dtype::INT8, "int8"},
    {Dtype::INT4, "int4"},
    {Dtype::FP4, "fp4"},
    {Dtype::E8M0, "e8m0"},
}};
static_assert(names_every_value(kDtypeNames) &&
              kDtypeNames.size() == static_cast<std::size_t>(Dtype::E8M0) + 1);

constexpr std::array<NameEntry<KernelKind>, 5> kKernelKindNames{{
    {KernelKind::Gemm, "gemm"},
    {KernelKind::GroupedGemm, "grouped_gemm"},
    {KernelKind::Attention, "attention"},
    {KernelKind::Elementwise, "elementwise"},
    {KernelKind::Embedding, "embedding"},
}};
static_assert(names_every_value(kKernelKindNames) &&
              kKernelKindNames.size() == static_cast<std::size_t>(KernelKind::Embedding) + 1);

constexpr std::array<NameEntry<Part>, kPartCount> kPartNames{{
    {Part::Embedding, "embedding"},
    {Part::Attention, "attention"},
    {Part::DenseMlp, "dense_mlp"},
    {Part::RoutedExperts, "routed_experts"},
    {Part::SharedExperts, "shared_experts"},
    {Part::Router, "router"},
    {Part::Norms, "norms"},
    {Part::LmHead, "lm_head"},
}};
static_assert(names_every_value(kPartNames) &&
              kPartNames.size() == static_cast<std::size_t>(Part::LmHead) + 1);
}  // namespace

std::string_view to_string(Dtype d) {
  return name_of(kDtypeNames, d);
}

Dtype parse_dtype(std::string_view text) {
  std::string t(text);
  for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "fp32" || t == "float32") return Dtype::FP32;
  if (t == "bf16" || t == "bfloat16") return Dtype::BF16;
  if (t == "fp16" || t == "float16") return Dtype::FP16;
  if (t == "fp8" || t == "fp8_e4m3" || t == "e4m3" || t == "fp8_e5m2") return Dtype::FP8;
  if (t == "int8") return Dtype::INT8;
  if (t == "int4") return Dtype::INT4;
  if (t == "fp4" || t == "nvfp4" || t == "mxfp4") return Dtype::FP4;
  if (t == "e8m0") return Dtype::E8M0;
  throw UnknownNameError(
      "dtype", std::string(text),
      {"fp32", "bf16", "fp16", "fp8", "fp8_e4m3", "int8", "int4", "fp4", "nvfp4", "e8m0"});
}

double element_bytes(Dtype d) {
  switch (d) {
    case Dtype::FP32:
      return 4;
    case Dtype::BF16:
    case Dtype::FP16:
      return 2;
    case Dtype::FP8:
    case Dtype::INT8:
    case Dtype::E8M0:
      return 1;
    case Dtype::INT4:
    case Dtype::FP4:
      return 0.5;
  }
  return 0;
}

std::string_view to_string(KernelKind k) {
  return name_of(kKernelKindNames, k);
}

double WeightFormat::bytes_per_element() const {
  double b = element_bytes(dtype);
  if (scale_block_elems > 0) {
    b += element_bytes(scale_dtype) / scale_block_elems;
    if (zero_point) b += element_bytes(*zero_point) / scale_block_elems;
  }
  return b;
}

WeightFormat ModelDtypes::format(Part p) const {
  const auto& o = overrides[static_cast<std::size_t>(p)];
  return o ? *o : weights;
}

std::string_view to_string(Part p) {
  return name_of(kPartNames, p);
}

std::string_view to_string(LayerType t) {
  return t == LayerType::Dense ? "dense" : "moe";
}
std::string_view to_string(Phase p) {
  return p == Phase::Prefill ? "prefill" : "decode";
}

}  // namespace topoplan
