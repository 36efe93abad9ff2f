// Hugging Face config.json → ModelSpec (llama, mistral, qwen2, qwen3, qwen3_moe, mixtral,
// deepseek_v2, deepseek_v3, kimi_k2, gpt_oss, glm4_moe; by model_type or architectures).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "topoplan/model.hpp"

namespace topoplan::io {

// True when `j` looks like a Hugging Face config (has model_type or num_hidden_layers).
bool is_hf_config(const nlohmann::json& j);
ModelSpec parse_hf_config(const nlohmann::json& j, const std::string& source);
// Parses a dtype string; an unknown one is an InputError at `pointer` of `source`.
Dtype dtype_at(const std::string& text, const std::string& source, const std::string& pointer);

}  // namespace topoplan::io
