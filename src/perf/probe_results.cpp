// Reads probe output (tools/measure/probe_compute.py, probe_mla.py and the C++ topoplan-probe share
// the point format) into (kernel, measured time) pairs.
#include "io/json_reader.hpp"
#include "io/quantity_ranges.hpp"
#include "topoplan/error.hpp"
#include "topoplan/perf.hpp"

namespace topoplan {
namespace {

KernelKind kind_of(const std::string& op) {
  if (op == "copy") return KernelKind::Elementwise;
  if (op == "attn_decode" || op == "mla_decode") return KernelKind::Attention;
  if (op == "grouped_gemm") return KernelKind::GroupedGemm;
  return KernelKind::Gemm;
}

bool priced(const std::string& op) {
  return op == "copy" || op == "gemv" || op == "gemm" || op == "gemm_square" ||
         op == "attn_decode" || op == "tp_gemm" || op == "grouped_gemm" || op == "mla_decode";
}

}  // namespace

std::vector<MeasuredKernel> parse_probe_results(const std::string& json_text,
                                                const std::string& source) {
  const auto j = io::parse_json_text(json_text, source);
  const io::JsonReader top = io::JsonReader::object_at(j, source, "");
  const auto& points = top.at("points");
  if (!points.is_array()) throw InputError(source, "/points", "expected an array");
  std::vector<MeasuredKernel> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const io::JsonReader f =
        io::JsonReader::object_at(points[i], source, "/points/" + std::to_string(i));
    if (!points[i].is_object()) throw InputError(source, f.pointer(), "expected an object");
    const std::string op = f.str("op");
    if (f.has("error") || !priced(op)) continue;
    MeasuredKernel mk;
    mk.op = op;
    mk.kernel.name = op;
    mk.kernel.kind = kind_of(op);
    try {
      mk.kernel.math_dtype = parse_dtype(f.str("dtype"));
    } catch (const UnknownNameError& e) {  // "unknown dtype 'x'; known: ...", at its pointer
      throw InputError(source, f.pointer_to("dtype"), e.what());
    }
    mk.variant = f.str_or("variant", f.str("dtype"));
    // "fp8_block", "fp8_block_triton", "fp8_block_deepgemm": 128x128 weight scales.
    mk.kernel.block_scaled = mk.variant.rfind("fp8_block", 0) == 0;
    mk.label = f.str_or("label", "");
    // Sizes and times within their plausible ranges (docs/limits.md): bytes of 1e300 or a time
    // of 5e-324 µs gave errors of 1e301 in `validate --probe`.
    namespace rg = io::ranges;
    mk.kernel.bytes = f.quantity("bytes", rg::kMeasuredBytes);
    mk.kernel.flops = f.quantity("flops", rg::kMeasuredFlops, true);
    if (mk.kernel.kind == KernelKind::Gemm || mk.kernel.kind == KernelKind::GroupedGemm) {
      mk.kernel.m = f.quantity("m", rg::kMatrixDim);
      mk.kernel.n = f.quantity("n", rg::kMatrixDim);
      mk.kernel.k = f.quantity("k", rg::kMatrixDim);
      // m, n, k are per group; flops and bytes cover every group (tools/probe/src/gemm.cu).
      if (mk.kernel.kind == KernelKind::GroupedGemm)
        mk.kernel.groups = f.quantity("groups", rg::kMatrixDim);
    }
    if (mk.kernel.kind == KernelKind::Attention)
      mk.kernel.kv_bytes =
          f.has("kv_bytes") ? f.quantity("kv_bytes", rg::kMeasuredBytes) : mk.kernel.bytes;
    mk.measured_us = f.quantity("median_us", rg::kKernelTime_us);
    out.push_back(std::move(mk));
  }
  return out;
}

}  // namespace topoplan
