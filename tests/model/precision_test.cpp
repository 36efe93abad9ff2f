// --precision / --kv-dtype: bytes per element of each format by hand, which parts change, and
// the KV cache in fp8.
#include <doctest/doctest.h>

#include "model/tiny_models.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

using namespace topoplan;

TEST_CASE("precision formats: bytes per element with their block scales, by hand") {
  // bf16/fp16: 2 B, no scales.
  CHECK(precision_format("bf16").bytes_per_element() == 2);
  CHECK(precision_format("fp16").bytes_per_element() == 2);
  // fp8 (DeepSeek 128x128 blocks): 1 + 4 / 16384 = 1.000244140625 B.
  CHECK(precision_format("fp8").bytes_per_element() == 1 + 4.0 / 16384);
  // NVFP4: 0.5 + one e4m3 byte per 16 = 0.5625 B.
  CHECK(precision_format("fp4").bytes_per_element() == 0.5625);
  CHECK(precision_format("nvfp4").bytes_per_element() == 0.5625);
  // MXFP4: 0.5 + one e8m0 byte per 32 = 0.53125 B.
  CHECK(precision_format("mxfp4").bytes_per_element() == 0.53125);
  // AWQ/GPTQ int4 g128: 0.5 + (2 B fp16 scale + 0.5 B int4 zero) / 128 = 0.51953125 B.
  CHECK(precision_format("int4").bytes_per_element() == 0.5 + 2.5 / 128);
  CHECK_THROWS_AS(precision_format("fp6"), UnknownNameError);
}

TEST_CASE("apply_precision: GEMM weights change, embedding/head/norms stay 16-bit") {
  ModelSpec m = test::tiny_dense();
  ParamCount c = count_params(m);
  apply_precision(m, "fp8");
  // tiny_dense: attention 384 + MLP 576 GEMM weights at 1 + 4/16384 B; embedding 128 + LM head
  // 128 + norms 40 at 2 B.
  double gemm = 384 + 576, other = 128 + 128 + 40;
  CHECK(weight_bytes(m, c.total) == doctest::Approx(gemm * (1 + 4.0 / 16384) + other * 2));
  CHECK(m.dtypes.format(Part::Embedding).dtype == Dtype::BF16);
  CHECK(m.dtypes.format(Part::DenseMlp).dtype == Dtype::FP8);
  // Back to bf16: every part 2 B.
  apply_precision(m, "bf16");
  CHECK(weight_bytes(m, c.total) == doctest::Approx((gemm + other) * 2));
}

TEST_CASE("apply_precision on an FP8 checkpoint: bf16 GEMMs and 16-bit dispatch") {
  ModelSpec m = load_model("deepseek-r1");
  REQUIRE(m.dtypes.moe_dispatch == Dtype::FP8);
  apply_precision(m, "bf16");
  CHECK(m.dtypes.format(Part::RoutedExperts).dtype == Dtype::BF16);
  CHECK(m.dtypes.moe_dispatch == Dtype::BF16);
  // 671B parameters at 2 B: within 1% of 1342 GB.
  CHECK(weight_bytes(m, count_params(m).total) == doctest::Approx(2 * 671e9).epsilon(0.01));
  apply_precision(m, "fp4");
  CHECK(m.dtypes.moe_dispatch == Dtype::FP8);  // DeepEP FP8 dispatch before low-precision math
  CHECK(m.dtypes.format(Part::Router).dtype == Dtype::BF16);
}

TEST_CASE("Llama-3-70B in FP8 fits one H200's 141 GB: weight bytes by hand") {
  ModelSpec m = load_model("llama-3-70b");
  apply_precision(m, "fp8");
  ParamCount c = count_params(m);
  // Embedding and LM head 128256 x 8192 each = 1.0507e9 params at 2 B; norms 8192 x 161 at 2 B;
  // the other 68.55e9 at 1.000244 B: about 72.7 GB (vs 141 GB HBM).
  double emb = 128256.0 * 8192, norms = 8192.0 * (2 * 80 + 1);
  double gemm = c.total.sum() - 2 * emb - norms;
  CHECK(weight_bytes(m, c.total) ==
        doctest::Approx(gemm * (1 + 4.0 / 16384) + (2 * emb + norms) * 2));
  CHECK(weight_bytes(m, c.total) == doctest::Approx(72.7e9).epsilon(0.002));
}

TEST_CASE("--kv-dtype fp8 halves the KV cache per token") {
  ModelSpec m = load_model("llama-3-70b");
  // 80 layers x 2 (K, V) x 8 KV heads x 128 x 2 B = 327,680 B/token in bf16.
  CHECK(kv_bytes_per_token(m) == 327680);
  apply_kv_dtype(m, "fp8");
  CHECK(kv_bytes_per_token(m) == 163840);
  CHECK_THROWS_AS(apply_kv_dtype(m, "int4"), UnknownNameError);
}

TEST_CASE("describe: the format as the output prints it") {
  CHECK(describe(precision_format("mxfp4")) == "fp4, e8m0 scale per 32 elements (0.53125 B/param)");
  CHECK(describe(precision_format("int4")) ==
        "int4, fp16 scale + zero point per 128 elements (0.51953 B/param)");
  CHECK(describe(precision_format("bf16")) == "bf16 (2 B/param)");
}
