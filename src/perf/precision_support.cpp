// Weight formats a GPU cannot multiply natively become weight-only quantization, as the engines
// run them (docs/compute-model.md, "Formats without tensor-core support").
#include <algorithm>
#include <string>

#include "topoplan/error.hpp"
#include "topoplan/perf.hpp"

namespace topoplan {

namespace {

// Tensor-core support by the catalog's datasheet peaks (0 = no such tensor-core path).
bool native(Dtype d, const GpuSpec& g) {
  switch (d) {
    case Dtype::FP8:
      return g.fp8_TFLOPS > 0;
    case Dtype::FP4:
      return g.fp4_TFLOPS > 0;
    case Dtype::INT8:
      return g.int8_TOPS > 0;
    default:
      return true;  // 16/32-bit math; INT4 is weight-only by definition (kernels.cpp)
  }
}

std::string note_for(Dtype d, const GpuSpec& g) {
  std::string name(to_string(d));
  return name + " weights: " + g.name + " has no " + name +
         " tensor cores; priced as weight-only quantization (" + name +
         " weights read from HBM, dequantized to bf16 in the GEMM, as vLLM's Marlin kernels run "
         "them)";
}

}  // namespace

std::vector<std::string> fit_formats_to_gpu(ModelSpec& m, const GpuSpec& gpu) {
  std::vector<std::string> notes;
  auto fit = [&](WeightFormat& f) {
    if (f.weight_only || native(f.dtype, gpu)) return;
    // Marlin (W8A16/W4A16) needs sm80; older GPUs have no kernel for these formats at all.
    if (gpu.sm_version > 0 && gpu.sm_version < 80)
      throw FieldError("precision", std::string(to_string(f.dtype)) +
                                        " weights need an sm80+ GPU (Marlin " +
                                        "weight-only kernels); " + gpu.name + " is sm" +
                                        std::to_string(gpu.sm_version));
    f.weight_only = true;
    std::string n = note_for(f.dtype, gpu);
    if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
  };
  fit(m.dtypes.weights);
  for (auto& o : m.dtypes.overrides)
    if (o) fit(*o);
  // 16-bit expert math takes 16-bit tokens: no FP8 dispatch without FP8 experts.
  if (m.dtypes.format(Part::RoutedExperts).weight_only)
    m.dtypes.moe_dispatch = m.dtypes.activations;
  return notes;
}

}  // namespace topoplan
