// The GEMM shapes the probe measures: those topoplan's model catalog produces (models/*.json).
// A weight is (n outputs) x (k inputs); m is tokens. Grouped cases run `groups` equal GEMMs.
#pragma once

#include <string>
#include <vector>

namespace probe {

struct GemmCase {
  std::string op;     // gemv (decode m), gemm (prefill m), gemm_square, tp_gemm, grouped_gemm
  std::string label;  // which layer of which model
  int m = 1, n = 1, k = 1, groups = 1;
};

struct WeightShape {
  int k, n;
  const char* label;
};

// Decode weight shapes (the compute calibration's set, tools/measure/probe_compute.py).
inline const std::vector<WeightShape> kDecodeShapes = {
    {4096, 4096, "llama-3-8b o_proj"},
    {4096, 6144, "llama-3-8b qkv_proj"},
    {4096, 14336, "llama-3-8b up or gate"},
    {14336, 4096, "llama-3-8b down"},
    {8192, 8192, "llama-3-70b o_proj"},
    {8192, 28672, "llama-3-70b up or gate"},
    {7168, 18432, "deepseek-v3 dense up or gate"},
    {7168, 2048, "deepseek-v3 routed expert up or gate"},
    {2048, 7168, "deepseek-v3 routed expert down"},
    {16384, 53248, "llama-3.1-405b up or gate"},
    {8192, 1024, "llama-3-70b TP=8 kv shard"},
    {1024, 8192, "llama-3-70b TP=8 o_proj shard (k=1024)"},
    {2048, 2048, "small"},
};
inline const std::vector<int> kDecodeM = {1, 2, 4, 8, 16, 32, 64, 128};
inline const std::vector<WeightShape> kPrefillShapes = {
    {4096, 4096, "llama-3-8b o_proj"},      {4096, 14336, "llama-3-8b up or gate"},
    {8192, 8192, "llama-3-70b o_proj"},     {8192, 28672, "llama-3-70b up or gate"},
    {7168, 2048, "deepseek-v3 expert"},     {16384, 53248, "llama-3.1-405b up or gate"},
    {1024, 8192, "llama-3-70b TP=8 o_proj"}};
inline const std::vector<int> kPrefillM = {256, 512, 1024, 2048, 4096, 8192, 16384};
inline const std::vector<int> kSquare = {1024, 2048, 4096, 8192, 16384};

// Unsharded projections; `column` ones split n by tp, the others (row-parallel) split k.
// Llama-3-70B (models/llama-3-70b.json: hidden 8192, 64 q / 8 kv heads of 128, intermediate
// 28672); DeepSeek-V3 (models/deepseek-v3.json: hidden 7168, 128 heads, q_lora 1536, kv_lora 512,
// qk 128+64, v 128, dense intermediate 18432).
struct TpShape {
  int k, n;
  bool column;
  const char* label;
};
inline const std::vector<TpShape> kTpShapes = {
    {8192, 10240, true, "llama-3-70b qkv_proj"},
    {8192, 8192, false, "llama-3-70b o_proj"},
    {8192, 57344, true, "llama-3-70b gate+up"},
    {28672, 8192, false, "llama-3-70b down"},
    {1536, 24576, true, "deepseek-v3 q_b_proj (128 x 192)"},
    {512, 32768, true, "deepseek-v3 kv_b_proj (128 x (128 + 128))"},
    {16384, 7168, false, "deepseek-v3 o_proj"},
    {7168, 36864, true, "deepseek-v3 dense gate+up"},
    {18432, 7168, false, "deepseek-v3 dense down"},
};
inline const std::vector<int> kTpDegrees = {2, 4, 8};
inline const std::vector<int> kTpM = {1, 16, 64, 256, 1024};

// Routed experts of DeepSeek-V3/R1 (hidden 7168, moe_intermediate 2048): gate+up is 7168 ->
// 2 x 2048, down 2048 -> 7168; expert-TP slices the 2048. Local experts per GPU: 256 / EP for
// EP 1, 8, 32 (EP 32 leaves 8).
inline const std::vector<int> kExperts = {8, 32, 256};
inline const std::vector<int> kTokensPerExpert = {1, 4, 16, 64, 128, 256, 512};
inline const std::vector<int> kExpertTp = {1, 4, 8};

std::vector<GemmCase> gemm_cases(bool quick);

}  // namespace probe
