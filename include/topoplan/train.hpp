// Training planner (`topoplan plan --mode train`): enumerates Megatron-style parallel strategies
// (TP with/without sequence parallelism, PP with 1F1B or interleaved virtual stages, DP with
// ZeRO 0-3, context parallelism, expert parallelism with expert-TP, micro-batch size, activation
// recompute, BF16/FP8), checks memory per GPU, times a training step with the compute model
// (perf.hpp) and the collective engine (collective.hpp) on the actual placement, and ranks them.
// Formulas, overlaps, sources and accuracy: docs/training.md.
//
// Conventions: µs inside the breakdown, ms for the step, bytes per GPU (the most loaded GPU).
// A strategy that does not fit is a result with a reason, never an exception.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model.hpp"
#include "topoplan/placement.hpp"
#include "topoplan/route.hpp"

namespace topoplan {

// Gradient precision of the data-parallel reduction and the gradient buffer (--grad-reduce).
enum class GradReduce { BF16, FP32 };
std::string_view to_string(GradReduce g);
GradReduce parse_grad_reduce(std::string_view text);  // "bf16" | "fp32"; UnknownNameError
// The engine's own: BF16 for "nemo" (performance recipes), FP32 otherwise.
GradReduce default_grad_reduce(std::string_view engine);
struct TrainRequest;
// The request's gradient precision, else its engine's (the one place it is resolved).
GradReduce resolved_grad_reduce(const TrainRequest& q);
// Bytes per gradient element of resolved_grad_reduce: 2 (BF16) or 4 (FP32).
double grad_bytes_per_param(const TrainRequest& q);

enum class TrainPrecision { BF16, FP8 };
std::string_view to_string(TrainPrecision p);            // "bf16", "fp8"
TrainPrecision parse_train_precision(std::string_view);  // UnknownNameError otherwise
// The precision a model trains in when the user names none: FP8 when its GEMM weights are FP8
// (it was trained so) and the GPU has FP8 tensor cores, else BF16.
TrainPrecision default_train_precision(const ModelSpec& m, bool gpu_has_fp8);
std::string_view to_string(Recompute r);           // "none", "selective", "full"
Recompute parse_recompute(std::string_view text);  // UnknownNameError otherwise

// Megatron-Core's selective recompute modules (--recompute-granularity selective
// --recompute-modules ...; megatron/core/transformer/transformer_config.py, recompute_modules):
// a bit set. core_attn (the default, and what "selective" alone means) re-runs the attention
// kernel; layernorm, moe_act and mla_up_proj discard the outputs of the two pre-norms, the routed
// experts' activation function and MLA's up-projections + RoPE (output-discarding checkpoints);
// mlp, shared_experts and moe checkpoint the dense MLP, the shared experts and the whole MoE
// layer (its dispatch and combine all-to-all included), keeping only their inputs.
enum RecomputeModule : unsigned {
  kRcCoreAttn = 1u << 0,
  kRcLayernorm = 1u << 1,
  kRcMoeAct = 1u << 2,
  kRcMlaUpProj = 1u << 3,
  kRcMlp = 1u << 4,
  kRcSharedExperts = 1u << 5,
  kRcMoe = 1u << 6,
};
// "core_attn,layernorm" in the order above; UnknownNameError for an unknown module name,
// FieldError("recompute_modules") for an empty list.
unsigned parse_recompute_modules(std::string_view comma_separated);
std::vector<std::string> recompute_module_names(unsigned modules);

struct TrainRequest;
struct NcclTuning;
// --engine for training: megatron (Megatron-LM's defaults: no TP comm overlap) | nemo (NeMo /
// Megatron-Bridge recipes: TE userbuffers TP comm overlap with SP) | torchtitan (FSDP2, ZeRO-3
// unless --zero pins another). UnknownNameError otherwise.
void apply_train_engine(TrainRequest& q, const std::string& engine);

// One training strategy. Ranks are laid out tp (innermost), cp, dp, pp (outermost), Megatron-
// Core's default order tp-cp-ep-dp-pp; expert layers regroup the same ranks as etp, ep, edp.
struct TrainStrategy {
  int tp = 1, cp = 1, pp = 1, vp = 1, dp = 1;
  int ep = 1;       // experts split ep ways (MoE only)
  int etp = 1;      // each expert's columns split etp ways (1 or tp)
  bool sp = false;  // sequence parallelism (tp > 1 only)
  int zero = 1;     // 0 none, 1 optimizer states, 2 + gradients, 3 + parameters (over dp × cp)
  Recompute recompute = Recompute::None;
  // With recompute == Selective: the modules re-run (RecomputeModule bits); else unused.
  unsigned recompute_modules = kRcCoreAttn;
  int micro_batch = 1;  // sequences per micro-batch (b)
  TrainPrecision precision = TrainPrecision::BF16;
  // DeepSeek-V3's DualPipe schedule (pp even, vp 1; docs/training.md, "Pipeline schedules").
  bool dualpipe = false;
  // Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): the EP all-to-all of one
  // micro-batch runs behind the other micro-batch's compute (ep > 1; pp > 1 needs vp > 1).
  bool ep_overlap = false;
  int gpus() const { return tp * cp * pp * dp; }
};
// "tp8 sp cp1 pp16 vp2 dp128 zero1 rc:full mb1 bf16"; selective recompute of other modules
// than core_attn alone reads "rc:mla_up_proj+mlp".
std::string describe(const TrainStrategy& s);

struct TrainRequest {
  double seq = 8192;        // tokens per sequence (s)
  int global_batch = 2048;  // sequences per optimizer step (G)
  int gpus = 0;             // 0: every GPU of the topology (or the product of all pins)
  std::optional<int> tp, pp, vp, dp, cp, ep, zero, micro_batch;
  std::optional<Recompute> recompute;
  // --recompute-modules: pins selective recompute of these modules (RecomputeModule bits). Unset:
  // the search tries core_attn and, for MoE models, the module sets published MoE recipes use
  // (train_search.cpp); docs/training.md, "Recompute".
  std::optional<unsigned> recompute_modules;
  // --fp8-param-gather (Megatron-LM; TE FP8 parameters): FP8 strategies keep their linear
  // weights in FP8 only (no bf16 copy) and the data-parallel parameter all-gathers move 1 B per
  // linear-layer parameter. Needs a ZeRO stage >= 1 (Megatron: the distributed optimizer or
  // FSDP); a no-op for BF16 strategies.
  bool fp8_param_gather = false;
  // --grad-reduce: the precision of the gradient buffer and of its data-parallel reduction.
  // Unset: the engine's (default_grad_reduce). FP32 is Megatron-LM's for bf16 training
  // (arguments.py: "accumulate and all-reduce gradients in fp32 for bfloat16 data type", fp32
  // main_grad buffers unless --grad-reduce-in-bf16) and torchtitan's (FSDP2 reduce_dtype from
  // training.mixed_precision_reduce = float32); BF16 is what the NeMo / Megatron-Bridge
  // performance recipes set (grad_reduce_in_fp32 = False).
  std::optional<GradReduce> grad_reduce;
  // GEMM precision. Unset: the model's own (FP8 for a model whose weights are FP8, such as
  // DeepSeek-V3, on a GPU with FP8 tensor cores; else BF16), never chosen by the search unless
  // `search_precision` (`--precision auto`) asks for both.
  std::optional<TrainPrecision> precision;
  bool search_precision = false;
  std::optional<bool> sp;
  double train_tokens = 0;  // > 0: report days_to_train
  int top = 5;              // plans returned in full
  // Called after each fully evaluated strategy with (done, to evaluate); empty: none. Does not
  // change the answer (the CLI's progress bar, issue 28).
  std::function<void(int, int)> progress;
  bool prune = true;             // false: evaluate every enumerated strategy (tests)
  bool flash_attention = true;   // fused attention: no s² activations (TE / FlashAttention-2)
  bool tp_comm_overlap = false;  // Megatron --tp-comm-overlap (TE userbuffers, needs SP)
  // MoE token dispatch: false = Megatron-Core's alltoall dispatcher (every (token, expert) copy
  // crosses the network, the default); true = the flex dispatcher with DeepEP
  // (--moe-token-dispatcher-type flex --moe-enable-deepep): one copy per destination GPU in the
  // server and one per destination server, forwarded over NVLink.
  bool deepep = false;
  // --pp-schedule: false = 1F1B (interleaved when vp > 1, Megatron's); true = DualPipe
  // (DeepSeek-V3 §3.2.1): only even pp without virtual stages are enumerated.
  bool dualpipe = false;
  // --ep-overlap: Megatron-Core's combined 1F1B EP all-to-all overlap
  // (--overlap-moe-expert-parallel-comm, docs/training.md "Pipeline schedules"); with pp > 1 only
  // interleaved strategies (vp > 1) are enumerated, as Megatron requires.
  bool ep_overlap = false;
  // The training framework whose settings the plan assumes ("megatron" when empty); set by
  // apply_train_engine, echoed in the JSON request.
  std::string engine = "megatron";
  bool dropout = false;  // dropout masks stored (GPT-3 recipes); Llama recipes train without
  // Framework reserve (CUDA context, NCCL, allocator fragmentation), bytes per GPU.
  double reserve_bytes = 6e9;
  // Communication constants from `topoplan calibrate` (--calibration); nullptr: the built-in
  // ones. Must outlive the planner (as PlanRequest::comm_tuning).
  const NcclTuning* comm_tuning = nullptr;
  // Throws FieldError naming the member (e.g. "global_batch") on a bad value.
  void validate(const ModelSpec& m) const;
};

// Bytes on the most loaded GPU; `total()` must not exceed `capacity_bytes`.
struct TrainMemory {
  double capacity_bytes = 0;
  double weights_bytes = 0;      // bf16 parameters (/dp under ZeRO-3) + FP8 weight copies
  double grads_bytes = 0;        // gradient buffer, 2 or 4 B (--grad-reduce) (/dp under ZeRO-2/3)
  double optimizer_bytes = 0;    // fp32 master + Adam m, v: 12 B/param (/dp under ZeRO >= 1)
  double activations_bytes = 0;  // stored activations of the in-flight micro-batches
  double buffers_bytes = 0;      // ZeRO-3 gathered layers, NCCL buffers, logits workspace
  double reserve_bytes = 0;      // framework reserve (request)
  double in_flight = 0;          // micro-batches' activations held by the first stage
  double total() const {
    return weights_bytes + grads_bytes + optimizer_bytes + activations_bytes + buffers_bytes +
           reserve_bytes;
  }
};

// One step on the critical path (µs). exposed terms add up to total_us; hidden terms are the
// parts of each collective overlapped with compute (not in the total).
struct TrainBreakdown {
  double forward_us = 0, backward_us = 0, recompute_us = 0;  // compute of all micro-batches
  double fp8_overhead_us = 0;                                // casts, amax/scale updates
  double tp_us = 0, tp_hidden_us = 0;
  double cp_us = 0, cp_hidden_us = 0;
  double ep_us = 0, ep_hidden_us = 0;
  double pp_us = 0, pp_hidden_us = 0;
  double dp_us = 0, dp_hidden_us = 0;        // gradient reduce(-scatter) + param all-gather
  double zero3_us = 0, zero3_hidden_us = 0;  // per-layer parameter all-gathers (ZeRO-3)
  double bubble_us = 0;
  double optimizer_us = 0;
  // Compute lost to the SMs that overlapped data-parallel NCCL kernels hold (one per channel)
  // while they hide behind compute: hidden time × channels ÷ the GPU's SMs (NCCL runs one CTA
  // per channel for the whole collective, NCCL_MIN/MAX_CTAS; DeepSeek-V3 §3.2.2 budgets 20 of
  // 132 SMs for its overlapped communication for the same reason).
  double comm_sm_us = 0;
  double total_us = 0;
  double compute_us() const { return forward_us + backward_us + recompute_us; }
};

struct TrainPlan {
  TrainStrategy strategy;
  bool fits = false;
  std::string reason;  // why it does not fit ("" when it does)
  TrainMemory memory;
  TrainBreakdown breakdown;  // zero when the plan does not fit
  int micro_batches = 0;     // m per pipeline per step
  double step_time_ms = 0, tokens_per_s = 0, tokens_per_s_per_gpu = 0;
  double tflops_per_gpu = 0;     // model FLOPs (Megatron formula) per GPU per second
  double hw_tflops_per_gpu = 0;  // + the recomputed forward (what the GPU executes)
  // The same FLOPs with causal attention (half the score FLOPs; sliding-window layers over the
  // window): the definition Megatron-Bridge 25.11's "Model TFLOP/s/GPU" uses (docs/training.md).
  double tflops_per_gpu_causal = 0;
  double mfu = 0;            // tflops_per_gpu ÷ dense peak of the precision
  double days_to_train = 0;  // when train_tokens > 0
};

// Megatron-LM's model FLOPs of one step (training.py num_floating_point_operations):
// 12·B·s·L·h²·[(1 + g/a + s/h)·q/h + I/h·k·(3/2 if SwiGLU) + shared + V/(2Lh)].
double training_model_flops(const ModelSpec& m, double seq, double sequences);
// The attention-score part of training_model_flops (QKᵀ and AV over all s keys, forward and
// backward), and the same counted causally: a query attends (s + 1)/2 keys on average, or,
// on a sliding-window layer, at most the window (w(2s − w + 1)/(2s) on average, for w <= s).
double training_score_flops(const ModelSpec& m, double seq, double sequences);
double training_score_flops_causal(const ModelSpec& m, double seq, double sequences);

// Where one rank of a training strategy runs (layout tp, cp, dp, pp: Megatron-Core's default).
struct TrainRank {
  int rank = 0, device = -1, node = 0, local_gpu = 0;
  std::string device_id, nic_id;
  int tp_rank = 0, cp_rank = 0, dp_rank = 0, pp_rank = 0;
};

struct TrainingResult {
  TrainRequest request;
  std::string model, topology, gpu;
  int gpus = 0;
  double peak_TFLOPS_bf16 = 0, peak_TFLOPS_fp8 = 0;
  long strategies_enumerated = 0;  // every combination of the space (after the pins)
  long pruned_divisibility = 0, pruned_memory = 0, pruned_bound = 0;
  long strategies_evaluated = 0;          // timed in full
  double search_s = 0;                    // wall time of the search (this process, one core)
  double evaluations_per_s_per_core = 0;  // enumerated ÷ search_s (one thread)
  std::vector<TrainPlan> plans;      // the top fitting plans, best first; else the closest misfits
  std::vector<TrainRank> placement;  // best plan: rank → GPU (first 512 ranks)
  int placement_ranks = 0;           // ranks of the best plan (placement may be cut)
  std::vector<GroupSummary> groups;  // best plan: tp, cp, dp (dp-cp with CP), pp, ep groups
  std::string explanation;           // why the winner beats the runner-up
};

// The library entry point (CLI, compare). Throws InputError on a bad request.
TrainingResult plan_training(const ModelSpec& m, const Router& r, const TrainRequest& q);

// Memory and step of one strategy (tests, compare). `fits`/`reason` as in the search.
TrainPlan evaluate_training(const ModelSpec& m, const Router& r, const TrainRequest& q,
                            const TrainStrategy& s);

// ---- Memory formulas (docs/training.md "Memory"), exposed for tests ------------------------
// Stored activation bytes of one decoder layer for one micro-batch on one GPU (Korthikanti et
// al. 2022 generalised to GQA / MLA / SwiGLU / MoE; dropout masks only with `dropout`).
double train_activation_bytes_per_layer(const ModelSpec& m, const TrainStrategy& s, double seq,
                                        bool flash_attention, bool dropout = false,
                                        LayerType type = LayerType::Dense);
// Micro-batches whose activations the first stage holds: min(m, pp) for 1F1B, times
// (1 + (pp − 1)/(pp·vp)) when interleaved (Korthikanti §4.2.3).
double train_in_flight(const TrainStrategy& s, int micro_batches);
// Memory of the most loaded GPU (first or last pipeline stage).
TrainMemory train_memory(const ModelSpec& m, const TrainStrategy& s, const TrainRequest& q,
                         double capacity_bytes);
// "" when it fits, else the largest term and the overflow ("activations 61.2 GB ... exceeds by
// 9.3 GB").
std::string train_memory_problem(const TrainMemory& mem);

// Pipeline bubble fraction of the step: (pp − 1)/(vp · m) of the ideal time.
double pipeline_bubble_fraction(int pp, int vp, int micro_batches);

}  // namespace topoplan
