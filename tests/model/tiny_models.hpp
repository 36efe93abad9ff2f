// Small models whose costs are derived by hand in the tests.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "topoplan/model.hpp"

namespace topoplan::test {

// h=8, 2 layers, vocab 16, 2 query heads, 1 KV head (GQA), head_dim 4, SwiGLU intermediate 12.
inline ModelSpec tiny_dense() {
  ModelSpec m;
  m.name = "tiny-dense";
  m.hidden = 8;
  m.layers = 2;
  m.vocab = 16;
  m.max_context = 64;
  m.heads = 2;
  m.kv_heads = 1;
  m.head_dim = 4;
  m.intermediate = 12;
  return m;
}

// tiny_dense with 4 routed experts (top-2, intermediate 6) and 1 shared expert, first layer dense.
inline ModelSpec tiny_moe() {
  ModelSpec m = tiny_dense();
  m.name = "tiny-moe";
  m.moe = {.num_experts = 4,
           .top_k = 2,
           .expert_intermediate = 6,
           .num_shared_experts = 1,
           .shared_intermediate = 0,
           .first_dense_layers = 1,
           .layer_freq = 1,
           .router_bias = false};
  return m;
}

// tiny_dense with MLA: 2 heads, q_lora 4, kv_lora 6, nope 2, rope 2, v 3.
inline ModelSpec tiny_mla() {
  ModelSpec m = tiny_dense();
  m.name = "tiny-mla";
  m.attention = AttentionKind::Mla;
  m.kv_heads = 2;
  m.mla = {.q_lora_rank = 4,
           .kv_lora_rank = 6,
           .qk_nope_head_dim = 2,
           .qk_rope_head_dim = 2,
           .v_head_dim = 3};
  return m;
}

inline KernelCost find(const std::vector<KernelCost>& ks, const std::string& name) {
  for (const auto& k : ks)
    if (k.name == name) return k;
  throw std::runtime_error("no kernel " + name);
}

}  // namespace topoplan::test
