// Internal state of the training planner: the model as trained (formats of the precision), the
// hardware models and the caches that make one strategy's evaluation a few hundred arithmetic
// operations (docs/training.md, "Search").
#pragma once

#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "plan/comm_sms.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/perf.hpp"
#include "topoplan/train.hpp"

namespace topoplan::train {

// The optimizer step (docs/training.md, "Optimizer"): bytes per local parameter (fused Adam on
// fp32 main params/grads/m/v 28 B, copy to the bf16 weights 6 B, gradient-norm read 2 B) and the
// fraction of peak HBM bandwidth these multi-tensor kernels reach. Measured on the H200
// (topologies/calibration/train-layer-h200-2026-12-03-3.json, tools/measure/probe_train_layer.py,
// 1.14 B parameters): torch.optim.AdamW(fused=True) on fp32 tensors 9.95 ms for 28 B/param =
// 3.21 TB/s, the fp32 -> bf16 foreach copy 2.12 ms for 6 B/param = 3.23 TB/s; 3.21/4.8 = 0.67.
inline constexpr double kOptimizerBytesPerParam = 36;
inline constexpr double kOptimizerHbmFraction = 0.67;

// Backward cost relative to the forward, per kernel family, measured on the H200 (docs/training.md,
// "H200 measurement"; topologies/calibration/train-layer-h200-2026-12-03-{2,3}.json, torch.profiler
// CUDA kernel times by class, backward ÷ forward, time-weighted over the runs):
// - GEMMs 2.19× (Llama-3-8B layer 2.27 / 2.17, 2,048-wide layer 1.97 / 1.96): the data- and
//   weight-gradient GEMMs have the forward's FLOPs each (Narayanan et al. 2021 §5.1) but run in
//   NN / NT layouts whose kernels reach a lower rate than the forward's TN;
// - attention 2.67× (cuDNN flash SDPA alone, contiguous q/k/v as TE passes them, 32/16/8 query
//   heads: 2.96 / 2.70, 2.49 / 2.45, 2.62 / 2.48; FlashAttention-2 backward is 5 matmuls against
//   the forward's 2 plus the recomputed softmax, Dao 2023 §3.1);
// - elementwise/norm/embedding 2.54× (2.57 / 2.57, 2.43 / 2.45): read the output gradient and the
//   saved input, write the input gradient, plus the norm weight's reduction;
// - FP8 casts 1× (the output gradient is cast to E5M2 once per GEMM input).
// Test: tests/plan/train_h200_measured_test.cpp (the measured layers' forward + backward).
inline constexpr double kGemmBackward = 2.19, kAttentionBackward = 2.67, kOtherBackward = 2.54;

// Parameters one GPU of a pipeline stage holds, split by how ZeRO shards them.
struct StageParams {
  double dense = 0;   // non-expert parameters (sharded over dp × cp)
  double expert = 0;  // routed-expert parameters (sharded over the expert-data-parallel group)
  double gemm = 0;    // parameters of TE linear layers (FP8 weight copies)
  double layer = 0;   // largest decoder layer on this GPU (ZeRO-3 gather buffer)
  int layers = 0, moe_layers = 0;
};
// Stage 0 (first) and pp − 1 (last) of a strategy's shard.
StageParams stage_params(const ModelSpec& m, const TrainStrategy& s, int stage);

// The model with the weight formats of the training precision: bf16 everywhere, or FP8 GEMMs
// (per-tensor scales, Transformer Engine) with bf16 embedding, LM head, norms and router.
ModelSpec as_trained(const ModelSpec& m, TrainPrecision p);

// Memory of the most loaded GPU from precomputed stage parameters.
TrainMemory memory_from(const ModelSpec& m, const TrainStrategy& s, const TrainRequest& q,
                        double capacity_bytes, const StageParams& first, const StageParams& last,
                        int micro_batches);

// Compute time of one micro-batch of one layer (or the head) on one GPU, µs.
struct PassTime {
  double fwd = 0, bwd = 0;  // forward; backward (GEMMs 2×, attention 2.5×, the rest 2×)
  double attn_fwd = 0;      // the attention kernel's forward (selective recompute)
  double gemm_fwd = 0;      // GEMM forward time (what TP comm overlap can hide behind)
  // Forward time of the tensor-parallel linears TE's userbuffers overlap: column-parallel
  // (qkv_proj, the dense MLP's up/gate) and row-parallel (o_proj, the dense MLP's down).
  double tp_col_gemm_fwd = 0, tp_row_gemm_fwd = 0;
  double fp8_cast = 0;  // forward activation casts to FP8 (part of fwd)
  // Context parallelism (cp > 1): one ring step's attention kernel (the local T queries against
  // one K/V chunk: T²/2 query-key pairs, priced as a causal T-token prefill) and its output
  // correction kernel (docs/training.md, "CP").
  double ring_step_attn = 0, ring_step_merge = 0;
  // Forward GPU time of the kernels each selective-recompute module re-runs (index: the
  // RecomputeModule bit; module_kernel() in train_compute.cpp says which kernels).
  double module_fwd[7] = {};
  double module_flops[7] = {};  // and their FLOPs (hardware FLOPs of the recompute)
};

// FP8 training casts that must also write a columnwise copy (Hopper/Ada, or block-scaled
// formats) get its bytes added (train_compute.cpp says why).
void add_columnwise_copies(std::vector<KernelCost>& ks, const GpuSpec& gpu);

// Extra time of one layer's TP linears (t.tp_col_gemm_fwd, t.tp_row_gemm_fwd) while TE
// userbuffers' overlap kernels hold SMs of a GPU with `sms` (train_step.cpp says which GEMM runs
// beside which kernel); `fwd_passes` 2 under full recompute.
double ub_sm_us(const PassTime& t, bool fp8, double sms, double fwd_passes);

// Forward time a selective recompute of `modules` re-runs in one layer (µs): the modules'
// kernels' GPU time (the backward's launch queue carries their launches).
double recompute_fwd_us(const PassTime& p, unsigned modules);
double recompute_flops(const PassTime& p, unsigned modules);  // the same kernels' FLOPs

// Whether --fp8-param-gather applies to this strategy (FP8 GEMMs, ZeRO >= 1).
inline bool fp8_param_gather(const TrainStrategy& s, const TrainRequest& q) {
  return q.fp8_param_gather && s.precision == TrainPrecision::FP8 && s.zero >= 1;
}

// Rank r of a training job runs on the r-th GPU returned (Megatron's rank order over the
// topology's GPUs, node-major); on NVLink domains whose GPU count is not a power of two (NVL72),
// a job spanning several takes the first power-of-two GPUs of each (64 of 72).
std::vector<int> train_devices(const Topology& t, int gpus);

// Concurrent group pricing, cached by (op, stride, size, bytes): a group kind's geometry in rank
// space, so the cost does not grow with the number of groups.
class CommPricer {
 public:
  CommPricer(const Router& r, int gpus, const NcclTuning& tuning);
  // Time (µs) of `op` on the group of `size` ranks spaced `stride` apart starting at rank 0,
  // with every group of the same kind that shares one of its servers running at once.
  double cost(CollOp op, int stride, int size, double bytes) const;
  // The channels the collective engine gave that collective (across servers, one per NIC the
  // group uses in a server: NCCL's graph channels).
  int channels(CollOp op, int stride, int size, double bytes) const;
  // The CTAs, one SM each, NCCL runs it on (src/plan/nccl_ctas.hpp): NVLS channels for an NVLS
  // algorithm, else its runtime ring channels across servers (nccl_ring_ctas) or inside one
  // server of NVSwitch-connected GPUs (nccl_intra_ring_ctas); else the engine's channels.
  int ctas(CollOp op, int stride, int size, double bytes) const;
  // Whether group 0 of that kind (ranks 0, stride, ..., (size − 1)·stride) lies in one server
  // (one NVLink domain).
  bool in_one_server(int stride, int size) const;
  // The groups of that kind (members as device indices) touching group 0's servers.
  std::vector<std::vector<int>> window(int stride, int size) const;
  const Router& router() const { return *router_; }
  // DeepEP normal-mode dispatch (or combine) of `tokens` per rank of `token_bytes` on every EP
  // group of the window (deepep_normal_matrix), the slowest group's time, µs.
  double deepep(int stride, int size, double tokens, double token_bytes, const MoeSpec& moe) const;

 private:
  const Router* router_;
  CollectiveModel model_;
  // The engine's (channels, algorithm) for that collective, priced on first use; nullptr when
  // it costs nothing.
  const std::pair<int, Algorithm>* engine_choice(CollOp op, int stride, int size,
                                                 double bytes) const;

  std::vector<int> devices_;  // rank → device
  int gpus_;
  mutable std::map<std::tuple<int, int, int>, std::vector<std::vector<int>>> windows_;
  mutable std::map<std::tuple<int, int, int, double>, double> cache_;
  mutable std::map<std::tuple<int, int, int, double>, std::pair<int, Algorithm>> channels_;
};

// Everything the search needs; one per plan_training call.
struct Evaluator {
  Evaluator(const ModelSpec& m, const Router& r, const TrainRequest& q);
  ModelSpec model;  // as given (BF16 and FP8 copies below)
  ModelSpec bf16, fp8;
  const Router* router;
  TrainRequest req;
  int gpus = 0;
  GpuSpec gpu;
  ComputeModel cm;
  CommPricer comm;
  mutable std::map<std::tuple<int, int, int, int, int>, std::pair<StageParams, StageParams>>
      params_cache;
  mutable std::map<std::tuple<int, int, int, int, int, int, bool>, PassTime> pass_cache;

  std::pair<StageParams, StageParams> stage_pair(const TrainStrategy& s) const;
  // what: 0 dense layer, 1 MoE layer, 2 embedding, 3 final norm + LM head + loss.
  PassTime pass(int what, const TrainStrategy& s) const;
  void ring_step(PassTime& p, const ModelSpec& m, LayerType t, const TrainStrategy& s, double local,
                 const Shard& sh) const;
  TrainMemory memory(const TrainStrategy& s) const;
  // Lower bound of the step (compute and bubble only), µs: a plan whose bound exceeds the k-th
  // best step cannot enter the top k (exact pruning).
  double lower_bound_us(const TrainStrategy& s) const;
  TrainPlan evaluate(const TrainStrategy& s) const;
  double peak_TFLOPS(TrainPrecision p) const;
};

int micro_batches(const TrainStrategy& s, const TrainRequest& q);

}  // namespace topoplan::train
