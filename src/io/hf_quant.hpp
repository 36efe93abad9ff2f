// Hugging Face quantization_config kinds: fp8, compressed-tensors, modelopt (FP8/NVFP4), mxfp4,
// awq, gptq.
#pragma once

#include "io/json_reader.hpp"
#include "topoplan/model.hpp"

namespace topoplan::io {

// Applies r's `quantization_config` (if any) to m's weight formats; an unsupported method or
// scheme is an InputError at its JSON pointer.
void parse_quantization(const JsonReader& r, ModelSpec& m);

}  // namespace topoplan::io
