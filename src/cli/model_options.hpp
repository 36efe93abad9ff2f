// --precision and --kv-dtype, shared by `plan`, `model show` and `model roofline`.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "topoplan/model.hpp"

namespace topoplan::cli {

struct PrecisionOptions {
  std::string precision;  // empty: the model's own formats
  std::string kv_dtype;   // empty: the model's KV dtype
};

// `with_train`: the command also plans training (`plan`), so the help says what --precision
// means there.
void add_precision_flags(CLI::App& cmd, PrecisionOptions& o, bool with_train = false);
// load_model(name) with the precision flags applied.
ModelSpec load_model_with(const std::string& name, const PrecisionOptions& o);

// `model show` and `model roofline` --context: the typed value, checked against the model's
// context later (require_context_within); untyped, the default (4096) capped at the model's
// max_context, so that a 2,048-token model (GPT-3) still shows without the flag.
double context_of(const CLI::Option& flag, double value, const ModelSpec& m);

}  // namespace topoplan::cli
