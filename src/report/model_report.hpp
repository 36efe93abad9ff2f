// Output of `topoplan model list|show`: readable tables by default, JSON with stable keys
// (docs/model-format.md, "CLI output").
#pragma once

#include <ostream>
#include <vector>

#include "topoplan/model.hpp"

namespace topoplan::report {

// The per-layer cost section of `model show`: one decode step and one prefill, on one shard.
struct ModelShowOptions {
  Workload decode{.phase = Phase::Decode, .batch = 1, .new_tokens = 1, .context = 4096};
  Workload prefill{.phase = Phase::Prefill, .batch = 1, .new_tokens = 4096, .context = 0};
  Shard shard;
  // The shared field rules (batch, prompt = prefill tokens, context) and shard_problem as
  // FieldError("tp/ep").
  void validate(const ModelSpec& m) const;
};

void print_model_list(std::ostream& os, const std::vector<ModelSpec>& models, bool json);
void print_model_show(std::ostream& os, const ModelSpec& m, const ModelShowOptions& o, bool json);

}  // namespace topoplan::report
