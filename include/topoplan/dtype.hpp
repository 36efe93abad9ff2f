// Numeric formats of weights, KV cache and activations.
#pragma once

#include <string>
#include <string_view>

namespace topoplan {

// E8M0: the 8-bit power-of-two shared scale of the OCP Microscaling (MX) formats (OCP MX spec
// v1.0 §5.3); a scale type only, never a GEMM operand.
enum class Dtype { FP32, BF16, FP16, FP8, INT8, INT4, FP4, E8M0 };

std::string_view to_string(Dtype d);
// Parses "bf16", "fp16", "fp8" (also "fp8_e4m3"), "int8", "int4", "fp4"/"nvfp4", "fp32", "e8m0".
// Throws UnknownNameError on anything else.
Dtype parse_dtype(std::string_view text);

// Bytes per element excluding scale overhead (int4/fp4 = 0.5).
double element_bytes(Dtype d);

}  // namespace topoplan
