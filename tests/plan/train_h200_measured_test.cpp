// Training compute against what one H200 measured (docs/training.md, "H200 measurement"):
// tools/measure/probe_train_layer.py, three runs on 2026-12-03 (topologies/calibration/
// train-layer-h200-2026-12-03-{1,2,3}.json), PyTorch 2.11 eager bf16 (cuBLAS GEMMs, cuDNN SDPA
// flash attention), one sequence per micro-batch. Measured values are the median of the three
// runs. Nothing was fitted to these layers; the tolerances record the present error, so a change
// that moves a prediction out of them must say why.
#include <doctest/doctest.h>

#include "plan/plan_test_util.hpp"
#include "plan/train_impl.hpp"
#include "topoplan/train.hpp"

using namespace topoplan;

namespace {

std::string data(const std::string& file) {
  return std::string(TOPOPLAN_SOURCE_DIR) + "/tests/plan/data/" + file;
}

// Forward and backward compute of one micro-batch of `seq` tokens on a tp-way shard, bf16, no
// recompute: the breakdown's compute terms (the model's TP collectives are not in them).
TrainBreakdown one_step(const std::string& model, int tp, double seq,
                        const char* topology = "hgx-h200-8") {
  test::Machine mc(topology);
  TrainRequest q;
  q.seq = seq;
  q.global_batch = 1;
  q.gpus = tp;
  q.reserve_bytes = 0;
  TrainStrategy s{.tp = tp, .cp = 1, .pp = 1, .dp = 1, .zero = 0, .micro_batch = 1};
  s.recompute = Recompute::None;
  TrainPlan p = evaluate_training(load_model(data(model)), *mc.router, q, s);
  REQUIRE(p.fits);
  return p.breakdown;
}

// The probe's layer has no RoPE (tools/measure/probe_train_layer.py); the model runs one rope
// kernel per layer (2026-12-04), taken out here, forward and backward (2x), to compare like with
// like.
double rope_us(const std::string& model, int tp, double seq, const char* gpu = "H200-SXM") {
  const ModelSpec m = load_model(data(model));
  const Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = seq, .context = 0};
  const ComputeModel cm = ComputeModel::for_gpu(Catalog::builtin().gpu(gpu));
  double us = 0;
  for (const KernelCost& k : layer_kernels(m, LayerType::Dense, w, Shard{.tp = tp}))
    if (k.name == "rope") us += cm.kernel_time_us(k);
  return us * m.layers;
}

// The three Llama 3 layers of the probe (8B TP1, 70B TP4 and TP8 shards, 8,192 tokens): measured
// forward and forward+backward µs against the model's compute terms less the RoPE kernel the
// probe's layer lacks (forward 1x, backward kOtherBackward x).
struct LayerRow {
  const char* model;
  int tp;
  double fwd_us, fwd_bwd_us;
};

void check_layers(const LayerRow (&rows)[3], const char* topology, const char* gpu, double fwd_eps,
                  double fwd_bwd_eps) {
  for (const LayerRow& r : rows) {
    const TrainBreakdown b = one_step(r.model, r.tp, 8192, topology);
    const double rope = rope_us(r.model, r.tp, 8192, gpu);
    CAPTURE(r.model);
    CAPTURE(r.tp);
    CHECK(rope > 0);
    CHECK(b.forward_us - rope == doctest::Approx(r.fwd_us).epsilon(fwd_eps));
    const double rope_fwd_bwd = (1 + train::kOtherBackward) * rope;
    CHECK(b.compute_us() - rope_fwd_bwd == doctest::Approx(r.fwd_bwd_us).epsilon(fwd_bwd_eps));
  }
}

}  // namespace

TEST_CASE("H200 measured: Llama 3 decoder layers, forward within 6%, forward+backward within 7%") {
  // Measured median µs (runs 1/2/3): 8B TP1 fwd 6211/6440/6671, fwd+bwd 21532/21676/22015;
  // 70B TP4 shard 5553/5985/6071, 19462/19693/19899; 70B TP8 shard 3043/3081/3195,
  // 9766/10288/10133. The model: fwd +0.3% / +1.3% / +6.2%.
  // Backward factors measured on these layers' profiles (train_impl.hpp): fwd+bwd -2.2% /
  // +0.3% / +5.8% (before they were applied, 2x / 2.5x / 2x: -10.5% / -8.2% / -4.4%).
  const LayerRow rows[] = {{"probe-llama3-8b-layer.json", 1, 6440, 21676},
                           {"probe-llama3-70b-layer.json", 4, 5985, 19693},
                           {"probe-llama3-70b-layer.json", 8, 3081, 10133}};
  check_layers(rows, "hgx-h200-8", "H200-SXM", 0.06, 0.07);
}

TEST_CASE("H200 measured: a 1.14 B model's forward+backward within 25%, optimizer within 5%") {
  // 16 layers, hidden 2048, 4,096 tokens: measured fwd+bwd 62157/62519/63361 µs, the model
  // 47975 (-23%): small layers spend a larger share in PyTorch's unfused elementwise kernels
  // (residual adds, SiLU and product, norms, gradient concatenation: 233 µs of a layer's 1,088 µs
  // forward by the profiler against the model's 85 µs of fused kernels) and in attention (148 µs
  // against 100 µs). Megatron with Transformer Engine fuses most of those.
  const TrainBreakdown b = one_step("probe-small-16l.json", 1, 4096);
  CHECK(b.compute_us() == doctest::Approx(62519).epsilon(0.25));
  CHECK(b.compute_us() < 62519);
  // Optimizer, calibrated on this run (kOptimizerHbmFraction): Adam on fp32 9949 µs + bf16 copy
  // 2120 µs = 12069 µs measured for 34 of the model's 36 B/param; by hand 36 B x 1,140,918,272
  // params / (0.67 x 4.8e6 B/µs) = 12771 µs, and the measured 34 B part 12062 µs (-0.1%).
  CHECK(b.optimizer_us == doctest::Approx(36 * 1140918272.0 / (0.67 * 4.8e6)).epsilon(0.002));
  CHECK(b.optimizer_us * 34 / 36 == doctest::Approx(9949.2 + 2119.6).epsilon(0.05));
}

// The same probe on the lent H100 (2026-12-06, one run: topologies/calibration/
// train-layer-h100-2026-12-06.json, tools/measure/device/run_h100.sh), priced with the H100's own
// curves (h100-sxm.json). The layers ran within 5% of the H200's (8B fwd+bwd 21857 vs 22015 µs):
// the two GPUs share the GH100 die and clocks, so the H100's training optimism in the check
// points is not in the layer kernels.
TEST_CASE("H100 measured: Llama 3 decoder layers, forward within 9%, forward+backward within 10%") {
  // The model (H100 curves) against the H100: fwd +4.3% / +7.6% / +8.5%, fwd+bwd -0.1% / +4.4% /
  // +9.0% (8B TP1, 70B TP4, 70B TP8): slower than measured, never faster.
  const LayerRow rows[] = {{"probe-llama3-8b-layer.json", 1, 6370.8, 21857.0},
                           {"probe-llama3-70b-layer.json", 4, 5858.0, 19740.7},
                           {"probe-llama3-70b-layer.json", 8, 3204.2, 10497.6}};
  check_layers(rows, "hgx-h100-8", "H100-SXM", 0.09, 0.10);
}

TEST_CASE("H100 measured: the optimizer is 14% slower in the model than on the H100") {
  // Measured: fused AdamW on fp32 12455.6 µs + fp32 -> bf16 copy 2650.3 µs = 15105.9 µs for 34 B
  // of the model's 36 B/param (1,140,918,272 params): 2.57 TB/s, 0.77 of 3.35 TB/s. The model
  // keeps the H200's 0.67 of peak (kOptimizerHbmFraction): 34 B x 1,140,918,272 / (0.67 x
  // 3.35e6 B/µs) = 17283 µs, +14% against the H100. Recorded, not changed: one GPU each, and
  // the fraction differs by GPU (H200 0.67, H100 0.77), so a per-GPU optimizer rate wants more
  // than two points.
  const TrainBreakdown b = one_step("probe-small-16l.json", 1, 4096, "hgx-h100-8");
  CHECK(b.optimizer_us == doctest::Approx(36 * 1140918272.0 / (0.67 * 3.35e6)).epsilon(0.002));
  CHECK(b.optimizer_us * 34 / 36 == doctest::Approx(15105.9 * 1.144).epsilon(0.01));
}
