// LLM architecture description and its cost model: parameter counts, per-layer kernels (FLOPs,
// HBM bytes, GEMM shapes), communication volumes, KV cache and memory per GPU.
//
// Conventions (derivations and sources in docs/model-format.md):
// - FLOPs count 2 per multiply-add. Bytes are HBM bytes; weights are read once per kernel launch.
// - Counts are doubles (expected values: MoE routing is assumed uniform and independent).
// - "Parameters" exclude multi-token-prediction (MTP) modules, matching DeepSeek's published
//   671B; MTP weights are reported separately and loaded only when asked (ShardLayout::load_mtp).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/dtype.hpp"
#include "topoplan/kernel.hpp"

namespace topoplan {

enum class AttentionKind { Mha, Mla };       // Mha covers MHA, GQA and MQA through kv_heads
enum class MlpKind { SwiGlu, Gelu };         // SwiGLU: gate, up, down (3 matrices); GELU: up, down
enum class NormKind { RmsNorm, LayerNorm };  // LayerNorm carries a bias (2h parameters)

// Multi-head latent attention (DeepSeek-V2/V3). The KV cache holds, per token and layer, the
// compressed latent (kv_lora_rank) plus the shared rotary key (qk_rope_head_dim).
struct MlaSpec {
  int q_lora_rank = 0;  // 0: queries are projected directly (DeepSeek-V2-Lite)
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
};

// Mixture of experts. num_experts == 0 means a dense model.
struct MoeSpec {
  int num_experts = 0;          // routed experts per MoE layer (E)
  int top_k = 0;                // routed experts per token (k)
  int expert_intermediate = 0;  // intermediate size of one routed expert
  int num_shared_experts = 0;   // always-active experts (DeepSeek: 1)
  int shared_intermediate = 0;  // intermediate size of one shared expert (0: expert_intermediate)
  int first_dense_layers = 0;   // leading layers with a dense MLP (DeepSeek first_k_dense_replace)
  int layer_freq = 1;           // after those, every layer_freq-th layer is MoE
  bool router_bias = false;     // per-expert score bias (DeepSeek-V3 e_score_correction_bias)
  // A serving deployment's extra expert slots holding copies of routed experts, so that EP need
  // not divide num_experts and hot experts are spread (DeepSeek-V3's redundant experts: 32 in
  // prefill, 288 slots over EP144 in decode, "Day 6" inference-system overview; SGLang
  // --ep-num-redundant-experts). Not part of the model's parameters: plan --redundant-experts.
  int redundant_experts = 0;
  int expert_slots() const { return num_experts + redundant_experts; }
  // Group-limited routing (DeepSeek-V2/V3 "node-limited routing", arXiv:2412.19437 §2.1.2; HF
  // config n_group / topk_group): the routed experts form n_group equal groups of consecutive
  // experts, a token first keeps its topk_group best groups, then its top_k experts among them.
  // 1 / 1: no limit.
  int n_group = 1;
  int topk_group = 1;
  bool group_limited() const { return n_group > 1 && topk_group < n_group; }
};

// A weight storage format: element type plus optional block/group scales.
struct WeightFormat {
  Dtype dtype = Dtype::BF16;
  double scale_block_elems =
      0;  // elements sharing one scale (128*128 DeepSeek FP8; 128 int4 groups); 0: none
  Dtype scale_dtype = Dtype::FP32;
  // Asymmetric integer formats (AWQ/GPTQ) also store one zero point per block (packed int4).
  std::optional<Dtype> zero_point = std::nullopt;
  // The GEMM dequantizes the weights and runs in the activations' dtype (W8A16/W4A16: vLLM's
  // Marlin kernels for FP8 on Ampere and FP4 on Hopper); false: the math runs in `dtype`.
  bool weight_only = false;
  // element_bytes(dtype) + (element_bytes(scale_dtype) + zero point bytes) / scale_block_elems.
  double bytes_per_element() const;
};

// Parts of a model, used for parameter breakdowns and per-part weight formats.
enum class Part {
  Embedding,
  Attention,
  DenseMlp,
  RoutedExperts,
  SharedExperts,
  Router,
  Norms,
  LmHead
};
inline constexpr std::size_t kPartCount = 8;
std::string_view to_string(Part p);  // "embedding", "attention", "dense_mlp", ...

struct ModelDtypes {
  WeightFormat weights;                                             // default for every part
  std::array<std::optional<WeightFormat>, kPartCount> overrides{};  // per-part exceptions
  Dtype kv_cache = Dtype::BF16;
  Dtype activations = Dtype::BF16;
  Dtype moe_dispatch = Dtype::BF16;   // tokens sent to experts (DeepEP: FP8 with 1x128 scales)
  Dtype moe_combine = Dtype::BF16;    // expert outputs returned (DeepEP: BF16)
  WeightFormat format(Part p) const;  // the override if present, else `weights`
};

struct ModelSpec {
  std::string name, description;
  std::vector<std::string> sources;  // URLs/papers for the hyper-parameters
  int hidden = 0;                    // h
  int layers = 0;                    // decoder layers (excluding MTP)
  int vocab = 0;
  int max_context = 0;
  bool tied_embeddings = false;
  int position_embeddings = 0;  // learned absolute positions (GPT-3: 2048 rows); 0 = rotary
  NormKind norm = NormKind::RmsNorm;
  // Attention (Mha: heads, kv_heads, head_dim; Mla: heads and `mla`).
  AttentionKind attention = AttentionKind::Mha;
  int heads = 0;
  int kv_heads = 0;  // == heads: MHA; 1: MQA; otherwise GQA
  int head_dim = 0;
  bool qkv_bias = false;     // Qwen2/2.5
  bool qk_norm = false;      // Qwen3: RMSNorm of head_dim on q and k
  bool linear_bias = false;  // biases on every linear (GPT-3; gpt-oss attention and experts)
  // Sliding-window attention (gpt-oss: every other layer attends the last 128 tokens): those
  // layers attend and cache at most `sliding_window` tokens. 0: every layer attends everything.
  int sliding_window = 0;
  int sliding_layers = 0;        // how many of the layers use the window
  bool attention_sinks = false;  // a learned softmax sink logit per head and layer (gpt-oss)
  MlaSpec mla;
  // MLP.
  MlpKind mlp = MlpKind::SwiGlu;
  int intermediate = 0;  // dense MLP intermediate size
  MoeSpec moe;
  int mtp_modules = 0;  // DeepSeek-V3 multi-token prediction modules (1)
  ModelDtypes dtypes;

  bool is_moe() const { return moe.num_experts > 0; }
};

enum class LayerType { Dense, Moe };
std::string_view to_string(LayerType t);
LayerType layer_type(const ModelSpec& m, int layer);  // layer in [0, layers)
int layer_count(const ModelSpec& m, LayerType t);

// ---- Loading -------------------------------------------------------------------------------
std::vector<std::string> builtin_model_names();  // sorted
// Parses topoplan model JSON (docs/model-format.md) or, detected by `model_type` /
// `num_hidden_layers`, a Hugging Face config.json (llama, qwen2, qwen3_moe, mixtral,
// deepseek_v3). Throws InputError(source, json_pointer, ...) on bad input.
ModelSpec parse_model_json(const std::string& text, const std::string& source);
// A file path (wins) or a built-in name; UnknownNameError with did-you-mean otherwise.
ModelSpec load_model(const std::string& name_or_path);
// Checks invariants (positive sizes, heads divisible by kv_heads, top_k <= experts...). Throws
// InputError naming `source` and the JSON pointer of the offending field.
void validate_model(const ModelSpec& m, const std::string& source);

// ---- Precision (docs/model-format.md, "Precision") -----------------------------------------
// The names --precision accepts: bf16, fp16, fp8, fp4 (NVFP4), mxfp4, int4 (AWQ/GPTQ).
std::vector<std::string> precision_names();
// The weight format a --precision name stands for; UnknownNameError on anything else.
WeightFormat precision_format(std::string_view name);
// Stores the dense and expert GEMM weights (attention, dense MLP, routed and shared experts) in
// `name`'s format; embedding, LM head, norms and router keep a 16-bit format (the checkpoint's,
// bf16 when it was quantized). FP8/FP4 math quantizes the MoE dispatch to FP8 (DeepEP).
void apply_precision(ModelSpec& m, std::string_view name);
// --kv-dtype: bf16, fp16 or fp8 (vLLM --kv-cache-dtype fp8 = e4m3); UnknownNameError otherwise.
void apply_kv_dtype(ModelSpec& m, std::string_view name);
// "fp8 e4m3, fp32 scale per 16384-element block (1.0002 B/param)" for output.
std::string describe(const WeightFormat& f);
// describe() of the GEMM weights: one format, or "attention …; experts …" when they differ.
std::string describe_gemm_formats(const ModelSpec& m);

// ---- Parameters ----------------------------------------------------------------------------
struct ParamBreakdown {
  std::array<double, kPartCount> by_part{};
  double operator[](Part p) const { return by_part[static_cast<std::size_t>(p)]; }
  double sum() const;
};
struct ParamCount {
  ParamBreakdown total;   // every weight of the main model (MTP excluded)
  ParamBreakdown active;  // multiplied per token: top_k/E of routed experts, all the rest but the
                          // embedding (a row gather); the LM head counts even when tied
  double mtp = 0;         // unique MTP weights (embedding/LM head shared with the main model)
};
ParamCount count_params(const ModelSpec& m);
// Weight bytes (incl. scales) of a breakdown in the model's per-part formats.
double weight_bytes(const ModelSpec& m, const ParamBreakdown& p);

// Parameters of one layer of type `t`, per part (attention, norms, MLP/experts/router).
ParamBreakdown layer_params(const ModelSpec& m, LayerType t);

// ---- Sharding and workload -----------------------------------------------------------------
// How one replica (within one pipeline stage) is split across GPUs.
struct Shard {
  int tp = 1;                 // attention heads and MLP columns split tp ways
  int ep = 1;                 // routed experts split ep ways (E/ep per GPU)
  int expert_tp = 0;          // each routed expert's columns split; 0 = tp if ep == 1, else 1
  bool attention_dp = false;  // attention replicated per GPU, sequences split tp ways instead
  int effective_expert_tp() const { return expert_tp > 0 ? expert_tp : (ep == 1 ? tp : 1); }
};

// Why `s` cannot shard `m`, or nullopt: tp must divide the heads; KV heads must divide or be
// divided by tp; ep must divide the routed experts; expert_tp must divide the expert
// intermediate size. The cost functions below accept any tp, ep >= 1 (averages for fractional
// splits) and throw InputError("shard", ...) for tp < 1 or ep < 1.
std::optional<std::string> shard_problem(const ModelSpec& m, const Shard& s);

// ---- Per-shard quantities: the one rule for each, used by kernels, memory and the planners ----
// GPUs one replica's sequences are split over for attention: tp under attention DP (each rank
// attends whole sequences, SGLang DP attention), else 1 (every TP rank sees every sequence).
inline int attention_ranks(const Shard& s) {
  return s.attention_dp ? s.tp : 1;
}
// Query heads one GPU computes: every head under attention DP, heads / tp otherwise.
double query_heads_per_rank(const ModelSpec& m, const Shard& s);
// KV heads one GPU holds (MHA/GQA): every KV head under attention DP, else ceil(kv_heads / tp):
// vLLM shards KV heads when tp divides them and replicates each on tp / kv_heads ranks when
// tp > kv_heads (so a rank never holds less than one).
double kv_heads_per_rank(const ModelSpec& m, const Shard& s);
// Whether tp ranks can hold the KV heads (MHA/GQA): tp divides them or is a multiple of them
// (vLLM shards or replicates evenly); MLA always can. The rule shard_problem and the serving and
// training divisibility checks share.
bool kv_heads_shardable(const ModelSpec& m, int tp);
// Intermediate size of all shared experts together (one MLP of that width): num_shared_experts
// × shared_intermediate, the routed experts' intermediate size when the model gives none.
double shared_experts_intermediate(const ModelSpec& m);

enum class Phase { Prefill, Decode };
std::string_view to_string(Phase p);

// Work of one forward step of the replica (all GPUs of the shard together).
struct Workload {
  Phase phase = Phase::Decode;
  double batch = 1;       // sequences B
  double new_tokens = 1;  // tokens per sequence in this step (prompt chunk, or 1 for decode)
  double context = 0;     // tokens per sequence already in the KV cache (L)
  double tokens() const { return batch * new_tokens; }
  // Rows the LM head (and the logits gather) computes: prefill only needs the next-token logits
  // of each sequence's last position (batch rows); a decode step needs every new token's.
  double logit_rows() const { return phase == Phase::Prefill ? batch : tokens(); }
};

// Field rules shared by every request that carries a workload (PlanRequest, model show,
// roofline), so one field has one rule wherever it is asked. Each throws FieldError(field, ...)
// and refuses inf and NaN: every number is checked where it enters.
// The largest count a field takes: 2^53, the largest integer a double holds exactly, so every
// count is the whole number it prints as (1e19 sequences printed as INT64_MIN before).
inline constexpr double kMaxCount = 9007199254740992.0;
// batch: at least 1 sequence; with `zero_searches`, 0 is also accepted (the planner searches it).
void require_batch(double batch, bool zero_searches = false);
void require_tokens(double tokens, const char* field);  // at least 1 token, at most kMaxCount
void require_context(double context);                   // "context": 0 to kMaxCount tokens
// "context" within the model's own context (max_context; 0: not stated, no bound): a decode
// context past it is refused, naming the model and its limit.
void require_context_within(double context, const ModelSpec& m);
// A prompt (`field`, in tokens, at least 1) of at most the model's max_context.
void require_prompt_within(double prompt, const ModelSpec& m, const char* field = "prompt");
// A latency limit in ms: finite and not negative (0: no limit).
void require_limit_ms(double ms, const char* field);

// Expected distinct experts, among the `local_experts` of one EP shard, touched by `tokens`
// tokens each picking `top_k` of `experts` uniformly: local·(1 − (1 − k/E)^T).
double expected_experts_touched(double tokens, int top_k, int experts, double local_experts);
// Rows the fused-MoE kernel computes for an expert holding `rows` (token, expert) rows in a
// step of `tokens` tokens: above one BLOCK_SIZE_M (16 up to 64 tokens, else 64) the count ends
// in a partial block, rows + (block − 1)/2 on average; up to one block `rows` (the efficiency
// curves carry the idle tile there). src/model/layer_cost.cpp says where from.
double fused_moe_padded_rows(double rows, double tokens);

// Kernels one GPU runs for one layer of type `t` (in execution order). Shapes and bytes are per
// GPU. Norm kernels fuse the residual add (read x and residual, write both).
std::vector<KernelCost> layer_kernels(const ModelSpec& m, LayerType t, const Workload& w,
                                      const Shard& s);
// Kernels run once per model: embedding gather (first stage), final norm and LM head (last
// stage), returned in that order. Prefill computes logits only for the last token of each
// sequence.
std::vector<KernelCost> head_kernels(const ModelSpec& m, const Workload& w, const Shard& s);

// Sum of flops/bytes of a kernel list.
KernelCost total_cost(const std::vector<KernelCost>& kernels, const std::string& name = "total");

// Communication per layer, per token, for the planner's collective model.
struct LayerComm {
  double tp_allreduce_bytes_per_token = 0;  // hidden × activation bytes, per all-reduce
  int tp_allreduces = 0;                    // all-reduces per layer when tp > 1 (attn out, MLP out)
  double moe_dispatch_bytes_per_token = 0;  // top_k × hidden × dispatch bytes (+ FP8 scales)
  double moe_combine_bytes_per_token = 0;   // top_k × hidden × combine bytes
  double pp_bytes_per_token = 0;            // activation sent between pipeline stages
};
LayerComm layer_comm(const ModelSpec& m, LayerType t);

// ---- Memory --------------------------------------------------------------------------------
struct ShardLayout {
  Shard shard;
  int pp = 1;             // pipeline stages; layers split evenly, remainder to the first stages
  bool load_mtp = false;  // hold the MTP module(s) on the last stage (speculative decoding)
};

// Layers [first, first+count) of stage `stage` in [0, pp).
struct StageLayers {
  int first = 0, count = 0;
};
StageLayers stage_layers(const ModelSpec& m, int pp, int stage);

// Parameters held by one GPU of pipeline stage `stage`, by part. Replicated on every TP rank:
// norms, router, MLA latent down-projections (q_a, kv_a); split tp ways: attention heads,
// q_b/kv_b/o projections, dense MLP, shared experts, vocab-parallel embedding and LM head;
// routed experts: E/ep per GPU, each split expert_tp ways. Embedding lives on stage 0, LM head
// (a copy when tied and pp > 1) on the last stage. attention_dp replicates attention weights.
ParamBreakdown params_per_gpu(const ModelSpec& m, const ShardLayout& l, int stage);
// Weight bytes of the most loaded stage's GPU (incl. scales; MTP when load_mtp).
double weight_bytes_per_gpu(const ModelSpec& m, const ShardLayout& l);

// Bytes of KV cache one GPU stores per token of a sequence it serves, over all its layers
// (layers / pp). MLA: (kv_lora_rank + qk_rope_head_dim) per layer, replicated on TP ranks;
// MHA/GQA: 2 × ceil(kv_heads / tp) × head_dim (heads replicated when kv_heads < tp).
// Under attention_dp a GPU serves 1/tp of the sequences with the full cache per token.
double kv_bytes_per_token(const ModelSpec& m, const Shard& s, int pp = 1);
// Whole-model KV bytes per token with no sharding (the usual quoted figure).
double kv_bytes_per_token(const ModelSpec& m);
// Tokens of a `tokens`-long sequence the KV cache holds, averaged over the layers: full layers
// hold all, sliding-window layers at most the window. Multiply by kv_bytes_per_token for bytes.
double kv_tokens_held(const ModelSpec& m, double tokens);

// Activation recomputation of a training strategy (train.hpp; memory in src/plan/train_memory).
enum class Recompute { None, Selective, Full };

}  // namespace topoplan
