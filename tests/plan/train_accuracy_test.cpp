// Training predictions against published measurements (docs/training.md, "Accuracy"), each with
// its stated tolerance. Nothing in the model was fitted to these points; the tolerances record
// the present error, so a change that moves a prediction out of them must say why.
#include <doctest/doctest.h>

#include "plan/plan_test_util.hpp"
#include "topoplan/train.hpp"

using namespace topoplan;

namespace {

TrainPlan best(const std::string& model, const std::string& server, int nodes, TrainRequest q) {
  test::Machine mc(server, nodes);
  TrainingResult r = plan_training(load_model(model), *mc.router, q);
  REQUIRE(r.plans.front().fits);
  return r.plans.front();
}

std::string data(const std::string& file) {
  return std::string(TOPOPLAN_SOURCE_DIR) + "/tests/plan/data/" + file;
}

}  // namespace

TEST_CASE("accuracy: Megatron-LM on DGX A100 (Narayanan et al. 2021, Table 1), within 10%") {
  // Conditions: seq 2048, vocab 51,200, fp16 mixed precision (peak 312 as bf16), full activation
  // recompute, no distributed optimizer (ZeRO 0), unfused attention with dropout (2021), 8 x
  // 200G HDR per server. Published TFLOP/s count the recomputed forward (96BsLh² formula), so
  // the comparison is against hw_tflops_per_gpu.
  struct Row {
    const char* file;
    int tp, nodes, batch;
    double published;
  } rows[] = {{"megatron-gpt-1.7b.json", 1, 4, 512, 137},
              {"megatron-gpt-3.6b.json", 2, 8, 512, 138},
              {"megatron-gpt-7.5b.json", 4, 16, 512, 142},
              {"megatron-gpt-18.4b.json", 8, 32, 1024, 135}};
  for (const Row& r : rows) {
    TrainRequest q;
    q.seq = 2048;
    q.global_batch = r.batch;
    q.tp = r.tp, q.pp = 1, q.cp = 1, q.zero = 0;
    q.recompute = Recompute::Full;
    q.precision = TrainPrecision::BF16;
    q.flash_attention = false;
    q.dropout = true;
    TrainPlan p = best(data(r.file), "dgx-a100-8", r.nodes, q);
    CAPTURE(r.file);
    CHECK(p.hw_tflops_per_gpu == doctest::Approx(r.published).epsilon(0.10));
  }
}

TEST_CASE("accuracy: Llama 3 405B on 16,384 / 8,192 H100 (Llama 3 paper, Table 4), within 20%") {
  // TP8 CP1 PP16, DP 128 / 64, seq 8192, 16M tokens per batch (2,048 sequences), BF16; the
  // recompute, ZeRO stage and virtual stages are searched (the paper does not give them).
  // Published: 400 TFLOPs/GPU (16K GPUs), 430 (8K GPUs).
  TrainRequest q;
  q.seq = 8192;
  q.global_batch = 2048;
  q.tp = 8, q.pp = 16, q.cp = 1;
  q.precision = TrainPrecision::BF16;
  CHECK(best("llama-3.1-405b", "hgx-h100-8", 2048, q).tflops_per_gpu ==
        doctest::Approx(400).epsilon(0.20));
  CHECK(best("llama-3.1-405b", "hgx-h100-8", 1024, q).tflops_per_gpu ==
        doctest::Approx(430).epsilon(0.20));
}

TEST_CASE("accuracy: Megatron-Bridge 25.11 / 25.09 on DGX H100 (FP8), within 40%") {
  // NVIDIA Megatron-Bridge performance summary, DGX-H100 tables: model TFLOP/s/GPU.
  // Llama-3-8B: 8 GPUs, GBS 128, MBS 1, seq 8192, FSDP (ZeRO-3), FP8-CS: 744.
  // Llama-3-70B: 64 GPUs, GBS 128, MBS 1, TP4 PP8 VP5, DDP + distributed optimizer, FP8-CS: 719.
  // The 8B row is the worst of the table (+37%, docs/training.md discusses it).
  TrainRequest q;
  q.seq = 8192;
  q.global_batch = 128;
  q.micro_batch = 1;
  q.precision = TrainPrecision::FP8;
  q.tp = 1, q.pp = 1, q.cp = 1, q.zero = 3;
  CHECK(best("llama-3-8b", "hgx-h100-8", 1, q).tflops_per_gpu ==
        doctest::Approx(744).epsilon(0.40));
  q.tp = 4, q.pp = 8, q.vp = 5, q.zero = 1;
  CHECK(best("llama-3-70b", "hgx-h100-8", 8, q).tflops_per_gpu ==
        doctest::Approx(719).epsilon(0.40));
}
