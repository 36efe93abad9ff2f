#include "model/kernels.hpp"

namespace topoplan::detail {

Dtype math_dtype(const ModelSpec& m, const WeightFormat& f) {
  if (f.weight_only) return m.dtypes.activations;
  switch (f.dtype) {
    case Dtype::FP8:
    case Dtype::INT8:
    case Dtype::FP4:
      return f.dtype;
    default:
      return m.dtypes.activations;
  }
}

KernelCost gemm(const ModelSpec& m, const std::string& name, double rows, double n, double k,
                const WeightFormat& f) {
  double act = element_bytes(m.dtypes.activations);
  KernelCost c{.name = name, .kind = KernelKind::Gemm, .math_dtype = math_dtype(m, f)};
  c.flops = 2 * rows * n * k;
  c.weight_bytes = n * k * f.bytes_per_element();
  c.bytes = c.weight_bytes + rows * (k + n) * act;
  c.m = rows;
  c.n = n;
  c.k = k;
  c.block_scaled = !f.weight_only && f.dtype == Dtype::FP8 && f.scale_block_elems > 0;
  return c;
}

KernelCost elementwise(const ModelSpec& m, const std::string& name, double rows, double cols,
                       double passes, double weight_elems) {
  double act = element_bytes(m.dtypes.activations);
  KernelCost c{.name = name, .kind = KernelKind::Elementwise, .math_dtype = m.dtypes.activations};
  c.flops = 4 * rows * cols;
  c.weight_bytes = weight_elems * m.dtypes.format(Part::Norms).bytes_per_element();
  c.bytes = c.weight_bytes + passes * rows * cols * act;
  c.m = rows;
  c.n = cols;
  return c;
}

}  // namespace topoplan::detail
