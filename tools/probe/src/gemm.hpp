// GEMM/GEMV and grouped-GEMM efficiency through cuBLASLt, bf16 and fp8 e4m3.
#pragma once

#include "common.hpp"

namespace probe {

struct GemmOptions {
  bool quick = false;
  // false: bf16 and per-tensor fp8 over every case; true: only fp8 with 128x128 weight and
  // 1x128 activation block scales, over the thin cases of issue 14 (tp_gemm, grouped_gemm). Two
  // sections, so that a failure of the newer block-scaled kernels cannot take the others along.
  bool block_scaled = false;
};

// Appends one point per (case, variant) to `points` (probe_compute.py's point format plus
// "variant", "scale", "groups", "label"); `checks` gets the correctness checks (relative error
// against a naive fp32 reference kernel on a small shape, per variant).
void probe_gemm(Json& points, Json& checks, const GemmOptions& o);

}  // namespace probe
