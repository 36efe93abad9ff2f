// The case list of gemm_shapes.hpp.
#include "gemm_shapes.hpp"

namespace probe {

std::vector<GemmCase> gemm_cases(bool quick) {
  std::vector<GemmCase> c;
  const std::size_t decode = quick ? 3 : kDecodeShapes.size();
  for (std::size_t i = 0; i < decode; ++i)
    for (int m : kDecodeM)
      c.push_back({"gemv", kDecodeShapes[i].label, m, kDecodeShapes[i].n, kDecodeShapes[i].k, 1});
  const std::size_t prefill = quick ? 2 : kPrefillShapes.size();
  for (std::size_t i = 0; i < prefill; ++i)
    for (int m : kPrefillM)
      c.push_back(
          {"gemm", kPrefillShapes[i].label, m, kPrefillShapes[i].n, kPrefillShapes[i].k, 1});
  for (int s : kSquare) c.push_back({"gemm_square", "square", s, s, s, 1});
  for (const TpShape& t : kTpShapes)
    for (int tp : kTpDegrees)
      for (int m : kTpM) {
        const int n = t.column ? t.n / tp : t.n, k = t.column ? t.k : t.k / tp;
        c.push_back({"tp_gemm", std::string(t.label) + " /tp" + std::to_string(tp), m, n, k, 1});
      }
  for (int e : kExperts)
    for (int tp : kExpertTp)
      for (int t : kTokensPerExpert) {
        const int inter = 2048 / tp;
        const std::string tag = " e" + std::to_string(e) + " tp" + std::to_string(tp);
        c.push_back({"grouped_gemm", "deepseek-v3 experts gate+up" + tag, t, 2 * inter, 7168, e});
        c.push_back({"grouped_gemm", "deepseek-v3 experts down" + tag, t, 7168, inter, e});
      }
  return c;
}

}  // namespace probe
