// One GPU kernel's work, as produced by the model layer (per-layer cost) and priced by the perf
// layer (single-GPU roofline with efficiency curves). The contract between src/model and src/perf.
#pragma once

#include <string>

#include "topoplan/dtype.hpp"

namespace topoplan {

enum class KernelKind {
  Gemm,         // dense matmul / GEMV: weights × activations; m,n,k set
  GroupedGemm,  // MoE experts: `groups` GEMMs of shape m×n×k run as one grouped kernel
  Attention,    // softmax attention (prefill: flash-style; decode: reads the KV cache)
  Elementwise,  // norms, activations, rotary, residual adds: bandwidth-bound
  Embedding,    // gather of embedding rows
};
std::string_view to_string(KernelKind k);

struct KernelCost {
  std::string name;  // "qkv_proj", "o_proj", "attn", "mlp_up_gate", "mlp_down", "experts", ...
  KernelKind kind = KernelKind::Gemm;
  Dtype math_dtype = Dtype::BF16;  // tensor-core format the FLOPs run in
  double flops = 0;                // 2 per multiply-add
  double bytes = 0;                // HBM bytes read + written (weights + activations + KV)
  double weight_bytes = 0;         // the part of `bytes` that is weights (incl. scales)
  double kv_bytes = 0;             // the part of `bytes` that is KV cache
  double m = 0, n = 0, k = 0;      // GEMM shape per group: m tokens, n outputs, k inputs
  double groups = 1;               // GroupedGemm: number of experts touched; otherwise 1
  // FP8 weights with 2-D block scales (DeepSeek's 128×128): the GEMM applies a scale per k block
  // (docs/compute-model.md, "DeepSeek-R1 TP8 prefill kernels").
  bool block_scaled = false;
  // GroupedGemm run by the engine's fused-MoE kernel, i.e. without DeepEP's dispatch (SGLang
  // picks DeepGEMM for the experts only with the DeepEP all-to-all, Triton otherwise:
  // docs/compute-model.md, "Which block-FP8 kernel runs").
  bool fused_moe = false;
  // Prefill attention: kept (causal) scores per query row, L + (S + 1) / 2 for S new tokens on
  // L cached. 0 for decode: priced on the GEMM curve (docs/compute-model.md, "Prefill attention").
  double mean_keys = 0;
};

}  // namespace topoplan
