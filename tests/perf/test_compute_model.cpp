// ComputeModel: curve interpolation, the roofline terms by hand, monotonicity, overrides.
#include <doctest/doctest.h>

#include <cmath>

#include "perf/round_gpu.hpp"
#include "topoplan/error.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/perf.hpp"

using namespace topoplan;
using topoplan::test::round_gpu;

namespace {

// A calibration with flat curves: every fraction 0.5, floor 2 µs, tile 64.
Calibration flat_calibration() {
  const char* text = R"({"gpu": "ROUND", "source": "hand-made",
    "reference_peaks": {"hbm_GBps": 1000, "bf16_TFLOPS": 100, "fp8_TFLOPS": 200},
    "floor_us": 2, "tile_m": 64,
    "hbm_gemm": {"bytes": [1e3, 1e12], "fraction": [0.5, 0.5]},
    "hbm_stream": {"bytes": [1e3, 1e12], "fraction": [0.5, 0.5]},
    "tc_bf16": {"flops": [1e3, 1e18], "fraction": [0.5, 0.5]}})";
  return parse_calibration(text, "flat.json");
}

}  // namespace

TEST_CASE("LogCurve interpolates linearly in log(x) and is flat beyond its ends") {
  LogCurve c{{std::log(1.0), std::log(100.0)}, {0.2, 0.8}};
  CHECK(c.at(0.5) == doctest::Approx(0.2));
  CHECK(c.at(1000) == doctest::Approx(0.8));
  CHECK(c.at(10) == doctest::Approx(0.4));  // halfway in log x: geometric mean sqrt(0.2 × 0.8)
  CHECK(c.at(0) == doctest::Approx(0.2));
}

TEST_CASE("kernel time = floor + max(flops / achieved FLOPS, bytes / achieved bandwidth)") {
  const ComputeModel cm = ComputeModel::from_calibration(round_gpu(), flat_calibration(), true);
  KernelCost k;
  k.kind = KernelKind::Gemm;
  // Memory-bound: 1e9 B at 0.5 × 1000 GB/s = 2000 µs; compute: 2·64·1000·1000 flops at
  // 0.5 × 100 TFLOPS = 2.56 µs. Time = 2 + 2000.
  k.bytes = 1e9;
  k.m = 64, k.n = 1000, k.k = 1000;
  k.flops = 2 * k.m * k.n * k.k;
  auto t = cm.explain(k);
  CHECK(t.memory_us == doctest::Approx(2000));
  CHECK(t.compute_us == doctest::Approx(2.56));
  CHECK(t.time_us == doctest::Approx(2002));
  CHECK(t.bound == Bound::Memory);
  // m = 1 is padded to the 64-row tile: same tensor-core time as m = 64.
  k.m = 1;
  k.flops = 2 * k.n * k.k;
  CHECK(cm.explain(k).compute_us == doctest::Approx(2.56));
  // Compute-bound: 2·512000·1000·2000 = 2.048e12 flops at 50 TFLOPS = 40960 µs.
  k.m = 512000, k.n = 1000, k.k = 2000;
  k.flops = 2 * k.m * k.n * k.k;
  k.bytes = 1e6;
  t = cm.explain(k);
  CHECK(t.compute_us == doctest::Approx(40960));
  CHECK(t.bound == Bound::Compute);
  // fp8 math runs at the fp8 peak: half the time.
  k.math_dtype = Dtype::FP8;
  CHECK(cm.explain(k).compute_us == doctest::Approx(20480));
  // Nothing to do: the floor.
  KernelCost empty;
  CHECK(cm.kernel_time_us(empty) == doctest::Approx(2));
  CHECK(cm.explain(empty).bound == Bound::Floor);
}

TEST_CASE("dtype fallbacks: fp8 without fp8 tensor cores runs at the bf16 rate, fp32 as TF32") {
  GpuSpec g = round_gpu();
  g.fp8_TFLOPS = 0;
  const ComputeModel cm = ComputeModel::from_calibration(g, flat_calibration(), true);
  CHECK(cm.peak_TFLOPS(Dtype::FP8) == doctest::Approx(100));
  CHECK(cm.peak_TFLOPS(Dtype::FP32) == doctest::Approx(50));
  CHECK(cm.peak_TFLOPS(Dtype::INT4) == doctest::Approx(100));
}

TEST_CASE("memory-bandwidth override: 64 GB/s replaces the peak, curve shape kept") {
  const ComputeModel cm = ComputeModel::from_calibration(round_gpu(), flat_calibration(), true)
                              .with_memory_bandwidth(64);
  CHECK(cm.bandwidth_overridden());
  CHECK(cm.peak_hbm_GBps() == 64);
  CHECK(cm.achieved_hbm_GBps(1e9) == doctest::Approx(32));
  CHECK_THROWS_AS(cm.with_memory_bandwidth(0), InputError);
}

TEST_CASE("bad calibration files name the file and the JSON pointer") {
  auto msg = [](const std::string& text) {
    try {
      parse_calibration(text, "cal.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string head = R"({"gpu": "G", "source": "s", "floor_us": 2,
    "reference_peaks": {"hbm_GBps": 1000, "bf16_TFLOPS": 100, "fp8_TFLOPS": 200},
    "tc_bf16": {"flops": [1, 2], "fraction": [0.5, 0.5]},
    "hbm_stream": {"bytes": [1, 2], "fraction": [0.5, 0.5]})";
  CHECK(msg(head + R"(, "hbm_gemm": {"bytes": [1, 2], "fraction": [0.5, 1.5]}})")
            .find("/hbm_gemm/fraction/1") != std::string::npos);
  CHECK(msg(head + R"(, "hbm_gemm": {"bytes": [2, 1], "fraction": [0.5, 0.5]}})")
            .find("/hbm_gemm/bytes/1") != std::string::npos);
  CHECK(msg(head + "}").find("/hbm_gemm") != std::string::npos);
  CHECK(msg("{").find("cal.json") != std::string::npos);
}

TEST_CASE("calibration constants outside their plausible range are refused at their pointer") {
  auto msg = [](const std::string& floor, const std::string& hbm, const std::string& bytes) {
    try {
      parse_calibration(R"({"gpu": "G", "source": "s", "floor_us": )" + floor +
                            R"(, "reference_peaks": {"hbm_GBps": )" + hbm +
                            R"(, "bf16_TFLOPS": 100, "fp8_TFLOPS": 200},
    "tc_bf16": {"flops": [1, 2], "fraction": [0.5, 0.5]},
    "hbm_gemm": {"bytes": [1, 2], "fraction": [0.5, 0.5]},
    "hbm_stream": {"bytes": [1, )" +
                            bytes + R"(], "fraction": [0.5, 0.5]}})",
                        "cal.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(msg("2", "1000", "2").empty());
  // A floor of 1e300 µs printed 300-digit step times; 5e-324 GB/s of HBM divided to inf.
  CHECK(msg("1e300", "1000", "2") ==
        "cal.json: /floor_us: must be 0.001 to 10000000 us (docs/limits.md), got 1e+300");
  CHECK(msg("2", "5e-324", "2") ==
        "cal.json: /reference_peaks/hbm_GBps: must be 1 to 1000000 GB/s (docs/limits.md), got "
        "5e-324");
  CHECK(msg("2", "1000", "1e300") ==
        "cal.json: /hbm_stream/bytes/1: must be 1 to 1125899906842624 B (docs/limits.md), got "
        "1e+300");
}

TEST_CASE("built-in model: every GPU of the catalog gets a model, the H200 and H100-SXM measured") {
  for (const GpuSpec& g : Catalog::builtin().gpus()) {
    if (!(g.hbm_GBps > 0) || !(g.bf16_TFLOPS > 0)) continue;
    const ComputeModel cm = ComputeModel::for_gpu(g);
    CHECK(cm.measured() == (g.name == "H200-SXM" || g.name == "H100-SXM"));
  }
  CHECK(builtin_calibration("H20") == nullptr);
  REQUIRE(builtin_calibration("H100-SXM") != nullptr);
  CHECK(builtin_calibration("H100-SXM")->source.find("h100-sxm-2026-12-06.json") !=
        std::string::npos);
  CHECK(reference_calibration().gpu == "H200-SXM");
}

TEST_CASE("H100-SXM measured: a 256 MiB copy takes the time the lent H100 measured") {
  // topologies/calibration/h100-sxm-2026-12-06.json, copy of 256 MiB (268,435,456 bytes read +
  // written): median 90.361 us; floor 0.99 us. Ideal at 3,350 GB/s: 268435456 / 3.35e3 = 80.130
  // us, so the fitted fraction is 80.130 / (90.361 - 0.99) = 0.8966 and the model's copy time is
  // the measured one.
  const ComputeModel h100 = ComputeModel::for_gpu(Catalog::builtin().gpu("H100-SXM"));
  KernelCost copy;
  copy.kind = KernelKind::Elementwise;
  copy.bytes = 268435456;
  CHECK(h100.kernel_time_us(copy) == doctest::Approx(90.361).epsilon(0.002));
  // Host launch time is the host's: the H100 file leaves it out, the reference's 10.51 us applies.
  CHECK(h100.eager_launch_us() == doctest::Approx(reference_calibration().eager_launch_us));
}

TEST_CASE("monotonic: more bytes never take less time, bigger GEMMs are not slower per flop") {
  for (const std::string name : {"H200-SXM", "H20"}) {
    const ComputeModel cm = ComputeModel::for_gpu(Catalog::builtin().gpu(name));
    for (KernelKind kind : {KernelKind::Gemm, KernelKind::Elementwise, KernelKind::Attention}) {
      KernelCost k;
      k.kind = kind;
      double prev = 0;
      for (double b = 1e3; b < 2e11; b *= 1.07) {
        k.bytes = b;
        const double t = cm.kernel_time_us(k);
        CHECK_MESSAGE(t >= prev, name, " kind ", to_string(kind), " bytes ", b);
        prev = t;
      }
    }
    for (Dtype d : {Dtype::BF16, Dtype::FP8}) {
      double prev_rate = 0;
      // Square GEMMs in multiples of the 64-row tile (between multiples, padding makes the
      // rate a sawtooth by design).
      for (double s = 64; s <= 32768; s *= 2) {
        const double rate = cm.achieved_TFLOPS(d, s, s, s);
        // 10% slack: the H200 measurement itself falls from 752 TFLOPS (1024x4096x4096) to
        // 680-705 at 8192^3..16384^3 bf16 (clocks under load); the fitted curve keeps that dip.
        CHECK_MESSAGE(rate >= prev_rate * 0.90, name, " ", to_string(d), " size ", s);
        prev_rate = std::max(prev_rate, rate);
      }
    }
  }
}

TEST_CASE("other GPUs: the H200 curve shape scaled by datasheet peaks") {
  const ComputeModel h20 = ComputeModel::for_gpu(Catalog::builtin().gpu("H20"));
  const ComputeModel h200 = ComputeModel::for_gpu(Catalog::builtin().gpu("H200-SXM"));
  // Same ideal time at peak → same fraction: 4000/4800 of the bytes on the H20 runs at the
  // same fraction of its peak as the H200 at the full byte count.
  const double b = 64e6;
  CHECK(h20.achieved_hbm_GBps(b * 4000 / 4800, KernelKind::Gemm) / 4000 ==
        doctest::Approx(h200.achieved_hbm_GBps(b, KernelKind::Gemm) / 4800));
  CHECK(h20.peak_TFLOPS(Dtype::FP8) == 296);
  CHECK(!h20.measured());
  CHECK(h20.provenance().find("scaled") != std::string::npos);
}

TEST_CASE("other GPUs: HBM fractions scaled by their STREAM fraction relative to the H200") {
  // Azure/AI-benchmarking-guide STREAM copy/triad/dot, TB/s: A100-80GB 1.61/1.70/1.75 of 2.039,
  // H200 4.01/4.15/4.48 of 4.8. Ratio of fractions:
  // A100 (0.94515 + 0.96432 + 0.91959)/3 = 0.94302. (The H100-SXM has its own measured curves.)
  const ComputeModel h200 = ComputeModel::for_gpu(Catalog::builtin().gpu("H200-SXM"));
  const ComputeModel a100 = ComputeModel::for_gpu(Catalog::builtin().gpu("A100-SXM-80GB"));
  const double b = 64e6;  // bytes on the H200; same ideal time on the others
  const double f200 = h200.achieved_hbm_GBps(b, KernelKind::Gemm) / 4800;
  CHECK(a100.achieved_hbm_GBps(b * 2039 / 4800, KernelKind::Gemm) / 2039 ==
        doctest::Approx(f200 * 0.94302).epsilon(1e-4));
  // The H100 is not scaled: its model is its own file's, unchanged.
  const GpuSpec& h100_spec = Catalog::builtin().gpu("H100-SXM");
  const ComputeModel h100 = ComputeModel::for_gpu(h100_spec);
  const ComputeModel own =
      ComputeModel::from_calibration(h100_spec, *builtin_calibration("H100-SXM"), true);
  CHECK(h100.achieved_hbm_GBps(b, KernelKind::Elementwise) ==
        own.achieved_hbm_GBps(b, KernelKind::Elementwise));
  // Compute is not scaled: the same as the unscaled reference curves on the A100's peaks.
  const ComputeModel plain = ComputeModel::from_calibration(Catalog::builtin().gpu("A100-SXM-80GB"),
                                                            reference_calibration(), false);
  CHECK(a100.achieved_TFLOPS(Dtype::BF16, 4096, 4096, 4096) ==
        plain.achieved_TFLOPS(Dtype::BF16, 4096, 4096, 4096));
  CHECK(a100.achieved_hbm_GBps(b, KernelKind::Gemm) < plain.achieved_hbm_GBps(b, KernelKind::Gemm));
}

TEST_CASE("eager launch cost: parsed, the reference's when absent, validated") {
  // flat_calibration() has no eager_launch_us: the host-side cost of the H200 measurement
  // (floor_eager probe point) applies, and an eager launch costs more than the graph floor.
  const Calibration& ref = reference_calibration();
  CHECK(ref.eager_launch_us > ref.floor_us);
  const ComputeModel flat = ComputeModel::from_calibration(round_gpu(), flat_calibration(), true);
  CHECK(flat_calibration().eager_launch_us == 0);
  CHECK(flat.eager_launch_us() == ref.eager_launch_us);
  const std::string body = R"({"gpu": "G", "source": "s", "floor_us": 2,
    "reference_peaks": {"hbm_GBps": 1000, "bf16_TFLOPS": 100, "fp8_TFLOPS": 200},
    "tc_bf16": {"flops": [1, 2], "fraction": [0.5, 0.5]},
    "hbm_gemm": {"bytes": [1, 2], "fraction": [0.5, 0.5]},
    "hbm_stream": {"bytes": [1, 2], "fraction": [0.5, 0.5]}, "eager_launch_us": )";
  const Calibration own = parse_calibration(body + "7}", "cal.json");
  CHECK(own.eager_launch_us == 7);
  CHECK(ComputeModel::from_calibration(round_gpu(), own, true).eager_launch_us() == 7);
  std::string msg;
  try {
    parse_calibration(body + "-1}", "cal.json");
  } catch (const InputError& e) {
    msg = e.what();
  }
  CHECK(msg.find("/eager_launch_us") != std::string::npos);
}

TEST_CASE("gemm_k_shape: optional, parsed with located errors, slows only k below k_ref") {
  const std::string body = R"({"gpu": "G", "source": "s", "floor_us": 1,
    "reference_peaks": {"hbm_GBps": 1000, "bf16_TFLOPS": 100, "fp8_TFLOPS": 200},
    "tc_bf16": {"flops": [1, 2], "fraction": [0.5, 0.5]},
    "hbm_gemm": {"bytes": [1, 2], "fraction": [0.5, 0.5]},
    "hbm_stream": {"bytes": [1, 2], "fraction": [0.5, 0.5]}, "gemm_k_shape": )";
  CHECK(flat_calibration().k_shape(256, false) == 1);  // absent: no term
  const Calibration c =
      parse_calibration(body + R"({"k_ref": 1000, "k_half_bf16": 100, "k_half_fp8": 400}})", "c");
  // bf16, k = 100: (100/200) / (1000/1100) = 0.55; fp8, k = 400: (400/800) / (1000/1400) = 0.7.
  CHECK(c.k_shape(100, false) == doctest::Approx(0.55));
  CHECK(c.k_shape(400, true) == doctest::Approx(0.7));
  CHECK(c.k_shape(1000, true) == 1);
  CHECK(c.k_shape(5000, true) == 1);
  CHECK(c.k_shape(0, true) == 1);  // shape unknown
  // Priced: a compute-bound bf16 GEMM at k = 100 takes 1 / 0.55 of the time at equal flops.
  const ComputeModel cm = ComputeModel::from_calibration(round_gpu(), c, true);
  KernelCost small, large;
  small.kind = large.kind = KernelKind::Gemm;
  small.m = large.m = 1024;
  small.k = 100, small.n = 1e4;
  large.k = 1e4, large.n = 100;
  small.flops = large.flops = 2 * 1024 * 1e4 * 100;
  CHECK(cm.explain(small).compute_us == doctest::Approx(cm.explain(large).compute_us / 0.55));
  std::string msg;
  try {
    parse_calibration(body + R"({"k_ref": 1000, "k_half_bf16": 0, "k_half_fp8": 400}})", "c.json");
  } catch (const InputError& e) {
    msg = e.what();
  }
  CHECK(msg.find("c.json") != std::string::npos);
  CHECK(msg.find("/gemm_k_shape/k_half_bf16") != std::string::npos);
}

TEST_CASE("fp8 block GEMMs at the Triton rate: only block-scaled fp8, only when asked") {
  // The reference calibration's fp8_block_triton ratio (0.551, r1-prefill-h200-2026-12-03.json)
  // divides the tensor rate of block-scaled fp8 GEMMs; per-tensor fp8 and bf16 are unchanged.
  const ComputeModel base = ComputeModel::for_gpu(Catalog::builtin().gpu("H200-SXM"));
  const ComputeModel triton = base.with_fp8_block_gemm(Fp8BlockGemm::Triton);
  KernelCost k;
  k.kind = KernelKind::Gemm;
  k.math_dtype = Dtype::FP8;
  k.m = 8000, k.n = 7168, k.k = 2048;
  k.flops = 2 * k.m * k.n * k.k;
  k.block_scaled = true;
  CHECK(triton.explain(k).compute_us == doctest::Approx(base.explain(k).compute_us / 0.551));
  CHECK(base.with_fp8_block_gemm(Fp8BlockGemm::Cublas).explain(k).compute_us ==
        doctest::Approx(base.explain(k).compute_us));
  k.block_scaled = false;
  CHECK(triton.explain(k).compute_us == doctest::Approx(base.explain(k).compute_us));
  k.block_scaled = true;
  k.math_dtype = Dtype::BF16;
  CHECK(triton.explain(k).compute_us == doctest::Approx(base.explain(k).compute_us));
  CHECK(parse_fp8_block_gemm("triton") == Fp8BlockGemm::Triton);
  CHECK_THROWS_AS(parse_fp8_block_gemm("deepgemm"), UnknownNameError);
  const std::string body = R"({"gpu": "G", "source": "s", "floor_us": 1,
    "reference_peaks": {"hbm_GBps": 1000, "bf16_TFLOPS": 100, "fp8_TFLOPS": 200},
    "tc_bf16": {"flops": [1, 2], "fraction": [0.5, 0.5]},
    "hbm_gemm": {"bytes": [1, 2], "fraction": [0.5, 0.5]},
    "hbm_stream": {"bytes": [1, 2], "fraction": [0.5, 0.5]}, "fp8_block_triton": {"ratio": 1.5}})";
  std::string msg;
  try {
    parse_calibration(body, "c.json");
  } catch (const InputError& e) {
    msg = e.what();
  }
  CHECK(msg.find("/fp8_block_triton/ratio") != std::string::npos);
}

TEST_CASE("fp8 block GEMMs, auto: fused-MoE experts at the Triton rate, dense GEMMs not") {
  const ComputeModel base = ComputeModel::for_gpu(Catalog::builtin().gpu("H200-SXM"));
  const ComputeModel cublas = base.with_fp8_block_gemm(Fp8BlockGemm::Cublas);
  const ComputeModel autom = base.with_fp8_block_gemm(Fp8BlockGemm::Auto);
  const ComputeModel triton = base.with_fp8_block_gemm(Fp8BlockGemm::Triton);
  KernelCost k;
  k.kind = KernelKind::GroupedGemm;
  k.math_dtype = Dtype::FP8;
  k.m = 256, k.n = 512, k.k = 7168, k.groups = 32;
  k.flops = 2 * k.m * k.n * k.k * k.groups;
  k.block_scaled = true;
  k.fused_moe = true;
  const double per_tensor = cublas.explain(k).compute_us;
  CHECK(autom.explain(k).compute_us == doctest::Approx(per_tensor / 0.551));
  CHECK(triton.explain(k).compute_us == doctest::Approx(per_tensor / 0.551));
  k.fused_moe = false;  // DeepEP-fed experts (DeepGEMM) and dense GEMMs
  CHECK(autom.explain(k).compute_us == doctest::Approx(per_tensor));
  CHECK(triton.explain(k).compute_us == doctest::Approx(per_tensor / 0.551));
  CHECK(parse_fp8_block_gemm("auto") == Fp8BlockGemm::Auto);
  CHECK(to_string(Fp8BlockGemm::Auto) == "auto");
}

TEST_CASE("prefill attention: measured curve times K / (K + k_half), decode on the GEMM curve") {
  const ComputeModel cm = ComputeModel::for_gpu(Catalog::builtin().gpu("H200-SXM"));
  const Calibration& cal = cm.calibration();
  REQUIRE(cal.attn_prefill_k_half > 0);
  KernelCost k;
  k.kind = KernelKind::Attention;
  k.math_dtype = Dtype::BF16;
  k.flops = 1.3e12;   // 16 heads, 1 x 16k causal MLA (attn-prefill-h200-2026-12-03.json)
  k.mean_keys = 1e9;  // K -> infinity: the curve itself
  const double ideal_us = k.flops / (cm.peak_TFLOPS(Dtype::BF16) * 1e6);
  const double at_inf = cm.explain(k).compute_us;
  CHECK(at_inf == doctest::Approx(ideal_us / cal.attn_prefill.at(ideal_us)).epsilon(1e-6));
  // K = k_half: half the rate, twice the time (identity of K / (K + k_half)).
  k.mean_keys = cal.attn_prefill_k_half;
  CHECK(cm.explain(k).compute_us == doctest::Approx(2 * at_inf).epsilon(1e-6));
  // More keys per query never take longer at equal flops.
  double last = 1e30;
  for (double K : {64.0, 256.0, 1024.0, 8192.0}) {
    k.mean_keys = K;
    CHECK(cm.explain(k).compute_us <= last);
    last = cm.explain(k).compute_us;
  }
  // The measured point itself: 16 heads, 1 x 16384 causal, cuDNN 624 TFLOPS (K = 8192.5).
  k.flops = 2.0 * 16 * 320 * (16384.0 * 16385 / 2);
  k.mean_keys = 8192.5;
  CHECK(k.flops / cm.explain(k).compute_us * 1e-6 == doctest::Approx(624.0).epsilon(0.02));
  // Decode attention (mean_keys 0) keeps the GEMM curve.
  k.mean_keys = 0;
  const double d_ideal = k.flops / (cm.peak_TFLOPS(Dtype::BF16) * 1e6);
  CHECK(cm.explain(k).compute_us == doctest::Approx(d_ideal / cal.tc_bf16.at(d_ideal)));
}
