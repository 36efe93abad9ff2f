// The flags `plan --emit` prints, each with the engine version and the file it was read from
// (docs/launch.md). Only names and meanings are taken from the engines; a flag missing here is
// refused by the emitters (launch_flag()), so nothing is printed without a source.
#include <memory>

#include "report/launch.hpp"
#include "report/launch_internal.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

// SGLang: the server-arguments page at one commit of main (the 0.5 series).
constexpr std::string_view kSgl = "SGLang main@004813e1";
constexpr std::string_view kSglDoc =
    "https://github.com/sgl-project/sglang/blob/004813e1dd464844bd92ddbca5cab8c024a75f78/docs/"
    "advanced_features/server_arguments.md";
// vLLM: the expert/data-parallel deployment page, and the engine arguments.
constexpr std::string_view kVllm = "vLLM main@13642f1e";
constexpr std::string_view kVllmEp =
    "https://github.com/vllm-project/vllm/blob/13642f1eed8507b4e80dac4540c92ab7cd0a1c07/docs/"
    "serving/expert_parallel_deployment.md";
constexpr std::string_view kVllmArgsVersion = "vLLM arg_utils.py@001999d2 (still in main)";
constexpr std::string_view kVllmArgs =
    "https://github.com/vllm-project/vllm/blob/001999d2f360c2c5da23a916510c273b1a73d06c/vllm/"
    "engine/arg_utils.py";
constexpr std::string_view kVllmServeUsage =
    "https://docs.redhat.com/en/documentation/red_hat_ai_inference_server/3.0/html/"
    "vllm_server_arguments/vllm-server-usage_server-arguments";
// TensorRT-LLM: the DeepSeek-R1 quick-start recipe (release container 1.0.0rc6) and the
// trtllm-serve command at one commit of main.
constexpr std::string_view kTrt = "TensorRT-LLM 1.0.0rc6 (recipe@a98a9061)";
constexpr std::string_view kTrtDoc =
    "https://github.com/NVIDIA/TensorRT-LLM/blob/a98a9061d72f6fd39f5d055ebdd2c6878a100e2c/docs/"
    "source/deployment-guide/quick-start-recipe-for-deepseek-r1-on-trtllm.md";
constexpr std::string_view kTrtServeVersion = "TensorRT-LLM main@4c05a748";
constexpr std::string_view kTrtServe =
    "https://github.com/NVIDIA/TensorRT-LLM/blob/4c05a74891e4df8066f08ed4ce14b0972abe4e25/"
    "tensorrt_llm/commands/serve.py";
constexpr std::string_view kMpi = "Open MPI 5.0";
constexpr std::string_view kMpiDoc =
    "https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html";
// NVIDIA Dynamo: the SGLang worker (all of SGLang's ServerArgs) and the frontend.
constexpr std::string_view kDyn = "Dynamo main@9ef12608 / @987bbcb5";
constexpr std::string_view kDynWorker =
    "https://github.com/ai-dynamo/dynamo/blob/9ef1260869c3cc09b104e0a16096cd718a961b9b/components/"
    "backends/sglang/src/dynamo/sglang/args.py";
constexpr std::string_view kDynFrontend =
    "https://github.com/ai-dynamo/dynamo/blob/987bbcb5c83e897e7a4151f0a0a63db67e9e5359/components/"
    "frontend/src/dynamo/frontend/main.py";
// NCCL's environment variables.
constexpr std::string_view kNccl = "NCCL 2.17+";
constexpr std::string_view kNcclEnv =
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html";
// Megatron-LM: Megatron-Core 0.20.0 (main@d98e8a64). Most flags are generated from dataclass
// fields by megatron/training/argument_utils.py (field_name -> --field-name).
constexpr std::string_view kMeg = "Megatron-Core 0.20.0 (main@d98e8a64)";
constexpr std::string_view kMegBlob =
    "https://github.com/NVIDIA/Megatron-LM/blob/d98e8a64ddf34856e74b24714e3bedb2f5a39553/";
// torchrun: static rendezvous flags.
constexpr std::string_view kTorch = "PyTorch main@f34fa151";
constexpr std::string_view kTorchRun =
    "https://github.com/pytorch/pytorch/blob/f34fa1515024423a239ce26f33a8b65ea9252502/torch/"
    "distributed/run.py";
// torchtitan 0.2.2 (main@b5bcd76c): tyro CLI over the config dataclasses.
constexpr std::string_view kTitan = "torchtitan 0.2.2 (main@b5bcd76c)";
constexpr std::string_view kTitanConfigs =
    "https://github.com/pytorch/torchtitan/blob/b5bcd76c66d0acb1a08b176d9639425bc55e0b2a/"
    "torchtitan/config/configs.py";
// The per-stage layer fields, read at a later commit of main.
constexpr std::string_view kTitanPp = "torchtitan main@0014ac2c";
constexpr std::string_view kTitanConfigsPp =
    "https://github.com/pytorch/torchtitan/blob/0014ac2ca45ae15db6706b4f5cc3e67546c98885/"
    "torchtitan/config/configs.py";
constexpr std::string_view kTitanRun =
    "https://github.com/pytorch/torchtitan/blob/b5bcd76c66d0acb1a08b176d9639425bc55e0b2a/"
    "run_train.sh";

// Sources built from a blob prefix live in static strings (string_view needs storage).
const std::string& megatron(const char* path) {
  static std::vector<std::unique_ptr<std::string>> keep;
  keep.push_back(std::make_unique<std::string>(std::string(kMegBlob) + path));
  return *keep.back();
}

std::vector<LaunchFlag> build() {
  const std::string& mpc = megatron("megatron/core/model_parallel_config.py");
  const std::string& tc = megatron("megatron/core/transformer/transformer_config.py");
  const std::string& args = megatron("megatron/training/arguments.py");
  const std::string& train = megatron("megatron/training/config/training_config.py");
  const std::string& common = megatron("megatron/training/config/common_config.py");
  const std::string& gpt = megatron("pretrain_gpt.py");
  const std::string& ddp =
      megatron("megatron/core/distributed/distributed_data_parallel_config.py");
  return {
      // SGLang
      {"sglang", "python3 -m sglang.launch_server", "the server entry point", kSgl, kSglDoc},
      {"sglang", "--model-path", "model weights (Hugging Face id or folder)", kSgl, kSglDoc},
      {"sglang", "--tp-size", "tensor parallel size (all GPUs of one instance under DP attention)",
       kSgl, kSglDoc},
      {"sglang", "--pp-size", "pipeline parallel size", kSgl, kSglDoc},
      {"sglang", "--dp-size",
       "data parallel size; with --enable-dp-attention the attention DP size", kSgl, kSglDoc},
      {"sglang", "--enable-dp-attention", "attention data parallel, TP for the FFN/MoE", kSgl,
       kSglDoc},
      {"sglang", "--ep-size", "expert parallel size", kSgl, kSglDoc},
      {"sglang", "--moe-a2a-backend", "MoE all-to-all backend (deepep)", kSgl, kSglDoc},
      {"sglang", "--deepep-mode", "DeepEP normal (prefill) or low_latency (decode)", kSgl, kSglDoc},
      {"sglang", "--ep-num-redundant-experts", "redundant expert slots (EPLB)", kSgl, kSglDoc},
      {"sglang", "--kv-cache-dtype", "KV cache dtype (fp8_e4m3)", kSgl, kSglDoc},
      {"sglang", "--quantization", "quantize a higher-precision checkpoint on load (fp8)", kSgl,
       kSglDoc},
      {"sglang", "--chunked-prefill-size", "tokens per prefill chunk", kSgl, kSglDoc},
      {"sglang", "--max-running-requests", "sequences in flight per instance", kSgl, kSglDoc},
      {"sglang", "--cuda-graph-max-bs", "largest batch captured in a CUDA graph", kSgl, kSglDoc},
      {"sglang", "--disable-cuda-graph", "eager decode launches", kSgl, kSglDoc},
      {"sglang", "--port", "HTTP port (one per instance on a server)", kSgl, kSglDoc},
      {"sglang", "--mem-fraction-static", "HBM fraction for weights and KV cache", kSgl, kSglDoc},
      {"sglang", "--enable-nccl-nvls", "NCCL NVLink SHARP (otherwise SGLang disables it)", kSgl,
       kSglDoc},
      {"sglang", "--speculative-algorithm", "speculative decoding (EAGLE: DeepSeek MTP)", kSgl,
       kSglDoc},
      {"sglang", "--speculative-num-steps", "draft steps per verify", kSgl, kSglDoc},
      {"sglang", "--speculative-eagle-topk", "draft tokens per step (1: a chain)", kSgl, kSglDoc},
      {"sglang", "--speculative-num-draft-tokens", "tokens verified per step (drafts + 1)", kSgl,
       kSglDoc},
      {"sglang", "--nnodes", "servers of one instance", kSgl, kSglDoc},
      {"sglang", "--node-rank", "this server's index in the instance", kSgl, kSglDoc},
      {"sglang", "--dist-init-addr", "host:port of node rank 0", kSgl, kSglDoc},
      {"sglang", "--disaggregation-mode", "prefill or decode server of a PD deployment", kSgl,
       kSglDoc},
      {"sglang", "--disaggregation-transfer-backend", "KV transfer backend (mooncake, nixl)", kSgl,
       kSglDoc},
      // vLLM
      {"vllm", "vllm serve", "the server entry point", kVllm, kVllmEp},
      {"vllm", "--tensor-parallel-size", "tensor parallel size", kVllm, kVllmEp},
      {"vllm", "--data-parallel-size", "data parallel (attention) ranks; EP = TP x DP", kVllm,
       kVllmEp},
      {"vllm", "--enable-expert-parallel", "MoE layers expert-parallel over TP x DP", kVllm,
       kVllmEp},
      {"vllm", "--all2all-backend",
       "EP transport: deepep_low_latency | deepep_high_throughput | "
       "allgather_reducescatter",
       kVllm, kVllmEp},
      {"vllm", "--data-parallel-size-local", "DP ranks on this node", kVllm, kVllmEp},
      {"vllm", "--data-parallel-start-rank", "first DP rank of this node", kVllm, kVllmEp},
      {"vllm", "--data-parallel-address", "address of the primary node", kVllm, kVllmEp},
      {"vllm", "--data-parallel-rpc-port", "RPC port on the primary node", kVllm, kVllmEp},
      {"vllm", "--headless", "secondary node: workers only, no API server", kVllm, kVllmEp},
      {"vllm", "--port", "HTTP port (one per instance on a server; the default is 8000)",
       "vllm serve usage (Red Hat AI Inference Server 3.0 build of vLLM)", kVllmServeUsage},
      {"vllm", "--enable-eplb", "expert load balancer (redundant experts)", kVllm, kVllmEp},
      {"vllm", "--eplb-config", "JSON; num_redundant_experts", kVllm, kVllmEp},
      {"vllm", "--kv-transfer-config", "KV connector of a disaggregated instance (NixlConnector)",
       kVllm, kVllmEp},
      {"vllm", "--pipeline-parallel-size", "pipeline parallel size", kVllmArgsVersion, kVllmArgs},
      {"vllm", "--kv-cache-dtype", "KV cache dtype (fp8)", kVllmArgsVersion, kVllmArgs},
      {"vllm", "--quantization", "quantize a higher-precision checkpoint on load (fp8)",
       kVllmArgsVersion, kVllmArgs},
      {"vllm", "--enable-chunked-prefill", "chunked prefill", kVllmArgsVersion, kVllmArgs},
      {"vllm", "--max-num-batched-tokens", "tokens per scheduler step (the prefill chunk)",
       kVllmArgsVersion, kVllmArgs},
      {"vllm", "--max-num-seqs", "sequences in flight per engine (DP rank)", kVllmArgsVersion,
       kVllmArgs},
      {"vllm", "--enforce-eager", "no CUDA graphs", kVllmArgsVersion, kVllmArgs},
      {"vllm", "--gpu-memory-utilization", "HBM fraction the engine may use", kVllmArgsVersion,
       kVllmArgs},
      {"vllm", "--distributed-executor-backend", "ray: TP/PP across servers", kVllmArgsVersion,
       kVllmArgs},
      // TensorRT-LLM
      {"trtllm", "trtllm-serve", "the server entry point (MODEL positional)", kTrt, kTrtDoc},
      {"trtllm", "--tp_size", "tensor parallel size (all GPUs of an instance under attention DP)",
       kTrt, kTrtDoc},
      {"trtllm", "--ep_size", "expert parallel size", kTrt, kTrtDoc},
      {"trtllm", "--max_batch_size", "requests scheduled together (per rank)", kTrt, kTrtDoc},
      {"trtllm", "--max_num_tokens", "tokens per scheduled batch (the prefill chunk)", kTrt,
       kTrtDoc},
      {"trtllm", "--kv_cache_free_gpu_memory_fraction",
       "fraction of the memory left after weights that the KV cache takes", kTrt, kTrtDoc},
      {"trtllm", "--extra_llm_api_options", "the YAML of LLM API options below", kTrt, kTrtDoc},
      {"trtllm", "enable_attention_dp", "YAML: attention data parallel", kTrt, kTrtDoc},
      {"trtllm", "cuda_graph_config.max_batch_size", "YAML: largest CUDA-graph batch", kTrt,
       kTrtDoc},
      {"trtllm", "cuda_graph_config.enable_padding", "YAML: pad batches to a captured size", kTrt,
       kTrtDoc},
      {"trtllm", "kv_cache_config.dtype", "YAML: KV cache dtype (fp8)", kTrt, kTrtDoc},
      {"trtllm", "moe_config.backend", "YAML: MoE backend (WIDEEP: wide expert parallel)", kTrt,
       kTrtDoc},
      {"trtllm", "speculative_config.decoding_type", "YAML: MTP", kTrt, kTrtDoc},
      {"trtllm", "speculative_config.num_nextn_predict_layers", "YAML: MTP draft tokens", kTrt,
       kTrtDoc},
      {"trtllm", "--port", "HTTP port (one per instance on a server)", kTrtServeVersion, kTrtServe},
      {"trtllm", "--pp_size", "pipeline parallel size", kTrtServeVersion, kTrtServe},
      {"trtllm", "--gpus_per_node", "GPUs per node", kTrtServeVersion, kTrtServe},
      {"trtllm", "--enable_chunked_prefill", "chunked prefill", kTrtServeVersion, kTrtServe},
      {"trtllm", "--server_role", "CONTEXT or GENERATION server of a disaggregated deployment",
       kTrtServeVersion, kTrtServe},
      {"trtllm", "trtllm-llmapi-launch", "wraps trtllm-serve for multi-node MPI launches", kTrt,
       kTrtDoc},
      {"mpirun", "-np", "MPI processes (GPUs) in all", kMpi, kMpiDoc},
      {"mpirun", "-H", "hosts with slots, in rank order", kMpi, kMpiDoc},
      {"mpirun", "-x", "export an environment variable to every rank", kMpi, kMpiDoc},
      // Dynamo (SGLang backend)
      {"dynamo", "python3 -m dynamo.frontend", "HTTP frontend and router", kDyn, kDynFrontend},
      {"dynamo", "--http-port", "frontend HTTP port", kDyn, kDynFrontend},
      {"dynamo", "python3 -m dynamo.sglang", "SGLang worker; takes SGLang's server arguments", kDyn,
       kDynWorker},
      // NCCL and CUDA
      {"cuda", "CUDA_VISIBLE_DEVICES", "the GPUs of this server the instance runs on", "CUDA 12",
       "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#env-vars"},
      {"nccl", "NCCL_NVLS_ENABLE", "0: no NVLink SHARP collectives", kNccl, kNcclEnv},
      // torchrun
      {"torchrun", "torchrun", "launcher, one per node", kTorch, kTorchRun},
      {"torchrun", "--nnodes", "servers", kTorch, kTorchRun},
      {"torchrun", "--nproc-per-node", "GPUs (ranks) per server", kTorch, kTorchRun},
      {"torchrun", "--node-rank", "this server's index: ranks node_rank x nproc ... ", kTorch,
       kTorchRun},
      {"torchrun", "--master-addr", "address of node rank 0 (static rendezvous)", kTorch,
       kTorchRun},
      {"torchrun", "--master-port", "port on node rank 0", kTorch, kTorchRun},
      {"torchrun", "-m", "run a Python module", kTorch, kTorchRun},
      // Megatron-LM
      {"megatron", "pretrain_gpt.py", "GPT/MoE pretraining entry point", kMeg, gpt},
      {"megatron", "--tensor-model-parallel-size", "tp", kMeg, mpc},
      {"megatron", "--sequence-parallel", "sequence parallelism (with tp)", kMeg, mpc},
      {"megatron", "--context-parallel-size", "cp", kMeg, mpc},
      {"megatron", "--pipeline-model-parallel-size", "pp", kMeg, mpc},
      {"megatron", "--num-virtual-stages-per-pipeline-rank", "vp (interleaved 1F1B)", kMeg, args},
      {"megatron", "--pipeline-model-parallel-layout",
       "layers per pipeline stage when pp x vp does not divide them (sets vp itself)", kMeg, tc},
      {"megatron", "--expert-model-parallel-size", "ep", kMeg, mpc},
      {"megatron", "--expert-tensor-parallel-size", "each expert's TP (etp)", kMeg, mpc},
      {"megatron", "--use-distributed-optimizer", "ZeRO-1: optimizer states sharded over DP", kMeg,
       args},
      {"megatron", "--use-megatron-fsdp", "Megatron FSDP (ZeRO-2/3)", kMeg, common},
      {"megatron", "--overlap-grad-reduce",
       "gradient all-reduce / reduce-scatter overlapped with backward (off by default)", kMeg, ddp},
      {"megatron", "--overlap-param-gather",
       "distributed optimizer's parameter all-gather overlapped with forward (off by default)",
       kMeg, ddp},
      {"megatron", "--data-parallel-sharding-strategy",
       "optim_grads (ZeRO-2) | optim_grads_params (ZeRO-3)", kMeg, args},
      {"megatron", "--recompute-granularity", "full | selective", kMeg, tc},
      {"megatron", "--recompute-method", "uniform", kMeg, tc},
      {"megatron", "--recompute-num-layers", "layers per recomputed chunk", kMeg, tc},
      {"megatron", "--recompute-modules",
       "selective recompute's modules (core_attn moe_act layernorm mla_up_proj mlp moe "
       "shared_experts)",
       kMeg, tc},
      {"megatron", "--fp8-param-gather",
       "FP8 parameters, all-gathered in FP8 (needs the distributed optimizer)", kMeg, args},
      {"megatron", "--bf16", "bf16 training", kMeg, mpc},
      {"megatron", "--grad-reduce-in-bf16",
       "gradients accumulated and reduced in bf16 (default for bf16 training: fp32)", kMeg, args},
      {"megatron", "--fp8-format", "FP8 GEMMs (hybrid: e4m3 forward, e5m2 gradients)", kMeg, tc},
      {"megatron", "--tp-comm-overlap", "TP communication overlapped (userbuffers)", kMeg, mpc},
      {"megatron", "--overlap-moe-expert-parallel-comm",
       "combined 1F1B: EP all-to-all behind another micro-batch's compute (needs vp with pp)", kMeg,
       "https://docs.nvidia.com/megatron-core/developer-guide/nightly/user-guide/features/"
       "moe_a2a_overlap.html (Combined 1F1B: Expert-Parallel All-to-All Overlap)"},
      {"megatron", "--moe-token-dispatcher-type", "alltoall | flex", kMeg, tc},
      {"megatron", "--moe-flex-dispatcher-backend", "deepep", kMeg, tc},
      {"megatron", "--micro-batch-size", "sequences per micro-batch", kMeg, train},
      {"megatron", "--global-batch-size", "sequences per optimizer step", kMeg, train},
      {"megatron", "--seq-length", "tokens per sequence", kMeg, args},
      // torchtitan
      {"torchtitan", "torchtitan.train", "trainer module (torchrun -m)", kTitan, kTitanRun},
      {"torchtitan", "--module", "model family (llama3, deepseek_v3, qwen3)", kTitan, kTitanRun},
      {"torchtitan", "--config", "a config_registry function of the module", kTitan, kTitanRun},
      {"torchtitan", "--parallelism.data_parallel_replicate_degree", "DDP replicas", kTitan,
       kTitanConfigs},
      {"torchtitan", "--parallelism.data_parallel_shard_degree", "FSDP shards", kTitan,
       kTitanConfigs},
      {"torchtitan", "--parallelism.fsdp_reshard_after_forward",
       "never: keep parameters after "
       "forward (ZeRO-2-like)",
       kTitan, kTitanConfigs},
      {"torchtitan", "--parallelism.tensor_parallel_degree", "tp", kTitan, kTitanConfigs},
      {"torchtitan", "--parallelism.context_parallel_degree", "cp", kTitan, kTitanConfigs},
      {"torchtitan", "--parallelism.pipeline_parallel_degree", "pp", kTitan, kTitanConfigs},
      {"torchtitan", "--parallelism.pipeline_parallel_schedule", "1F1B | Interleaved1F1B", kTitan,
       kTitanConfigs},
      {"torchtitan", "--parallelism.num_pp_microbatches", "micro-batches per step", kTitan,
       kTitanConfigs},
      {"torchtitan", "--parallelism.expert_parallel_degree", "ep", kTitan, kTitanConfigs},
      {"torchtitan", "--parallelism.pipeline_parallel_layers_per_stage",
       "layers per (virtual) stage: stages = layers / this, pp x vp of them", kTitanPp,
       kTitanConfigsPp},
      {"torchtitan", "--parallelism.pipeline_parallel_first_stage_less_layers",
       "layers the first stage gives up for the embedding (default 1)", kTitanPp, kTitanConfigsPp},
      {"torchtitan", "--parallelism.pipeline_parallel_last_stage_less_layers",
       "layers the last stage gives up for the output layer (default 1)", kTitanPp,
       kTitanConfigsPp},
      {"torchtitan", "--training.num_tokens_per_microbatch_per_dp_rank",
       "micro-batch tokens (sequences x seq)", kTitan, kTitanConfigs},
      {"torchtitan", "--training.num_tokens_per_train_step", "global batch tokens", kTitan,
       kTitanConfigs},
      {"torchtitan", "--training.max_context_length", "tokens per sequence", kTitan, kTitanConfigs},
  };
}

}  // namespace

const std::vector<LaunchFlag>& launch_flags() {
  static const std::vector<LaunchFlag> table = build();
  return table;
}

std::string_view launch_flag(std::string_view engine, std::string_view flag) {
  for (const LaunchFlag& f : launch_flags())
    if (f.engine == engine && f.flag == flag) return f.flag;
  throw InternalError("launch: no cited flag '" + std::string(flag) + "' for " +
                      std::string(engine));
}

std::vector<std::string> serving_engines() {
  return {"sglang", "vllm", "trtllm", "dynamo"};
}
std::vector<std::string> training_engines() {
  return {"megatron", "torchtitan"};
}

}  // namespace topoplan::report
