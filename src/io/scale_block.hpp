// One rule for a quantization scale block wherever a format comes from: a model JSON's
// "scale_block", or a Hugging Face config's weight_block_size, block_structure or group_size.
#pragma once

#include <string>

#include "io/json_reader.hpp"

namespace topoplan::io {

// Elements of a block whose sides are the integers at r's `key` (one integer, or an array of one
// or two). Each side is 1 to limits::kMaxFfnWidth (a per-row scale) and at least 8 weights share
// a scale (the smallest real group is NVFP4's 16); anything else is an InputError at the key.
double scale_block_elems(const JsonReader& r, const std::string& key);

}  // namespace topoplan::io
