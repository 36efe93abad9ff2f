// Builders of KernelCost records used by the per-layer cost model.
#pragma once

#include <string>

#include "topoplan/kernel.hpp"
#include "topoplan/model.hpp"

namespace topoplan::detail {

// Tensor-core format a GEMM with weights in `f` runs in: FP8/INT8/FP4 weights use their own
// format (W8A8 / FP8 block GEMMs / NVFP4); INT4 is weight-only (W4A16) and runs in activations.
Dtype math_dtype(const ModelSpec& m, const WeightFormat& f);

// m×k activations times k×n weights: 2mnk FLOPs; reads weights (n·k, with scales) and the
// input (m·k), writes the output (m·n) in the activation dtype.
KernelCost gemm(const ModelSpec& m, const std::string& name, double rows, double n, double k,
                const WeightFormat& f);

// A bandwidth-bound kernel over `rows`×`cols` activations that touches `passes` tensors of that
// size (a fused add+RMSNorm: read x and residual, write both = 4) plus `weight_elems` weights.
// FLOPs count ~4 vector operations per element (not tensor-core work).
KernelCost elementwise(const ModelSpec& m, const std::string& name, double rows, double cols,
                       double passes, double weight_elems);

}  // namespace topoplan::detail
