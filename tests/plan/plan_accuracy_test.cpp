// Published measurements the planner must stay close to (docs/planner.md, "Accuracy"). The
// tolerances state how far the model is trusted; nothing in the model was fitted to them.
#include <doctest/doctest.h>
#include <cmath>

#include "plan/plan_test_util.hpp"

using namespace topoplan;
using topoplan::test::Machine;
using topoplan::test::strat;

namespace {

// The request every case below starts from: a mode and the tokens in and out per request.
PlanRequest request(PlanMode mode, double prompt, double output) {
  PlanRequest r;
  r.mode = mode;
  r.prompt = prompt;
  r.output = output;
  return r;
}

PlanResult pinned(const std::string& model, const Machine& m, int gpus, const Strategy& s,
                  PlanMode mode, double batch, double prompt, double output) {
  PlanRequest r = request(mode, prompt, output);
  r.gpus = gpus;
  return Planner(load_model(model), *m.router, r).evaluate(s, batch);
}

// A benchmark that sends `requests` at once (vllm bench serve without a rate) and what it
// measured: total tok/s, mean TPOT (ms), mean TTFT (s; 0: not used).
struct BurstPoint {
  double prompt, output, requests, total, tpot_ms, ttft_s;
};

// gpustack docs performance-lab/deepseek-r1/h200.md, SGLang 0.5.3 `--tp 8 --enable-dp-attention`
// (dp_size 1: TP8, EP1) on 8×H200, random 4k/200, 2k/100, 32k/100.
constexpr BurstPoint kGpustackR1[] = {{4000, 200, 500, 16096.80, 107.91, 62.81},
                                      {2000, 100, 500, 19024.33, 154.49, 27.25},
                                      {32000, 100, 100, 16091.68, 198.62, 98.13}};

// The burst schedule of `pt` on TP8 (EP1, no attention DP); `steady` receives the plan itself.
BurstResult tp8_burst(const Machine& machine, const ModelSpec& m, const BurstPoint& pt,
                      Fp8BlockGemm block = Fp8BlockGemm::Cublas, PlanResult* steady = nullptr,
                      bool nvls = false) {
  PlanRequest r = request(PlanMode::Serve, pt.prompt, pt.output);
  r.nvls = nvls;  // SGLang (the gpustack R1 rows) runs NCCL without NVLS; vLLM leaves it on
  r.workload = PlanWorkload::Burst;
  r.requests = pt.requests;
  r.fp8_block_gemm = block;
  Planner planner(m, *machine.router, r);
  const PlanResult best = planner.evaluate(strat(8), 0);
  if (steady) *steady = best;
  const auto b = burst_workload(planner, best, r);
  REQUIRE(b.has_value());
  return *b;
}

}  // namespace

TEST_CASE("batch-1 decode of dense models on A100 (gpt-fast README), within 15%") {
  // pytorch-labs/gpt-fast README: 8xA100-80GB power-limited to 330 W, batch 1, 5-token prompt.
  Machine a100("dgx-a100-8");
  auto tps = [&](const char* model, int tp) {
    return pinned(model, a100, tp, strat(tp), PlanMode::Decode, 1, 5, 200).tokens_per_s;
  };
  CHECK(tps("llama-2-7b", 1) == doctest::Approx(104.9).epsilon(0.15));
  CHECK(tps("llama-2-7b", 8) == doctest::Approx(328.43).epsilon(0.15));
  CHECK(tps("llama-2-70b", 2) == doctest::Approx(21.32).epsilon(0.15));
  CHECK(tps("llama-2-70b", 4) == doctest::Approx(38.01).epsilon(0.15));
  CHECK(tps("llama-2-70b", 8) == doctest::Approx(62.50).epsilon(0.15));
}

TEST_CASE("long-prompt TTFT on A100 (TensorRT-LLM v0.5 performance.md), within 15%") {
  // LLaMA-70B fp16 TP4 and LLaMA-7B fp16 TP1, batch 1, 2048 input tokens: 377 ms and 133 ms.
  // (128-token TTFTs, 47 and 16 ms, are ~30% above the model: engine fixed costs, not checked.)
  Machine a100("dgx-a100-8");
  CHECK(pinned("llama-2-70b", a100, 4, strat(4), PlanMode::Prefill, 1, 2048, 1).ttft_ms ==
        doctest::Approx(377).epsilon(0.15));
  CHECK(pinned("llama-2-7b", a100, 1, strat(1), PlanMode::Prefill, 1, 2048, 1).ttft_ms ==
        doctest::Approx(133).epsilon(0.15));
}

TEST_CASE("DeepSeek-R1 serving on 8xH200, TP8 (InferenceX sweep), within 25%") {
  // SemiAnalysisAI/InferenceX issue #870: SGLang v0.5.7, FP8, TP8 EP1, ISL 1024 / OSL 1024.
  // Mean TPOT 12.8 / 25.6 ms and output tokens/s per GPU 74.6 / 151.1 at concurrency 8 / 32.
  Machine h200("hgx-h200-8");
  PlanResult c8 = pinned("deepseek-r1", h200, 8, strat(8), PlanMode::Serve, 8, 1024, 1024);
  PlanResult c32 = pinned("deepseek-r1", h200, 8, strat(8), PlanMode::Serve, 32, 1024, 1024);
  CHECK(c8.tpot_ms == doctest::Approx(12.8).epsilon(0.25));
  CHECK(c32.tpot_ms == doctest::Approx(25.6).epsilon(0.25));
  CHECK(c8.tokens_per_s_per_gpu == doctest::Approx(74.6).epsilon(0.25));
  CHECK(c32.tokens_per_s_per_gpu == doctest::Approx(151.1).epsilon(0.25));
}

TEST_CASE("DeepSeek-R1 TP8 on 8xH200 (InferenceX), closed loop: all four points within 25%") {
  // Same sweep as above, concurrency 8 / 16 / 32 / 64 (mean TPOT ms, output tok/s per GPU).
  // bench_serving keeps `c` requests in flight (--max-concurrency, 10 c prompts): once lengths
  // spread the requests out, each new 1k prompt is prefilled alone and stalls the others'
  // decode (closed_loop.hpp). The steady cycle prefills the same prompts packed into 8k chunks
  // and reports the bare step as TPOT: c64 was +27% on tokens/s/GPU. Hand check at c64: step
  // 26.24 ms, one-prompt prefill 50.7 ms: TPOT 26.24 × 1023/1023 + 63 × 50.7 / 1023 = 29.4 ms
  // (−15%); tokens/s/GPU 64 × 1024 / (64 × 0.0507 + 1023 × 0.02624) / 8 = 272 (+22%).
  struct Point {
    double c, tpot_ms, per_gpu;
  };
  const Point points[] = {{8, 12.8, 74.6}, {16, 17.2, 111.9}, {32, 25.6, 151.1}, {64, 34.6, 223.6}};
  Machine h200("hgx-h200-8");
  const ModelSpec m = load_model("deepseek-r1");
  PlanRequest r = request(PlanMode::Serve, 1024, 1024);
  Planner planner(m, *h200.router, r);
  for (const Point& pt : points) {
    CAPTURE(pt.c);
    const PlanResult p = planner.evaluate(strat(8), pt.c);
    const auto cl = closed_loop_workload(planner, p, r);
    REQUIRE(cl.has_value());
    CHECK(cl->mean_tpot_ms == doctest::Approx(pt.tpot_ms).epsilon(0.25));
    CHECK(cl->output_tokens_per_s / 8 == doctest::Approx(pt.per_gpu).epsilon(0.25));
    // The mechanism moves both figures towards the measurement.
    CHECK(cl->mean_tpot_ms > p.tpot_ms);
    CHECK(cl->output_tokens_per_s / 8 < p.tokens_per_s_per_gpu);
  }
}

TEST_CASE("DeepSeek prefill with EP32 across 4 H100 servers (LMSYS 2025-05-05), within 25%") {
  // LMSYS blog "Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on
  // 96 H100 GPUs": prefill servers of 4 nodes × 8 H100 (EP32, DP attention, DeepEP normal
  // kernels, DeepGEMM), 2,000-token inputs: 52.3k input tokens/s per node. Two-batch overlap
  // and EPLB load balancing, both used there, are not modelled (they pull in opposite ways).
  Machine four("hgx-h100-8", 4);
  PlanRequest r = request(PlanMode::Prefill, 2000, 100);
  r.prefill_chunk = 65536;  // 2,048 tokens per attention-DP rank per forward pass
  PlanResult p =
      Planner(load_model("deepseek-r1"), *four.router, r).evaluate(strat(32, 1, 1, 32, true), 512);
  CHECK(p.tokens_per_s / 4 == doctest::Approx(52300).epsilon(0.25));
}

TEST_CASE("DeepSeek-R1 burst on 8xH200, SGLang TP8 (gpustack): optimistic, within 2.2x") {
  // gpustack docs performance-lab/deepseek-r1/h200.md, "very long request" scenario: SGLang 0.5.3
  // `--tp 8 --enable-dp-attention` without `--dp` (dp_size 1: attention and MoE run TP8),
  // 500 × (4000 in / 200 out): 16,097 total tokens/s. Priced as serve mode at the largest batch
  // that fits; total = output tokens/s × 4200 / 200: the steady serve cycle, as the point was
  // first priced (the burst tests below price the workload that ran). This pins the steady
  // cycle's error band (+54% in this build, default kernels), not a fit.
  Machine h200("hgx-h200-8");
  PlanRequest r = request(PlanMode::Serve, 4000, 200);
  PlanResult p = Planner(load_model("deepseek-r1"), *h200.router, r).evaluate(strat(8), 0);
  double total = p.tokens_per_s * 4200 / 200;
  CHECK(total > 16097);
  CHECK(total < 2.2 * 16097);
}

TEST_CASE("DeepSeek-R1 bursts on 8xH200, SGLang TP8 (gpustack): the burst schedule's TPOT") {
  // kGpustackR1 above: vllm bench serve sends every request at once.
  Machine h200("hgx-h200-8");
  const ModelSpec m = load_model("deepseek-r1");
  for (const BurstPoint& pt : kGpustackR1) {
    CAPTURE(pt.prompt);
    PlanResult best;
    const BurstResult b = tp8_burst(h200, m, pt, Fp8BlockGemm::Cublas, &best);
    // The stall mechanism: prefill of later prompts inside a request's decode brings the mean
    // TPOT from the bare step (38.7 ms at 4k) to within 40% of the measured one, always closer
    // than the bare step. The rest is prefill speed: the model prefills ≈ 2x faster than SGLang
    // did here (docs/planner.md, "Burst"), which also shortens the stalls.
    CHECK(std::abs(b.mean_tpot_ms - pt.tpot_ms) < std::abs(best.tpot_ms - pt.tpot_ms));
    CHECK(b.mean_tpot_ms == doctest::Approx(pt.tpot_ms).epsilon(0.40));
    // Throughput and TTFT keep the prefill error: pinned as a band, not fitted.
    CHECK(b.total_tokens_per_s > pt.total);
    CHECK(b.total_tokens_per_s < 2.2 * pt.total);
    CHECK(b.mean_ttft_ms * 1e-3 < pt.ttft_s);
    CHECK(b.mean_ttft_ms * 1e-3 > 0.4 * pt.ttft_s);
  }
}

TEST_CASE("DeepSeek-R1 bursts on 8xH200, default kernels (gpustack): a known +33% miss") {
  // The default (`auto`): what SGLang 0.5.x runs on sm90 at EP1 (Fp8MoEMethod.create_moe_runner:
  // DeepGEMM only with the DeepEP all-to-all, else the Triton fused MoE; dense block-FP8 linears
  // to DeepGEMM): the experts at the measured Triton rate (0.551), dense GEMMs as per-tensor FP8,
  // MLA prefill attention on its measured curve (attn-prefill-h200-2026-12-03.json), NCCL
  // without NVLS as SGLang sets it, and the kernels the whole-layer measurement found
  // (r1-layer-h200-2026-12-04: the fused MoE's padded rows, its own input quant, RoPE, k concat,
  // the KV store, the routed + shared add; 2026-12-04). This build: total +33 / +31 / +16%, mean
  // TPOT −11 / −12 / −9%. 4k and 2k are not within 25% on throughput with `auto`: pinned, not
  // loosened (DeepGEMM, which `auto` prices at the per-tensor rate, was not measured).
  Machine h200("hgx-h200-8");
  const ModelSpec m = load_model("deepseek-r1");
  for (const BurstPoint& pt : kGpustackR1) {
    CAPTURE(pt.prompt);
    const BurstResult a = tp8_burst(h200, m, pt, Fp8BlockGemm::Auto);
    const BurstResult c = tp8_burst(h200, m, pt, Fp8BlockGemm::Cublas);
    const BurstResult t = tp8_burst(h200, m, pt, Fp8BlockGemm::Triton);
    CHECK(a.mean_tpot_ms == doctest::Approx(pt.tpot_ms).epsilon(0.25));
    CHECK(a.total_tokens_per_s > pt.total);
    CHECK(a.total_tokens_per_s < 1.36 * pt.total);
    // --fp8-block-gemm triton (every block-FP8 GEMM at 0.551 of the per-tensor rate, measured,
    // r1-prefill-h200-2026-12-03.json): total +23/+19/+7%, mean TPOT −5/−5/−2%: within 25%.
    CHECK(t.mean_tpot_ms == doctest::Approx(pt.tpot_ms).epsilon(0.25));
    CHECK(t.total_tokens_per_s > pt.total);
    CHECK(t.total_tokens_per_s == doctest::Approx(pt.total).epsilon(0.25));
    // Auto lies between all-per-tensor and all-Triton: only the experts change kernel.
    CHECK(a.total_tokens_per_s < c.total_tokens_per_s);
    CHECK(a.total_tokens_per_s > t.total_tokens_per_s);
  }
}

TEST_CASE("Qwen3-235B-A22B bf16 bursts on 8xH100, vLLM TP8 (gpustack): throughput within 35%") {
  // gpustack docs performance-lab/qwen3-235b-a22b/h100.md, baseline `vllm serve
  // Qwen/Qwen3-235B-A22B-Instruct-2507 -tp 8` (v0.11.0, bf16), vllm bench serve with every
  // request at once: total tok/s at 4k, 2k, 32k. Held out from the R1 points above: same
  // benchmark, a GQA bf16 MoE, no FP8 block scales, no MLA. vLLM's scheduler mixes prefill
  // chunks into decode steps instead of stalling decode, so only the throughput (the same work
  // in both schedules) is checked, not the TPOT split (TPOT and TTFT left 0).
  const BurstPoint points[] = {{4000, 200, 500, 21113.53, 0, 0},
                               {2000, 100, 500, 23858.69, 0, 0},
                               {32000, 100, 100, 22657.51, 0, 0}};
  Machine h100("hgx-h100-8");
  const ModelSpec m = load_model("qwen3-235b-a22b");
  for (const BurstPoint& pt : points) {
    CAPTURE(pt.prompt);
    // This build, NCCL with NVLS (vLLM leaves NCCL's default): +14% / +31% / +20%
    // (docs/planner.md, "Accuracy").
    CHECK(tp8_burst(h100, m, pt, Fp8BlockGemm::Cublas, nullptr, true).total_tokens_per_s ==
          doctest::Approx(pt.total).epsilon(0.35));
  }
}

TEST_CASE("DeepSeek-R1 batch 1, TP16 over 2x8 H100 (tt-inference-server #356): eager within 25%") {
  // SGLang, concurrency 1, 128/128 tokens: TPOT 23.1 ms; the report gives no launch flags.
  // With CUDA graphs the model is 2.2x optimistic (10.4 ms): it is checked below that this gap is
  // what eager launches explain. Graphs off: 1,449 kernels per step mostly shorter than the
  // 10.5 µs eager launch (h200-sxm.json eager_launch_us) → 19.1 ms, −17%. Tolerance 25%, the
  // DeepSeek serving tolerance above; the residual is unmodelled host work (scheduler, sampler).
  Machine two("hgx-h100-8", 2);
  PlanRequest r = request(PlanMode::Decode, 128, 128);
  r.cuda_graphs = false;
  Strategy tp16 = strat(16);
  ModelSpec m = load_model("deepseek-r1");
  double eager = Planner(m, *two.router, r).evaluate(tp16, 1).tpot_ms;
  r.cuda_graphs = true;
  double graphs = Planner(m, *two.router, r).evaluate(tp16, 1).tpot_ms;
  CHECK(eager == doctest::Approx(23.1).epsilon(0.25));
  // The known gap with graphs on: 7.7 ms (−67%) before the measured graph gap, small-kernel
  // duration and the top-k / moe_align / second absorbed bmm kernels (2026-12-05), 10.4 ms
  // (−55%) with them; the rest is what the graph run does not show (docs/planner.md).
  CHECK(graphs < 0.5 * 23.1);
  CHECK(graphs > 0.4 * 23.1);
}

TEST_CASE("DeepSeek-R1 on 8xH200, attention DP + EP8 at 1,024 in flight (TensorRT-LLM): +25%") {
  // NVIDIA/TensorRT-LLM docs/source/blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md,
  // "H200 max-throughput": trtllm-bench --tp 8 --ep 8, attention DP, MTP off, max_batch_size 128
  // per rank, concurrency 1,024, 5,120 requests of 1,024 in / 2,048 out: 11,489.27 output tok/s
  // (1,436.16 per GPU). Priced as the steady serve cycle at batch 1,024. Before the staggered
  // prefills of attention DP (2026-12-04) the model said 2,815 per GPU (+96%); now 1,941 (+35%):
  // not within 25%. TensorRT-LLM moves the MoE tokens by all-gather + reduce-scatter at EP8 with
  // top-8 (its all-to-all is off for moe_ep_size <= top_k; MoeComm::AllGather): 1,930 -> 1,801
  // (+25.4%), pinned as a band. Left: the expert GEMMs at 32 rows per expert measure 1.09-1.13x
  // the model (Triton and DeepGEMM masked, moe-ep-h200 and deepgemm-h200-2026-12-04), which would
  // pull it under 25%, and TensorRT-LLM mixes a rank's prompt into its decode iteration (the
  // model's separate prefill pass repeats those weight reads: pessimistic).
  Machine h200("hgx-h200-8");
  PlanRequest r = request(PlanMode::Serve, 1024, 2048);
  r.nvls = true;  // TensorRT-LLM does not turn NCCL's NVLS off
  r.moe_comm = MoeComm::AllGather;
  const PlanResult p =
      Planner(load_model("deepseek-r1"), *h200.router, r).evaluate(strat(8, 1, 1, 8, true), 1024);
  REQUIRE(p.fits);
  CHECK(p.tokens_per_s_per_gpu > 1436.16);
  CHECK(p.tokens_per_s_per_gpu < 1.27 * 1436.16);
}
