// `plan --mode train --emit megatron|torchtitan`: the training plan as one torchrun command per
// server (launch.hpp, docs/launch.md). torchrun's static rendezvous gives server i the global
// ranks [i*g, (i+1)*g) (g GPUs per server), which is how the planner numbers ranks (tp, cp, dp,
// pp: Megatron-Core's default order), so the plan's groups are the engine's.
#include <sstream>

#include "report/launch.hpp"
#include "report/launch_internal.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

std::string num(double x) {
  std::ostringstream os;
  os.precision(15);
  os << x;
  return os.str();
}

// The plan's layer split when pp x vp chunks do not divide the layers: one more layer on each
// of the first layers mod (pp·vp) chunks (stage_layers gives each pipeline rank the same totals).
// Megatron splits evenly unless told otherwise and asserts the split; its
// --pipeline-model-parallel-layout states any split.
bool uneven_chunks(int layers, const TrainStrategy& s) {
  const int chunks = s.pp * s.vp;
  return chunks > 1 && layers % chunks != 0;
}

std::string uneven_layers_note(int layers, const TrainStrategy& s) {
  if (!uneven_chunks(layers, s)) return "";
  const int chunks = s.pp * s.vp;
  return "# " + std::to_string(layers) + " layers over pp x vp = " + std::to_string(chunks) +
         " chunks: --pipeline-model-parallel-layout gives the first " +
         std::to_string(layers % chunks) +
         " chunks one layer more, as the plan prices them (Megatron's even split refuses " +
         std::to_string(layers) + " layers; the layout also sets the virtual stages, so " +
         "--num-virtual-stages-per-pipeline-rank is left out)\n";
}

void megatron_args(LaunchCommand& c, const TrainPlan& p, const TrainRequest& q, bool moe,
                   int layers, std::string& notes) {
  const char* e = "megatron";
  const TrainStrategy& s = p.strategy;
  c.arg(e, "--tensor-model-parallel-size", std::to_string(s.tp));
  if (s.sp) c.arg(e, "--sequence-parallel");
  if (s.cp > 1) c.arg(e, "--context-parallel-size", std::to_string(s.cp));
  c.arg(e, "--pipeline-model-parallel-size", std::to_string(s.pp));
  // Megatron accepts only one of the layout and the virtual stage count (arguments.py).
  if (uneven_chunks(layers, s))
    c.arg(e, "--pipeline-model-parallel-layout",
          "'" + megatron_pipeline_layout(layers, s.pp, s.vp) + "'");
  else if (s.vp > 1)
    c.arg(e, "--num-virtual-stages-per-pipeline-rank", std::to_string(s.vp));
  if (moe) {
    c.arg(e, "--expert-model-parallel-size", std::to_string(s.ep))
        .arg(e, "--expert-tensor-parallel-size", std::to_string(s.etp));
    if (q.deepep)
      c.arg(e, "--moe-token-dispatcher-type", "flex")
          .arg(e, "--moe-flex-dispatcher-backend", "deepep");
    else
      c.arg(e, "--moe-token-dispatcher-type", "alltoall");
  }
  if (s.zero == 1) c.arg(e, "--use-distributed-optimizer");
  // The step prices DP traffic as overlapped (train_step.cpp); Megatron's defaults are off.
  if (s.zero <= 1 && s.dp * s.cp > 1) c.arg(e, "--overlap-grad-reduce");
  if (s.zero == 1 && s.dp * s.cp > 1) c.arg(e, "--overlap-param-gather");
  if (s.zero >= 2)
    c.arg(e, "--use-megatron-fsdp")
        .arg(e, "--data-parallel-sharding-strategy",
             s.zero == 2 ? "optim_grads" : "optim_grads_params");
  if (s.recompute == Recompute::Full)
    c.arg(e, "--recompute-granularity", "full")
        .arg(e, "--recompute-method", "uniform")
        .arg(e, "--recompute-num-layers", "1");
  if (s.recompute == Recompute::Selective) {
    c.arg(e, "--recompute-granularity", "selective");
    if (s.recompute_modules != kRcCoreAttn) {
      std::string mods;
      for (const std::string& n : recompute_module_names(s.recompute_modules))
        mods += (mods.empty() ? "" : " ") + n;
      c.arg(e, "--recompute-modules", mods);
    }
  }
  c.arg(e, "--bf16");
  if (s.precision == TrainPrecision::FP8) c.arg(e, "--fp8-format", "hybrid");
  if (q.fp8_param_gather && s.precision == TrainPrecision::FP8 && s.zero >= 1)
    c.arg(e, "--fp8-param-gather");
  // Megatron-LM reduces bf16 training's gradients in fp32 unless told otherwise.
  if (grad_bytes_per_param(q) < 4) c.arg(e, "--grad-reduce-in-bf16");
  if (q.tp_comm_overlap && s.sp) c.arg(e, "--tp-comm-overlap");
  if (s.ep_overlap) c.arg(e, "--overlap-moe-expert-parallel-comm");
  c.arg(e, "--micro-batch-size", std::to_string(s.micro_batch))
      .arg(e, "--global-batch-size", std::to_string(q.global_batch))
      .arg(e, "--seq-length", num(q.seq));
  if (s.dualpipe)
    notes +=
        "# DualPipe (--pp-schedule dualpipe): Megatron-LM has no flag for it; the command "
        "runs 1F1B\n";
  if (s.zero == 0) notes += "# ZeRO 0: plain data parallel (no optimizer sharding flag)\n";
  notes += uneven_layers_note(layers, s);
}

std::string titan_module(const std::string& name) {
  if (name.rfind("llama-3", 0) == 0) return "llama3";
  if (name.rfind("deepseek-v3", 0) == 0 || name.rfind("deepseek-r1", 0) == 0) return "deepseek_v3";
  if (name.rfind("qwen3", 0) == 0) return "qwen3";
  return "";
}

void titan_args(LaunchCommand& c, const TrainPlan& p, const TrainRequest& q, const ModelSpec& m,
                std::string& notes) {
  const char* e = "torchtitan";
  const TrainStrategy& s = p.strategy;
  const std::string module = titan_module(m.name);
  if (module.empty())
    notes += "# torchtitan has no module for " + m.name + " in this table: set --module\n";
  c.arg(e, "--module", module.empty() ? "MODULE" : module)
      .arg(e, "--config", "${TORCHTITAN_CONFIG}");
  if (s.zero == 0) {
    c.arg(e, "--parallelism.data_parallel_replicate_degree", std::to_string(s.dp))
        .arg(e, "--parallelism.data_parallel_shard_degree", "1");
  } else {
    c.arg(e, "--parallelism.data_parallel_replicate_degree", "1")
        .arg(e, "--parallelism.data_parallel_shard_degree", std::to_string(s.dp));
    if (s.zero < 3) c.arg(e, "--parallelism.fsdp_reshard_after_forward", "never");
    if (s.zero == 1)
      notes +=
          "# ZeRO 1: torchtitan shards with FSDP2 (no optimizer-only sharding); parameters "
          "are kept after forward, gradients are sharded (ZeRO-2-like)\n";
  }
  c.arg(e, "--parallelism.tensor_parallel_degree", std::to_string(s.tp));
  if (s.tp > 1 && !s.sp)
    notes +=
        "# the plan runs TP without sequence parallelism; torchtitan enables it by default "
        "(parallelism.enable_sequence_parallel in the config)\n";
  if (s.cp > 1) c.arg(e, "--parallelism.context_parallel_degree", std::to_string(s.cp));
  c.arg(e, "--parallelism.pipeline_parallel_degree", std::to_string(s.pp));
  if (s.pp > 1) {
    c.arg(e, "--parallelism.pipeline_parallel_schedule", s.vp > 1 ? "Interleaved1F1B" : "1F1B")
        .arg(e, "--parallelism.num_pp_microbatches", std::to_string(p.micro_batches));
    // pp x vp stages of equal layers, as the plan prices them (torchtitan's default takes one
    // layer off the first and last stages for the embedding and the output layer).
    const int chunks = s.pp * s.vp;
    if (!uneven_chunks(m.layers, s))
      c.arg(e, "--parallelism.pipeline_parallel_layers_per_stage",
            std::to_string(m.layers / chunks))
          .arg(e, "--parallelism.pipeline_parallel_first_stage_less_layers", "0")
          .arg(e, "--parallelism.pipeline_parallel_last_stage_less_layers", "0");
    else
      notes += "# " + std::to_string(m.layers) +
               " layers do not divide into pp x vp = " + std::to_string(chunks) +
               " stages: list each stage's layers in the config (module_fqns_per_model_part), "
               "one more on each of the first " +
               std::to_string(m.layers % chunks) + ", as the plan prices them\n";
  }
  if (m.is_moe()) {
    c.arg(e, "--parallelism.expert_parallel_degree", std::to_string(s.ep));
    if (s.etp > 1)
      notes += "# etp" + std::to_string(s.etp) + ": no expert tensor parallel flag in this table\n";
  }
  c.arg(e, "--training.num_tokens_per_microbatch_per_dp_rank", num(s.micro_batch * q.seq))
      .arg(e, "--training.num_tokens_per_train_step", num(q.global_batch * q.seq))
      .arg(e, "--training.max_context_length", num(q.seq));
  if (s.recompute != Recompute::None)
    notes += std::string("# activation recomputation ") +
             (s.recompute == Recompute::Full ? "full" : "selective") +
             ": pick the policy in the config (torchtitan's activation_checkpoint); no CLI flag\n";
  if (s.precision == TrainPrecision::FP8)
    notes += "# FP8 GEMMs: enable torchtitan's float8 converter in the config (no CLI flag here)\n";
  if (s.recompute == Recompute::Selective && s.recompute_modules != kRcCoreAttn)
    notes +=
        "# selective recompute of Megatron-Core modules: torchtitan's selective policy "
        "checkpoints by op, not by these modules\n";
  if (q.fp8_param_gather && s.precision == TrainPrecision::FP8 && s.zero >= 1)
    notes +=
        "# FP8 parameter gathers: torchtitan's float8 enable_fsdp_float8_all_gather in the "
        "config\n";
  // torchtitan's FSDP2 reduces gradients in training.mixed_precision_reduce (float32 default;
  // some versions accept only float32, so no flag is printed).
  if (grad_bytes_per_param(q) < 4)
    notes +=
        "# --grad-reduce bf16: set training.mixed_precision_reduce = \"bfloat16\" in the config "
        "where the torchtitan version accepts it (the default and some versions' only value is "
        "float32)\n";
  if (s.dualpipe)
    notes += "# DualPipe: no torchtitan schedule in this table; the command runs 1F1B\n";
  if (s.ep_overlap)
    notes +=
        "# --ep-overlap is Megatron-Core's combined 1F1B; torchtitan runs the all-to-all "
        "exposed\n";
}

}  // namespace

// Megatron-Core's layout string (megatron/core/transformer/pipeline_parallel_layer_layout.py,
// parse_str_to_list; docs/user-guide/features/pipeline_parallel_layout.md): stages in model order
// split by '|' (stage i runs on pipeline rank i mod pp, virtual stage i / pp), 'E' the embedding
// on the first, 'L' the loss on the last, 't' one decoder layer; "(x|)*n" repeats n stages and
// "t*n" n layers. Runs of equal stages are written once.
std::string megatron_pipeline_layout(int layers, int pp, int vp) {
  const int chunks = pp * vp;
  if (layers < 0 || chunks < 1)
    throw InternalError("pipeline layout of " + std::to_string(layers) + " layers over " +
                        std::to_string(chunks));
  const int base = layers / chunks, rem = layers % chunks;
  auto stage = [&](int i) {
    const int n = base + (i < rem ? 1 : 0);
    std::string body =
        n <= 2 ? std::string(static_cast<std::size_t>(n), 't') : "t*" + std::to_string(n);
    return (i == 0 ? "E" : "") + body + (i == chunks - 1 ? "L" : "");
  };
  std::string out;
  for (int i = 0;;) {
    const std::string x = stage(i);
    int j = i + 1;
    while (j < chunks - 1 && stage(j) == x) ++j;  // the last stage (with L) ends every run
    if (i == chunks - 1) return out + x;
    out += j - i > 1 ? "(" + x + "|)*" + std::to_string(j - i) : x + "|";
    i = j;
  }
}

std::string emit_training(std::string_view engine, const ModelSpec& model,
                          const TrainingResult& r) {
  const auto engines = training_engines();
  if (engine != "megatron" && engine != "torchtitan")
    throw UnknownNameError("engine", std::string(engine), engines);
  if (r.plans.empty() || !r.plans.front().fits || r.placement.empty())
    throw InputError("--emit", "", "no training plan fits: nothing to launch");
  const TrainPlan& p = r.plans.front();
  // Servers and GPUs per server from the placement (rank order).
  std::vector<LaunchSlot> slots;
  for (const TrainRank& t : r.placement) slots.push_back({t.node, t.local_gpu});
  const LaunchNodes shown = launch_nodes(slots);
  const int per_node = static_cast<int>(shown.gpus.front().size());
  const int nnodes = r.gpus / per_node;
  std::string out = "# " + r.model + " on " + r.topology + ": " + describe(p.strategy) + ", " +
                    std::to_string(r.gpus) + " GPUs on " + std::to_string(nnodes) +
                    (nnodes == 1 ? " server" : " servers") + "\n";
  std::string version, torchrun;
  for (const LaunchFlag& f : launch_flags()) {
    if (f.engine == engine && version.empty()) version = std::string(f.version);
    if (f.engine == "torchrun" && torchrun.empty()) torchrun = std::string(f.version);
  }
  out += "# flags as of " + version + "; torchrun of " + torchrun +
         " (docs/launch.md cites each flag's source)\n";
  if (nnodes > 1)
    out += "# set N<i>_ADDR to the address of server n<i> of the topology before running\n";
  out += "# rank layout (tp fastest, then cp, dp, pp; server i runs ranks i*" +
         std::to_string(per_node) + " ...):\n" + layout_comment(shown);
  if (r.placement_ranks > static_cast<int>(r.placement.size()))
    out += "#   ... (" + std::to_string(r.placement_ranks - static_cast<int>(r.placement.size())) +
           " more ranks, same pattern)\n";
  if (!shown.contiguous)
    out += "# note: the plan's placement is not one contiguous block of ranks per server\n";
  std::string notes;
  const int first = shown.nodes.front();
  for (int i = 0; i < nnodes; ++i) {
    if (nnodes > 4 && i >= 2 && i < nnodes - 1) {
      if (i == 2)
        out += "# ... servers n" + std::to_string(first + 2) + " to n" +
               std::to_string(first + nnodes - 2) + ": the same with their --node-rank\n";
      continue;
    }
    LaunchCommand c("torchrun", "torchrun");
    c.arg("torchrun", "--nnodes", std::to_string(nnodes))
        .arg("torchrun", "--nproc-per-node", std::to_string(per_node));
    if (nnodes > 1)
      c.arg("torchrun", "--node-rank", std::to_string(i))
          .arg("torchrun", "--master-addr", node_addr(first))
          .arg("torchrun", "--master-port", "29500");
    notes.clear();
    if (engine == "megatron") {
      c.positional(std::string(launch_flag("megatron", "pretrain_gpt.py")));
      megatron_args(c, p, r.request, model.is_moe(), model.layers, notes);
    } else {
      c.arg("torchrun", "-m", std::string(launch_flag("torchtitan", "torchtitan.train")));
      titan_args(c, p, r.request, model, notes);
    }
    if (nnodes > 1) out += "# on n" + std::to_string(first + i) + "\n";
    out += c.str();
  }
  out += notes;
  if (engine == "megatron")
    out +=
        "# model shape (--num-layers, --hidden-size, ...), tokenizer and data flags are "
        "the model's and yours to add\n";
  return out;
}

}  // namespace topoplan::report
