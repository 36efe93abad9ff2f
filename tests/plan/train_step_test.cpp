// Step time of a training strategy: every term against its own hand derivation (kernel sums,
// collective volumes priced directly with the collective engine, schedule identities).
#include <doctest/doctest.h>

#include "model/tiny_models.hpp"
#include "plan/moe_traffic.hpp"
#include "plan/plan_test_util.hpp"
#include "plan/train_impl.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology.hpp"

using namespace topoplan;

namespace {

TrainRequest request(double seq, int gbs) {
  return test::train_request(seq, gbs);
}

std::vector<int> gpus(const test::Machine& mc, std::initializer_list<int> idx) {
  std::vector<int> g;
  for (int i : idx) g.push_back(mc.topology.gpus()[i]);
  return g;
}

}  // namespace

TEST_CASE("train step: measured backward factors, launch-bound passes, recompute adds forward") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(4096, 8);
  q.gpus = 8;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.dp = 8, .zero = 3, .micro_batch = 1};
  // By hand: price the layer's kernels at the training shape (prefill of 4,096 tokens); the
  // backward is 2.19x for GEMMs, 2.67x for attention, 2.54x for the rest (H200 profiles).
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 4096, .context = 0};
  double fwd = 0, bwd = 0, attn = 0;
  for (const KernelCost& k : layer_kernels(e.bf16, LayerType::Dense, w, Shard{})) {
    if (k.name == "kv_store") continue;  // serving's cache write; training keeps no KV cache
    double t = e.cm.kernel_time_us(k);
    fwd += t;
    bool gemm = k.kind == KernelKind::Gemm;
    bwd += t * (gemm ? 2.19 : k.kind == KernelKind::Attention ? 2.67 : 2.54);
    if (k.kind == KernelKind::Attention) attn += t;
  }
  train::PassTime p = e.pass(0, s);
  CHECK(p.fwd == doctest::Approx(fwd));
  CHECK(p.bwd == doctest::Approx(bwd));
  CHECK(p.attn_fwd == doctest::Approx(attn));
  // Whole step, pp 1, 1 micro-batch per replica of 32 layers: recompute adds each layer's
  // forward (full) or its attention forward (selective).
  s.recompute = Recompute::Full;
  TrainPlan full = e.evaluate(s);
  REQUIRE(full.fits);
  CHECK(full.breakdown.recompute_us == doctest::Approx(32 * p.fwd));
  s.recompute = Recompute::Selective;
  CHECK(e.evaluate(s).breakdown.recompute_us == doctest::Approx(32 * p.attn_fwd));
}

TEST_CASE("train step: a pass of short kernels lasts its eager launches") {
  // A tiny layer at 16 tokens: every kernel is far shorter than one eager launch (10.5 us on the
  // H200 host), so the forward lasts (kernels) launches and the backward (GEMMs and attention 2,
  // the rest 1 each) launches.
  test::Machine mc("hgx-h100-8");
  ModelSpec m = test::tiny_dense();
  TrainRequest q = request(16, 1);
  q.gpus = 1;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.micro_batch = 1};
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 16, .context = 0};
  double n_f = 0, n_b = 0, gpu = 0;
  for (const KernelCost& k : layer_kernels(e.bf16, LayerType::Dense, w, Shard{})) {
    if (k.name == "kv_store") continue;
    n_f += 1;
    bool two = k.kind == KernelKind::Gemm || k.kind == KernelKind::Attention;
    n_b += two ? 2 : 1;
    gpu += e.cm.kernel_time_us(k);
  }
  const double launch = e.cm.eager_launch_us();
  REQUIRE(gpu < n_f * launch);
  train::PassTime p = e.pass(0, s);
  CHECK(p.fwd == doctest::Approx(n_f * launch));
  CHECK(p.bwd == doctest::Approx(n_b * launch));
}

TEST_CASE("train step: TP all-reduces, or all-gathers + reduce-scatters with SP, per layer") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(2048, 4);
  CollectiveModel cm(*mc.router);
  auto tp2 = gpus(mc, {0, 1});
  const double bytes = 2048.0 * 4096 * 2;  // T x h x bf16 for one micro-batch of one sequence
  // No SP: 2 all-reduces forward + 2 backward per layer; 4 micro-batches x 32 layers.
  TrainStrategy s{.tp = 2, .zero = 0, .recompute = Recompute::Selective, .micro_batch = 1};
  TrainPlan p = evaluate_training(m, *mc.router, q, s);
  REQUIRE(p.fits);
  double ar = cm.cost(CollOp::AllReduce, tp2, bytes).time_us;
  CHECK(p.breakdown.tp_us == doctest::Approx(4 * 32 * 4 * ar));
  // SP: each all-reduce becomes an all-gather + a reduce-scatter of the full buffer.
  s.sp = true;
  p = evaluate_training(m, *mc.router, q, s);
  double ag = cm.cost(CollOp::AllGather, tp2, bytes).time_us;
  double rs = cm.cost(CollOp::ReduceScatter, tp2, bytes).time_us;
  CHECK(p.breakdown.tp_us == doctest::Approx(4 * 32 * 4 * (ag + rs)));
  // Full recompute repeats the forward's collectives: 3 passes instead of 2.
  s.recompute = Recompute::Full;
  p = evaluate_training(m, *mc.router, q, s);
  CHECK(p.breakdown.tp_us == doctest::Approx(4 * 32 * 6 * (ag + rs)));
}

// --calibration reaches training (issue 28: only serving read it): the TP all-reduces are
// priced with the calibrated constants, here 100 µs more latency for every algorithm and half
// the NVLS efficiency.
TEST_CASE("train step: a calibration's tuning prices the TP collectives") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(2048, 4);
  NcclTuning slow = NcclTuning::builtin();
  for (auto& algo : slow.base_latency_us)
    for (double& proto : algo) proto += 100;
  for (auto& hw : slow.hw_latency_us)
    for (auto& algo : hw)
      for (double& proto : algo) proto += 100;
  for (double& e : slow.nvls_efficiency) e *= 0.5;
  const TrainStrategy s{.tp = 8, .zero = 0, .recompute = Recompute::Selective, .micro_batch = 1};
  const TrainPlan plain = evaluate_training(m, *mc.router, q, s);
  q.comm_tuning = &slow;
  const TrainPlan tuned = evaluate_training(m, *mc.router, q, s);
  REQUIRE(plain.fits);
  const double bytes = 2048.0 * 4096 * 2;
  const auto tp8 = gpus(mc, {0, 1, 2, 3, 4, 5, 6, 7});
  const double ar = CollectiveModel(*mc.router, slow).cost(CollOp::AllReduce, tp8, bytes).time_us;
  CHECK(tuned.breakdown.tp_us == doctest::Approx(4 * 32 * 4 * ar));
  CHECK(tuned.breakdown.tp_us > plain.breakdown.tp_us);
}

TEST_CASE("train step: TP comm overlap hides nothing for a TP group across servers") {
  // TE userbuffers reach TP peers through CUDA multicast / IPC handles, inside one NVLink domain
  // only (NVIDIA/TransformerEngine issue #1071): TP8 on one H100 server hides up to 3x the
  // layer's GEMM forward; TP16 over two servers pays its collectives in full.
  // (Llama-3-8B: 32 layers, 32 heads, 8 KV heads, so TP16 divides.)
  test::Machine mc("hgx-h100-8", 2);
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(4096, 2);
  q.tp_comm_overlap = true;
  TrainStrategy s{.tp = 8, .sp = true, .zero = 1, .micro_batch = 1};
  q.gpus = 8;
  train::Evaluator in(m, *mc.router, q);
  CHECK(in.comm.in_one_server(1, 8));
  TrainPlan a = in.evaluate(s);
  REQUIRE(a.fits);
  CHECK(a.breakdown.tp_hidden_us > 0);
  // By hand: per layer and micro-batch, min(2 passes x 2 x (AG + RS), 3 x GEMM forward) hidden.
  train::PassTime p = in.pass(0, s);
  const double bytes = 4096.0 * m.hidden * 2;
  double tp_pass = 2 * (in.comm.cost(CollOp::AllGather, 1, 8, bytes) +
                        in.comm.cost(CollOp::ReduceScatter, 1, 8, bytes));
  double hidden = std::min(2 * tp_pass, 3 * p.gemm_fwd);
  CHECK(a.breakdown.tp_hidden_us ==
        doctest::Approx(2 * 32 * hidden));  // 2 micro-batches, 32 layers
  q.gpus = 16;
  s.tp = 16;
  train::Evaluator across(m, *mc.router, q);
  CHECK_FALSE(across.comm.in_one_server(1, 16));
  TrainPlan b = across.evaluate(s);
  REQUIRE(b.fits);
  CHECK(b.breakdown.tp_hidden_us == 0);
  CHECK(b.breakdown.tp_us > 0);
}

TEST_CASE("train step: CP ring attention, step by step") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");  // 8 KV heads of 128, 32 query heads
  TrainRequest q = request(8192, 4);
  q.gpus = 8;
  CollectiveModel cm(*mc.router);
  TrainStrategy s{.cp = 2, .dp = 4, .zero = 3, .micro_batch = 1};
  train::Evaluator e(m, *mc.router, q);
  TrainPlan p = e.evaluate(s);
  REQUIRE(p.fits);
  // One ring step: the local 4,096 queries against one 4,096-token K/V chunk's half, the pairs
  // of a causal 4,096-token prefill, plus the output correction (10 B per output element).
  Workload w{.phase = Phase::Prefill, .batch = 1, .new_tokens = 4096, .context = 0};
  double step_attn = 0;
  for (const KernelCost& k : layer_kernels(e.bf16, LayerType::Dense, w, Shard{}))
    if (k.kind == KernelKind::Attention) step_attn += e.cm.kernel_time_us(k);
  KernelCost merge{.name = "cp_out_correction", .kind = KernelKind::Elementwise};
  merge.bytes = 4096.0 * 32 * 128 * 10;
  const double step_merge = e.cm.kernel_time_us(merge);
  const train::PassTime t = e.pass(0, s);
  CHECK(t.ring_step_attn == doctest::Approx(step_attn));
  CHECK(t.ring_step_merge == doctest::Approx(step_merge));
  // The hop: 4,096 tokens x (K + V: 2 x 8 x 128) x 2 B = 16 MiB forward, twice backward, between
  // CP ranks 0 and 1 (stride (cp - 1) x tp = 1), every such pair of the server at once.
  const double chunk = 4096.0 * 2 * 8 * 128 * 2;
  std::vector<std::vector<int>> pairs;
  for (int i = 0; i + 1 < 8; ++i) pairs.push_back(gpus(mc, {i, i + 1}));
  auto slowest = [&](double bytes) {
    double x = 0;
    for (const auto& c : cm.cost_concurrent(CollOp::SendRecv, pairs, bytes))
      x = std::max(x, c.time_us);
    return x;
  };
  const double hop_f = slowest(chunk), hop_b = slowest(2 * chunk);
  // cp = 2: one overlapped step (max of kernels and hop) and the last step's kernels alone,
  // beyond the single attention kernel of the compute terms.
  const double sf = step_attn + step_merge, sb = 2.67 * step_attn + step_merge;
  const double exp_f = std::max(0.0, std::max(sf, hop_f) + sf - t.attn_fwd);
  const double exp_b = std::max(0.0, std::max(sb, hop_b) + sb - 2.67 * t.attn_fwd);
  const TrainBreakdown& b = p.breakdown;
  CHECK(b.cp_us == doctest::Approx(32 * (exp_f + exp_b)));
  CHECK(b.cp_hidden_us == doctest::Approx(32 * std::max(0.0, hop_f + hop_b - exp_f - exp_b)));
  // More CP ranks: more steps of smaller kernels; the ring costs more than one kernel.
  CHECK(b.cp_us > 0);
}

TEST_CASE("train step: DP gradient and parameter traffic per ZeRO stage") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = test::tiny_dense();  // 1,256 parameters, 2 layers
  TrainRequest q = request(16, 8);
  CollectiveModel cm(*mc.router);
  auto dp4 = gpus(mc, {0, 1, 2, 3});
  // Gradients reduced in fp32 (Megatron-LM's default for bf16 training, --grad-reduce unset),
  // parameters gathered in bf16.
  const double grads = 4 * 1256.0, params = 2 * 1256.0;
  double ar = cm.cost(CollOp::AllReduce, dp4, grads).time_us;
  double rs = cm.cost(CollOp::ReduceScatter, dp4, grads).time_us;
  double ag = cm.cost(CollOp::AllGather, dp4, params).time_us;
  auto dp_total = [&](int zero) {
    TrainPlan p = evaluate_training(m, *mc.router, q, TrainStrategy{.dp = 4, .zero = zero});
    return p.breakdown.dp_us + p.breakdown.dp_hidden_us;
  };
  CHECK(dp_total(0) == doctest::Approx(ar));           // one all-reduce of the gradients
  CHECK(dp_total(1) == doctest::Approx(rs + ag));      // distributed optimizer: RS + AG
  CHECK(dp_total(2) == doctest::Approx(2 * rs + ag));  // RS for each of the 2 micro-batches
  // ZeRO-3: per layer and micro-batch 2 gathers of the layer's share (2 B x 1256 / 2 layers)
  // and 1 reduce-scatter (4 B x 1256 / 2); the first gather is exposed on top.
  double ag_l = cm.cost(CollOp::AllGather, dp4, params / 2).time_us;
  double rs_l = cm.cost(CollOp::ReduceScatter, dp4, grads / 2).time_us;
  TrainPlan z3 = evaluate_training(m, *mc.router, q, TrainStrategy{.dp = 4, .zero = 3});
  const TrainBreakdown& b = z3.breakdown;
  CHECK(b.zero3_us + b.zero3_hidden_us == doctest::Approx(2 * 2 * 2 * ag_l + ag_l));
  CHECK(b.dp_us + b.dp_hidden_us == doctest::Approx(2 * 2 * rs_l));
  // --grad-reduce bf16 (the NeMo recipes): the gradient reductions move 2 B per parameter.
  q.grad_reduce = GradReduce::BF16;
  CHECK(dp_total(0) == doctest::Approx(cm.cost(CollOp::AllReduce, dp4, params).time_us));
  CHECK(dp_total(1) == doctest::Approx(cm.cost(CollOp::ReduceScatter, dp4, params).time_us + ag));
}

TEST_CASE("train step: a ZeRO-2 reduce-scatter hides behind the next micro-batch's compute") {
  // Llama 3 8B on 2 x 8 H100, dp 16, 4 micro-batches of 512 tokens: the fp32 reduce-scatter
  // of 8e9 parameters over the network takes longer than one micro-batch's backward.
  test::Machine mc("hgx-h100-8", 2);
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(512, 64);
  auto total = [&](const TrainPlan& p) { return p.breakdown.dp_us + p.breakdown.dp_hidden_us; };
  TrainPlan z1 = evaluate_training(m, *mc.router, q, TrainStrategy{.dp = 16, .zero = 1});
  TrainPlan z2 = evaluate_training(m, *mc.router, q, TrainStrategy{.dp = 16, .zero = 2});
  REQUIRE(z2.fits);
  const int mb = 4;
  const double L = 32;  // one layer's bucket of each collective stays exposed
  const double rs = (total(z2) - total(z1)) / (mb - 1), ag = total(z1) - rs;
  const double f = z2.breakdown.forward_us / mb, b = z2.breakdown.backward_us / mb;
  REQUIRE(rs * (1 - 1 / L) > b);  // the case where the window matters
  auto exposed = [&](double c, double window) { return c - std::min(c * (1 - 1 / L), window); };
  // The first three hide behind the next micro-batch's forward + backward, the last behind its
  // own backward, the parameter all-gather behind the next step's first forward.
  CHECK(z2.breakdown.dp_us ==
        doctest::Approx((mb - 1) * exposed(rs, f + b) + exposed(rs, b) + exposed(ag, f)));
  CHECK(z2.breakdown.dp_us < mb * exposed(rs, b) + exposed(ag, f));
}

TEST_CASE("train step: pipeline bubble, send/recv count and optimizer") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(2048, 16);
  TrainStrategy s{.pp = 4, .dp = 1, .zero = 0, .micro_batch = 1};
  TrainPlan p = evaluate_training(m, *mc.router, q, s);
  REQUIRE(p.fits);
  const TrainBreakdown& b = p.breakdown;
  // bubble = (pp − 1)/(vp·m) x m x t_mb, t_mb the critical stage's time per micro-batch.
  double t_mb = (b.compute_us() + b.tp_us + b.cp_us + b.ep_us) / 16;
  CHECK(b.bubble_us == doctest::Approx(3.0 / 16 * 16 * t_mb));
  // 1F1B: 2 (m + pp − 1) exposed transfers of T x h x 2 B between neighbouring stages.
  CollectiveModel cm(*mc.router);
  auto pair = gpus(mc, {0, 1});
  double t = cm.send_recv(pair[0], pair[1], 2048.0 * 4096 * 2).time_us;
  CHECK(b.pp_us == doctest::Approx(2 * (16 + 3) * t));
  s.vp = 2;
  TrainPlan v = evaluate_training(m, *mc.router, q, s);
  CHECK(v.breakdown.bubble_us < b.bubble_us);
  CHECK(v.breakdown.pp_us == doctest::Approx(2 * 3 * t));  // interleaved: overlap p2p
  CHECK(v.breakdown.pp_us + v.breakdown.pp_hidden_us == doctest::Approx(2 * 16 * 2 * t));
  // Optimizer: 36 B per local parameter (fused Adam 28 B + bf16 copy 6 B + grad-norm read 2 B)
  // at 0.67 of the H100's 3,350 GB/s = 2,244.5 GB/s = 2.2445e6 B/us.
  train::Evaluator e(m, *mc.router, [&] {
    TrainRequest r = q;
    r.gpus = 4;
    return r;
  }());
  auto [first, last] = e.stage_pair(s);
  double params = std::max(first.dense, last.dense);
  CHECK(b.optimizer_us == doctest::Approx(36 * params / 2.2445e6));
  CHECK(b.total_us ==
        doctest::Approx(b.compute_us() + b.tp_us + b.cp_us + b.ep_us + b.bubble_us + b.pp_us +
                        b.dp_us + b.zero3_us + b.optimizer_us + b.fp8_overhead_us));
}

TEST_CASE("model FLOPs: Megatron's formula reduces to 72BsLh²(1 + s/6h + V/12Lh) for GPT-3") {
  ModelSpec g = load_model("gpt3-175b");  // MHA, GELU 4h
  double B = 1536, s = 2048, L = g.layers, h = g.hidden, V = g.vocab;
  double korthikanti = 72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
  CHECK(training_model_flops(g, s, B) == doctest::Approx(korthikanti));
}

TEST_CASE("model FLOPs: the parameter count form (used for MLA) equals Megatron's for MHA") {
  // 6 FLOPs per active linear parameter per token + attention scores 12·L·s·q per token.
  ModelSpec l = load_model("llama-3-8b");
  ParamBreakdown act = count_params(l).active;
  double linear = act.sum() - act[Part::Norms] - act[Part::Router];
  double s = 8192, q = double(l.heads) * l.head_dim;
  double per_token = 6 * linear + 12 * l.layers * s * q;
  CHECK(training_model_flops(l, s, 1) == doctest::Approx(per_token * s));
  // DeepSeek-V3 (MLA, 37B active): about 6 x 37e9 FLOPs per token plus the scores.
  ModelSpec d = load_model("deepseek-v3");
  double f = training_model_flops(d, 4096, 1) / 4096;
  CHECK(f > 6 * 36e9);
  CHECK(f < 6 * 40e9 + 6.0 * 61 * 4096 * 128 * (192 + 128));
}

TEST_CASE("model FLOPs, causal: Megatron-Bridge 25.11's definition, by hand") {
  // Llama-3-8B at 8K: the score term is 12·L·s·q = 12 x 32 x 8192 x 4096 FLOPs per token, and a
  // query attends (s + 1)/2 keys on average under the causal mask.
  ModelSpec l = load_model("llama-3-8b");
  const double s = 8192, full = 12.0 * 32 * 8192 * 4096;
  CHECK(training_score_flops(l, s, 1) / s == doctest::Approx(full));
  CHECK(training_score_flops_causal(l, s, 1) / s == doctest::Approx(full * (s + 1) / 2 / s));
  // 57.9 → 51.5 GFLOP per token: what Megatron-Bridge 25.11's table implies for this model at
  // 8K (1,576 TFLOP/s at 30,624 tok/s per GPU on 8 B200: 51.46 GFLOP per token).
  const double causal = training_model_flops(l, s, 1) / s - full + full * (s + 1) / 2 / s;
  CHECK(causal / 1e9 == doctest::Approx(51.5).epsilon(0.003));
  // Sliding-window layers (gpt-oss: half of them, 128 tokens) count at most the window:
  // w(2s − w + 1)/(2s) keys on average.
  ModelSpec g = load_model("gpt-oss-120b");
  REQUIRE(g.sliding_window == 128);
  const double per_layer = training_score_flops(g, 4096, 1) / g.layers / 4096;  // s keys
  const double keys = (g.layers - g.sliding_layers) * (4096 + 1) / 2.0 +
                      g.sliding_layers * 128.0 * (2 * 4096 - 128 + 1) / (2 * 4096);
  CHECK(training_score_flops_causal(g, 4096, 1) / 4096 == doctest::Approx(per_layer / 4096 * keys));
}

TEST_CASE("train step: MoE token permutes of Megatron's alltoall dispatcher") {
  // tiny_moe: hidden 16, 4 experts, top 2. At ep 2 each GPU holds 2 experts, so besides the
  // permute it sorts the received chunks after the dispatch and back before the combine; each
  // moves rows = T x k bf16 rows in and out: T x k x h x 2 B x 2. Backward: the inverse
  // permutation, the same bytes once.
  test::Machine mc("hgx-h100-8");
  ModelSpec m = test::tiny_moe();
  TrainRequest q = request(64, 2);
  q.gpus = 2;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy one{.dp = 2, .micro_batch = 1}, two = one;
  two.ep = 2;
  const double bytes = 64.0 * m.moe.top_k * m.hidden * 2 * 2;
  KernelCost k{.name = "moe_permute", .kind = KernelKind::Elementwise};
  k.bytes = bytes;
  const double t = e.cm.kernel_time_us(k);
  // The MoE pass at ep 2 carries two more permutes than at ep 1 (every other kernel the same
  // shape per GPU: ep 2 x etp 1 / tp 1 = the same rows); each is launch-bound or t.
  const double launch = e.cm.eager_launch_us();
  const train::PassTime a = e.pass(1, one), b = e.pass(1, two);
  CHECK(t > 0);
  CHECK(b.fwd - a.fwd == doctest::Approx(2 * std::max(t, launch)).epsilon(0.05));
}

TEST_CASE("train step: --moe-dispatcher deepep prices DeepEP's deduplicated dispatch") {
  // tiny_moe (4 experts) on 2 x hgx-h100-8, ep 4: the EP term is 2 (dispatch + combine) x 2
  // passes (forward, backward) x the MoE layers x the DeepEP normal-mode all-to-all of each
  // rank's T tokens of h bf16 (deepep_normal_matrix), the EP groups of server 0 at once.
  test::Machine mc("hgx-h100-8", 2);
  ModelSpec m = test::tiny_moe();
  TrainRequest q = request(64, 16);
  q.deepep = true;
  CollectiveModel cm(*mc.router);
  TrainStrategy s{.dp = 16, .ep = 4, .zero = 1, .micro_batch = 1};
  s.recompute = Recompute::None;
  TrainPlan p = evaluate_training(m, *mc.router, q, s);
  REQUIRE(p.fits);
  // EP groups of 4 consecutive ranks (stride etp = 1): the four groups of server 0 at once.
  std::vector<std::vector<int>> groups;
  std::vector<TrafficMatrix> tm;
  for (int b = 0; b < 8; b += 4) {
    groups.push_back(gpus(mc, {b, b + 1, b + 2, b + 3}));
    tm.push_back(deepep_normal_matrix(mc.topology, groups.back(), 64, m.hidden * 2.0, m.moe));
  }
  double a2a = 0;
  for (const CollectiveCost& c : cm.all_to_all_concurrent(groups, tm))
    a2a = std::max(a2a, c.time_us);
  const int moe_layers = m.layers - m.moe.first_dense_layers;
  CHECK(p.breakdown.ep_us == doctest::Approx(moe_layers * 2 * 2 * a2a));
}

TEST_CASE("train step: overlapped DP collectives take their channels' SMs from compute") {
  // DDP (ZeRO-0, TP2 x DP4, full recompute to fit) on one hgx-h100-8: the gradient all-reduce
  // hides behind the backward; the engine runs it as NVLS, whose NCCL kernel holds
  // NVLS_NCHANNELS_SM90 = 16 CTAs (one SM each) of the H100's 132, so the compute beside it runs
  // on 116 and the step pays hidden time x 16 / 116 (held_sm_slowdown, measured 2026-12-06).
  test::Machine mc("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(4096, 8);
  q.gpus = 8;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.tp = 2, .dp = 4, .zero = 0, .micro_batch = 1};
  s.recompute = Recompute::Full;
  const TrainPlan p = e.evaluate(s);
  REQUIRE(p.fits);
  const double grads = 2 * e.stage_pair(s).first.dense;
  CHECK(e.gpu.sm_count == 132);
  CHECK(e.comm.ctas(CollOp::AllReduce, 2, 4, grads) == 16);
  CHECK(p.breakdown.dp_hidden_us > 0);
  CHECK(p.breakdown.comm_sm_us == doctest::Approx(p.breakdown.dp_hidden_us * 16 / 116.0));
  // A ring inside the server (the ZeRO-3 gathers of the 8 GPUs) holds NCCL's 24 runtime ring
  // channels on an HGX H100 (nccl_intra_ring_ctas: 6 graph channels at 60 GB/s, 12, 24).
  const double layer = 2 * e.stage_pair(s).first.dense / m.layers;
  CHECK(e.comm.ctas(CollOp::AllGather, 1, 8, layer) == 24);
}

TEST_CASE("train step: across servers the DP collective holds NCCL's runtime channels") {
  // FSDP-style ZeRO-3 of Llama-3-8B on 2 x hgx-h100-8 (dp 16, 8 NICs per server at 400G): the
  // engine's ring uses the 8 NICs (8 graph channels); NCCL runs twice that, 16 CTAs
  // (nccl_ring_ctas), so compute beside the hidden gathers and reduce-scatters runs on 116 SMs.
  test::Machine mc("hgx-h100-8", 2);
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(4096, 32);
  q.gpus = 16;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.tp = 1, .dp = 16, .zero = 3, .micro_batch = 1};
  s.recompute = Recompute::Full;
  const TrainPlan p = e.evaluate(s);
  REQUIRE(p.fits);
  const auto [first, last] = e.stage_pair(s);
  const int L = std::max(first.layers, last.layers);
  const double ag = 2 * first.dense / L, rs = 2 * first.dense / L;
  CHECK(e.comm.channels(CollOp::AllGather, 1, 16, ag) == 8);
  CHECK(e.comm.ctas(CollOp::AllGather, 1, 16, ag) == 16);
  CHECK(e.comm.ctas(CollOp::ReduceScatter, 1, 16, rs) == 16);
  const TrainBreakdown& b = p.breakdown;
  REQUIRE(b.zero3_hidden_us + b.dp_hidden_us > 0);
  CHECK(b.comm_sm_us == doctest::Approx((b.zero3_hidden_us + b.dp_hidden_us) * 16 / 116.0));
}

TEST_CASE("train step: DualPipe bubble, two parameter copies, EP all-to-all hidden on 20 SMs") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = load_model("llama-3-8b");
  TrainRequest q = request(4096, 16);
  q.gpus = 8;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.tp = 2, .pp = 4, .zero = 1, .micro_batch = 1};
  s.recompute = Recompute::Full;
  const TrainPlan one = e.evaluate(s);
  s.dualpipe = true;
  const TrainPlan two = e.evaluate(s);
  REQUIRE(one.fits);
  REQUIRE(two.fits);
  // Two copies of the stage's parameters: weights and gradients double, the optimizer does not.
  CHECK(two.memory.weights_bytes == doctest::Approx(2 * one.memory.weights_bytes));
  CHECK(two.memory.grads_bytes == doctest::Approx(2 * one.memory.grads_bytes));
  CHECK(two.memory.optimizer_bytes == doctest::Approx(one.memory.optimizer_bytes));
  // pp + 1 micro-batches in flight on the first stage (1F1B: pp), capped by m.
  CHECK(train_in_flight(s, 16) == doctest::Approx(5));
  CHECK(train_in_flight(s, 3) == doctest::Approx(3));
  TrainStrategy plain = s;
  plain.dualpipe = false;
  CHECK(train_in_flight(plain, 16) == doctest::Approx(4));
  // Bubble (pp/2 - 1)(F + 2B - 3W) against 1F1B's (pp - 1)(F + B + comm): far below at pp 4.
  CHECK(two.breakdown.bubble_us > 0);
  CHECK(two.breakdown.bubble_us < 0.5 * one.breakdown.bubble_us);
  // pp 2: (2/2 - 1) = 0, no bubble at all.
  s.pp = 2;
  CHECK(e.evaluate(s).breakdown.bubble_us == doctest::Approx(0));
}

TEST_CASE("train step: DualPipe hides the EP all-to-all and charges 20 of 132 SMs for it") {
  // The compute beside it keeps 112 SMs: it lasts 132/112 as long, 20/112 more.
  test::Machine mc("hgx-h100-8");
  ModelSpec m = test::tiny_moe();
  TrainRequest q = request(256, 8);
  q.gpus = 8;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.pp = 2, .dp = 4, .ep = 4, .zero = 1, .micro_batch = 1};
  const TrainPlan one = e.evaluate(s);
  s.dualpipe = true;
  const TrainPlan two = e.evaluate(s);
  REQUIRE(one.fits);
  REQUIRE(two.fits);
  const TrainBreakdown &a = one.breakdown, &b = two.breakdown;
  REQUIRE(a.ep_us > 0);
  const double window = b.forward_us + b.backward_us + b.recompute_us;
  const double hidden = std::min(a.ep_us, window);
  CHECK(b.ep_hidden_us == doctest::Approx(hidden));
  CHECK(b.ep_us == doctest::Approx(a.ep_us - hidden));
  CHECK(b.comm_sm_us - a.comm_sm_us == doctest::Approx(hidden * 20.0 / 112));
}

TEST_CASE("train step: DualPipe's EP SM share survives ZeRO-3's (the terms add)") {
  test::Machine mc("hgx-h100-8");
  ModelSpec m = test::tiny_moe();
  TrainRequest q = request(256, 8);
  q.gpus = 8;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.pp = 2, .dp = 4, .ep = 4, .zero = 3, .micro_batch = 1};
  const TrainPlan one = e.evaluate(s);
  s.dualpipe = true;
  const TrainPlan two = e.evaluate(s);
  REQUIRE(one.fits);
  REQUIRE(two.fits);
  const TrainBreakdown &a = one.breakdown, &b = two.breakdown;
  REQUIRE(a.ep_us > 0);
  const double hidden = std::min(a.ep_us, b.forward_us + b.backward_us + b.recompute_us);
  // ZeRO-3 traffic is the same in both; DualPipe adds its hidden all-to-all's 20 of 132 SMs
  // (the compute beside it 20/112 slower).
  CHECK(b.zero3_hidden_us == doctest::Approx(a.zero3_hidden_us));
  CHECK(b.comm_sm_us - a.comm_sm_us == doctest::Approx(hidden * 20.0 / 112));
}

TEST_CASE("train step: combined 1F1B (--ep-overlap) hides the paired micro-batches' all-to-all") {
  // tiny_moe on one hgx-h100-8, dp 8 ep 4, no PP, 64 sequences over dp 8 at mb 1: m = 8 micro-
  // batches. Combined 1F1B pairs the forward of micro-batch i + 1 with the backward of i: every
  // pass but the first forward and the last backward, (m - 1) / m = 7/8 of the all-to-all, hides
  // (the compute window is larger), on 20 of the H100's 132 SMs (the compute beside it 20/112
  // slower); 1/8 stays exposed.
  test::Machine mc("hgx-h100-8");
  ModelSpec m = test::tiny_moe();
  TrainRequest q = request(256, 64);
  q.gpus = 8;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.dp = 8, .ep = 4, .zero = 1, .micro_batch = 1};
  const TrainPlan one = e.evaluate(s);
  s.ep_overlap = true;
  const TrainPlan two = e.evaluate(s);
  REQUIRE(one.fits);
  REQUIRE(two.fits);
  REQUIRE(one.micro_batches == 8);
  const TrainBreakdown &a = one.breakdown, &b = two.breakdown;
  REQUIRE(a.ep_us > 0);
  REQUIRE(a.forward_us + a.backward_us > a.ep_us);
  CHECK(b.ep_hidden_us == doctest::Approx(a.ep_us * 7 / 8));
  CHECK(b.ep_us == doctest::Approx(a.ep_us / 8));
  CHECK(b.comm_sm_us - a.comm_sm_us == doctest::Approx(a.ep_us * 7 / 8 * 20.0 / 112));
  // One more micro-batch's activations in flight: the paired forward beside the backward.
  CHECK(train_in_flight(s, 8) == doctest::Approx(2));
  TrainStrategy plain = s;
  plain.ep_overlap = false;
  CHECK(train_in_flight(plain, 8) == doctest::Approx(1));
}

TEST_CASE("train step: combined 1F1B with interleaved PP leaves the warm-up chunks exposed") {
  // pp 2, vp 2, m = 64 / dp 4 = 16 micro-batches: 32 chunks per stage; the first stage's warm-up
  // is (pp - 1) x 2 + (vp - 1) x pp = 4 chunks, so 28/32 of the all-to-all hides.
  test::Machine mc("hgx-h100-8");
  ModelSpec m = test::tiny_moe();
  TrainRequest q = request(256, 64);
  q.gpus = 8;
  train::Evaluator e(m, *mc.router, q);
  TrainStrategy s{.pp = 2, .vp = 2, .dp = 4, .ep = 4, .zero = 1, .micro_batch = 1};
  const TrainPlan one = e.evaluate(s);
  s.ep_overlap = true;
  const TrainPlan two = e.evaluate(s);
  REQUIRE(one.fits);
  REQUIRE(two.fits);
  REQUIRE(one.micro_batches == 16);
  REQUIRE(one.breakdown.ep_us > 0);
  CHECK(two.breakdown.ep_hidden_us == doctest::Approx(one.breakdown.ep_us * 28 / 32));
  // Interleaved in-flight chunks pp + (pp - 1)/vp = 2.5 micro-batches, plus one chunk (1/vp).
  CHECK(train_in_flight(s, 16) == doctest::Approx(3));
}

TEST_CASE("train search: --ep-overlap enumerates no pp > 1 without vp, and refuses such pins") {
  test::Machine mc("hgx-h100-8", 2);
  ModelSpec m = test::tiny_moe();
  TrainRequest q = request(256, 64);
  q.ep_overlap = true;
  q.top = 1000;
  const TrainingResult r = plan_training(m, *mc.router, q);
  REQUIRE(!r.plans.empty());
  for (const TrainPlan& p : r.plans) {
    CHECK_FALSE((p.strategy.pp > 1 && p.strategy.vp == 1));
    CHECK(p.strategy.ep_overlap == (p.strategy.ep > 1));
  }
  q.pp = 2;
  q.vp = 1;
  CHECK_THROWS_AS(q.validate(m), FieldError);
  q.vp = 2;
  q.dualpipe = true;
  CHECK_THROWS_AS(q.validate(m), FieldError);
}

// FP8 training casts write the columnwise copy too (TE "Handling transposes"): a per-tensor cast
// of a 1,000 × 4,096 bf16 input reads 8.192 MB and writes 4.096 MB; on Hopper it writes another
// 4.096 MB (16.384 MB in all), on Blackwell nothing more. A block-scaled (MXFP8: 1 B scale per 32
// elements) cast writes 4.096 + 0.128 MB, and its columnwise copy the same again on either GPU.
// Kernels that are not casts keep their bytes.
TEST_CASE("add_columnwise_copies: FP8 training casts write both usages where the GPU needs two") {
  auto cast = [](double scale_bytes) {
    KernelCost k{.name = "mlp_in_quant", .kind = KernelKind::Elementwise};
    k.m = 1000, k.n = 4096;
    k.bytes = 1000 * 4096 * 3.0 + scale_bytes;
    return k;
  };
  KernelCost gemm{.name = "mlp_up_gate", .kind = KernelKind::Gemm};
  gemm.bytes = 1e6;
  GpuSpec hopper, blackwell;
  hopper.sm_version = 90;
  blackwell.sm_version = 100;
  std::vector<KernelCost> h{cast(0), gemm}, b{cast(0), gemm};
  train::add_columnwise_copies(h, hopper);
  train::add_columnwise_copies(b, blackwell);
  CHECK(h[0].bytes == doctest::Approx(16.384e6));
  CHECK(b[0].bytes == doctest::Approx(12.288e6));
  CHECK(h[1].bytes == 1e6);
  std::vector<KernelCost> mx{cast(128000)};
  train::add_columnwise_copies(mx, blackwell);
  CHECK(mx[0].bytes == doctest::Approx(8.192e6 + 2 * (4.096e6 + 0.128e6)));
}
