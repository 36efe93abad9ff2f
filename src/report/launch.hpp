// `plan --emit ENGINE`: the command lines (and config files) that run the chosen plan on an
// inference or training engine, per node for multi-node plans, one block per pool for
// disaggregated plans (docs/launch.md). Every flag printed is a row of `launch_flags()`, which
// names the engine version it was read from and where; a plan setting an engine has no flag for
// is printed as a `#` comment instead.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topoplan/disagg.hpp"
#include "topoplan/plan.hpp"
#include "topoplan/train.hpp"

namespace topoplan::report {

// One flag (or config key, or environment variable) of one engine.
struct LaunchFlag {
  std::string_view engine;   // "sglang", "vllm", "trtllm", "dynamo", "megatron", "torchtitan",
                             // "torchrun", "nccl"
  std::string_view flag;     // as typed: "--tp-size", "enable_attention_dp", "NCCL_NVLS_ENABLE"
  std::string_view meaning;  // what the plan sets with it
  std::string_view version;  // the engine version (release or commit) it was read from
  std::string_view source;   // URL of the file (at that commit) that documents or defines it
};
const std::vector<LaunchFlag>& launch_flags();

// "sglang", "vllm", "trtllm", "dynamo" (serving); "megatron", "torchtitan" (training).
std::vector<std::string> serving_engines();
std::vector<std::string> training_engines();

// What the plan was asked for besides the plan itself: the request (CUDA graphs, NVLS, MoE
// transport, chunk, memory fraction, speculative decoding) and the weight precision forced with
// --precision ("" when the checkpoint's own).
struct ServeLaunch {
  const ModelSpec* model = nullptr;
  PlanRequest request;
  std::string precision;
};

// The best plan of `out` on `engine` (UnknownNameError for another name). `out` must hold a
// fitting plan and its placement.
std::string emit_serving(std::string_view engine, const ServeLaunch& in, const PlanOutput& out);
// The best split of a disaggregated plan: one block per pool (prefill, then decode).
std::string emit_serving_disagg(std::string_view engine, const ServeLaunch& in,
                                const DisaggOutput& out);
// The best training plan of `r` (its placement) on `engine`.
std::string emit_training(std::string_view engine, const ModelSpec& model, const TrainingResult& r);

}  // namespace topoplan::report
