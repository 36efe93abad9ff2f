// Training memory per GPU, derived by hand on tiny_dense (h 8, 2 layers, vocab 16, 2 heads,
// 1 KV head, head_dim 4, SwiGLU 12; 1,256 parameters: 2 x 496 per layer + embedding 128 +
// LM head 128 + final norm 8).
#include <doctest/doctest.h>

#include "model/tiny_models.hpp"
#include "topoplan/error.hpp"
#include "topoplan/train.hpp"

using namespace topoplan;

namespace {

constexpr double kNccl = 4.0 * 1048576 * 32 * 2;  // one communicator's NCCL buffers

TrainRequest tiny_request() {
  TrainRequest q;
  q.seq = 4;
  q.global_batch = 8;
  q.reserve_bytes = 0;
  return q;
}

TrainStrategy dp4(int zero) {
  return TrainStrategy{.dp = 4, .zero = zero, .micro_batch = 1};
}

}  // namespace

TEST_CASE("train memory: activations of one layer, by hand") {
  ModelSpec m = test::tiny_dense();
  TrainStrategy s = dp4(0);
  // T = 4 tokens. Replicated: 2 norm inputs + QKV input + MLP input = 8h x T = 256.
  // TP-split: Q 8 + K 4 + V 4 + o_proj input 8 = 24 elements x 2 B x T = 192.
  // Flash attention keeps fp32 log-sum-exp: 4 B x 2 heads x T = 32.
  // SwiGLU: gate/up 24 + fc2 input 12 = 36 x 2 B x T = 288.  Total 768.
  CHECK(train_activation_bytes_per_layer(m, s, 4, true) == 768);
  // Unfused attention stores the softmax output 2as²b: 2 x 2 x 4 x 4 = 64 instead of 32.
  CHECK(train_activation_bytes_per_layer(m, s, 4, false) == 768 - 32 + 64);
  // With dropout: + 2h x T masks (64) and the quadratic term becomes 5as²b = 160.
  CHECK(train_activation_bytes_per_layer(m, s, 4, false, true) == 768 - 32 + 64 + 160);
  // Selective recompute drops the quadratic term.
  s.recompute = Recompute::Selective;
  CHECK(train_activation_bytes_per_layer(m, s, 4, false) == 768 - 32);
  // Full recompute keeps the layer input 2Th = 64.
  s.recompute = Recompute::Full;
  CHECK(train_activation_bytes_per_layer(m, s, 4, true) == 64);
  // tp 2: split parts halve (192/2, 32/2, 288/2 -> 96 + 16 + 144), replicated 256 stays;
  // with SP the replicated part halves too.
  TrainStrategy t{.tp = 2, .micro_batch = 1};
  CHECK(train_activation_bytes_per_layer(m, t, 4, true) == 256 + 96 + 16 + 144);
  t.sp = true;
  CHECK(train_activation_bytes_per_layer(m, t, 4, true) == 128 + 96 + 16 + 144);
  // cp 2 halves the tokens of every term.
  TrainStrategy c{.cp = 2, .micro_batch = 1};
  CHECK(train_activation_bytes_per_layer(m, c, 4, true) == 384);
}

TEST_CASE("train memory: one strategy per ZeRO stage, by hand") {
  ModelSpec m = test::tiny_dense();
  TrainRequest q = tiny_request();
  q.grad_reduce = GradReduce::BF16;  // the NeMo recipes' 2 B gradients; fp32 below
  // Activations: 2 layers x 768 x 1 micro-batch in flight + fp32 logits 4 x T 4 x vocab 16 = 256.
  const double act = 2 * 768 + 256;
  // ZeRO-0: bf16 weights 2 x 1256, grads 2 x 1256, Adam 12 x 1256; one communicator (dp).
  TrainMemory z0 = train_memory(m, dp4(0), q, 1e12);
  CHECK(z0.weights_bytes == 2512);
  CHECK(z0.grads_bytes == 2512);
  CHECK(z0.optimizer_bytes == 15072);
  CHECK(z0.activations_bytes == act);
  CHECK(z0.buffers_bytes == kNccl);
  CHECK(z0.total() == 2512 + 2512 + 15072 + act + kNccl);
  // ZeRO-1: Adam states / 4 = 3768.
  TrainMemory z1 = train_memory(m, dp4(1), q, 1e12);
  CHECK(z1.optimizer_bytes == 3768);
  CHECK(z1.grads_bytes == 2512);
  // ZeRO-2: + gradients / 4 = 628.
  TrainMemory z2 = train_memory(m, dp4(2), q, 1e12);
  CHECK(z2.grads_bytes == 628);
  CHECK(z2.weights_bytes == 2512);
  // ZeRO-3: + weights / 4 = 628, and two gathered layers (2 x 2 B x 496) in the buffers.
  TrainMemory z3 = train_memory(m, dp4(3), q, 1e12);
  CHECK(z3.weights_bytes == 628);
  CHECK(z3.buffers_bytes == kNccl + 1984);
  CHECK(z3.total() == 628 + 628 + 3768 + act + kNccl + 1984);
}

TEST_CASE("train memory: fp32 gradient buffers (Megatron-LM's and torchtitan's default)") {
  ModelSpec m = test::tiny_dense();
  TrainRequest q = tiny_request();  // engine megatron, --grad-reduce unset: fp32
  CHECK(grad_bytes_per_param(q) == 4);
  // 4 B x 1256 params: whole under ZeRO-0/1 (Megatron's distributed optimizer keeps the full
  // fp32 main_grad buffer: 6 + 12/d B per parameter with the 2 B weights), / 4 under ZeRO-2/3.
  CHECK(train_memory(m, dp4(0), q, 1e12).grads_bytes == 5024);
  TrainMemory z1 = train_memory(m, dp4(1), q, 1e12);
  CHECK(z1.grads_bytes == 5024);
  CHECK(z1.weights_bytes + z1.grads_bytes + z1.optimizer_bytes == (6 + 12.0 / 4) * 1256);
  CHECK(train_memory(m, dp4(2), q, 1e12).grads_bytes == 1256);
  CHECK(train_memory(m, dp4(3), q, 1e12).grads_bytes == 1256);
  // The engine decides when the flag does not: NeMo's performance recipes reduce in bf16.
  q.engine = "nemo";
  CHECK(grad_bytes_per_param(q) == 2);
  q.grad_reduce = GradReduce::FP32;
  CHECK(grad_bytes_per_param(q) == 4);
  CHECK(default_grad_reduce("torchtitan") == GradReduce::FP32);
  CHECK(parse_grad_reduce("bf16") == GradReduce::BF16);
  CHECK_THROWS_AS(parse_grad_reduce("fp16"), UnknownNameError);
}

TEST_CASE("train memory: torchtitan's FSDP2 holds the fp32 shard only") {
  ModelSpec m = test::tiny_dense();
  TrainRequest q = tiny_request();
  apply_train_engine(q, "torchtitan");  // ZeRO-3, fp32 gradients
  // fp32 shard (the optimizer's master, inside its 12 B) + Adam m, v + fp32 gradient shard:
  // (4 + 8 + 4) / 4 x 1256 = 5024; no bf16 shard (Megatron-FSDP's ZeRO-3 adds 2 / 4 x 1256).
  TrainMemory z3 = train_memory(m, dp4(3), q, 1e12);
  CHECK(z3.weights_bytes == 0);
  CHECK(z3.weights_bytes + z3.grads_bytes + z3.optimizer_bytes == 16.0 / 4 * 1256);
  q.engine = "megatron";
  CHECK(train_memory(m, dp4(3), q, 1e12).weights_bytes == 628);
  // Without resharding after forward (ZeRO-2) the bf16 parameters stay whole, as Megatron's.
  q.engine = "torchtitan";
  CHECK(train_memory(m, dp4(2), q, 1e12).weights_bytes == 2512);
}

TEST_CASE("train memory: FP8 weight copies and expert states over the expert-DP group") {
  ModelSpec m = test::tiny_dense();
  TrainRequest q = tiny_request();
  TrainStrategy s = dp4(1);
  s.precision = TrainPrecision::FP8;
  // Linear weights (attention 192 + MLP 288 per layer = 960) get FP8 copy + transpose: 2 B each.
  CHECK(train_memory(m, s, q, 1e12).weights_bytes == 2512 + 2 * 960);
  // tiny_moe: layer 1's 4 experts (3 x 8 x 6 = 144 each, 576) are the expert parameters. With
  // dp 4, ep 2, etp 1 the expert-data-parallel group is 4 / 2 = 2: each GPU holds 288 expert
  // parameters and their Adam states / 2 = 12 x 288 / 2; the dense rest / 4.
  ModelSpec moe = test::tiny_moe();
  TrainStrategy e{.dp = 4, .ep = 2, .zero = 1, .micro_batch = 1};
  TrainMemory em = train_memory(moe, e, q, 1e12);
  TrainStrategy e1{.dp = 4, .ep = 1, .zero = 1, .micro_batch = 1};
  TrainMemory em1 = train_memory(moe, e1, q, 1e12);
  // ep 1: expert states / 4 (576 x 12 / 4 = 1728); ep 2: 288 x 12 / 2 = 1728 as well: the
  // product ep x edp = dp keeps optimizer bytes, while weights halve (576 -> 288 x 2 B).
  CHECK(em1.optimizer_bytes - em.optimizer_bytes == doctest::Approx(0));
  CHECK(em1.weights_bytes - em.weights_bytes == 2 * 288);
}

TEST_CASE("pipeline: in-flight micro-batches and the bubble") {
  TrainStrategy s{.pp = 4, .dp = 1};
  CHECK(train_in_flight(s, 8) == 4);  // 1F1B: the first stage holds pp micro-batches
  CHECK(train_in_flight(s, 2) == 2);  // ... or all of them when fewer
  s.vp = 2;
  CHECK(train_in_flight(s, 8) == 4 + 3.0 / 2);  // interleaved: pp + (pp − 1)/vp
  CHECK(pipeline_bubble_fraction(4, 1, 8) == 3.0 / 8);
  CHECK(pipeline_bubble_fraction(4, 2, 8) == 3.0 / 16);
  CHECK(pipeline_bubble_fraction(1, 1, 8) == 0);
}

TEST_CASE("train memory: an overflow names the largest term and the excess") {
  ModelSpec m = test::tiny_dense();
  TrainMemory z0 = train_memory(m, dp4(0), tiny_request(), 1e8);
  std::string why = train_memory_problem(z0);
  CHECK(why.find("exceeds by 0.2 GiB") != std::string::npos);
  CHECK(why.find("largest term buffers") != std::string::npos);
  CHECK(train_memory_problem(train_memory(m, dp4(0), tiny_request(), 1e12)).empty());
}
