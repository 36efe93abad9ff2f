// Internal helpers of the model layer shared by params, layer cost and memory.
#pragma once

#include "topoplan/model.hpp"

namespace topoplan {

// Attention weights of one layer split by how tensor parallelism treats them.
struct AttentionShapes {
  double split = 0;             // column/row parallel over heads (q, k, v, o; MLA q_b, kv_b, o)
  double replicated = 0;        // on every TP rank (MLA q_a, kv_a latent projections; o bias)
  double replicated_norms = 0;  // MLA latent norms, Qwen3 q/k norms
};
AttentionShapes attention_shapes(const ModelSpec& m);

double shared_intermediate(const ModelSpec& m);
// Unique weights of the MTP modules (embedding and LM head shared with the main model).
double mtp_params(const ModelSpec& m);
// Throws InputError("shard", ...) when tp < 1 or ep < 1 (the cost formulas divide by them).
void require_valid_degrees(const Shard& s);

}  // namespace topoplan
