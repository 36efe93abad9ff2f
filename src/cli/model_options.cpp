#include "cli/model_options.hpp"

#include <algorithm>

namespace topoplan::cli {

void add_precision_flags(CLI::App& cmd, PrecisionOptions& o, bool with_train) {
  std::string help =
      "weights of the dense and expert GEMMs: bf16 | fp16 | fp8 (128x128 blocks) | "
      "fp4 (NVFP4) | mxfp4 | int4 (AWQ/GPTQ g128); default: the model's own";
  if (with_train)
    help +=
        ". With --mode train: the GEMM precision, bf16 | fp8 (Transformer Engine delayed "
        "scaling) | auto (search both); default: the model's own (fp8 for FP8-trained "
        "models, else bf16)";
  cmd.add_option("--precision", o.precision, help);
  cmd.add_option("--kv-dtype", o.kv_dtype,
                 "KV cache dtype: bf16 | fp16 | fp8 (vLLM --kv-cache-dtype); default: the model's");
}

ModelSpec load_model_with(const std::string& name, const PrecisionOptions& o) {
  ModelSpec m = load_model(name);
  if (!o.precision.empty()) apply_precision(m, o.precision);
  if (!o.kv_dtype.empty()) apply_kv_dtype(m, o.kv_dtype);
  return m;
}

double context_of(const CLI::Option& flag, double value, const ModelSpec& m) {
  if (flag.count() > 0 || m.max_context <= 0) return value;
  return std::min(value, static_cast<double>(m.max_context));
}

}  // namespace topoplan::cli
