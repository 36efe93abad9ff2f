#include "io/scale_block.hpp"

#include <nlohmann/json.hpp>

#include "topoplan/limits.hpp"

namespace topoplan::io {

namespace {
// The smallest real group is NVFP4's 16 weights (8 leaves room); one side of a block is at most
// a model width (a per-row scale).
constexpr double kMinScaleBlockElems = 8;
constexpr long long kMaxScaleBlock = limits::kMaxFfnWidth;
}  // namespace

double scale_block_elems(const JsonReader& r, const std::string& key) {
  nlohmann::json b = r.raw().at(key);
  if (b.is_number_integer()) b = nlohmann::json::array({b});
  // [] would be a block of one element: a 4-byte scale per weight (3.35 TB for DeepSeek-R1's
  // 671B instead of 673 GB); a block is 1-D or 2-D.
  if (!b.is_array() || b.empty() || b.size() > 2)
    r.fail(r.pointer_to(key), "expected [rows, cols] or [group], got " + b.dump());
  double elems = 1;
  for (const auto& x : b) {
    if (!x.is_number_integer() || x.get<long long>() <= 0 || x.get<long long>() > kMaxScaleBlock)
      r.fail(r.pointer_to(key),
             "block sizes must be integers from 1 to " + std::to_string(kMaxScaleBlock));
    elems *= x.get<double>();
  }
  // A scale per weight or per few weights is no quantization format: the scales would outweigh
  // the weights ([1, 1] stored 4 B of fp32 scale per 1 B of fp8).
  if (elems < kMinScaleBlockElems)
    r.fail(r.pointer_to(key), "a block of " + std::to_string(static_cast<int>(elems)) +
                                  " weights; at least " +
                                  std::to_string(static_cast<int>(kMinScaleBlockElems)) +
                                  " share a scale (NVFP4 16, MXFP4 32, DeepSeek FP8 128 x 128)");
  return elems;
}

}  // namespace topoplan::io
