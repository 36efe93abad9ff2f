// `plan --emit sglang|vllm|trtllm|dynamo`: the serving plan as engine command lines
// (launch.hpp, docs/launch.md). One instance per data-parallel replica of the plan (each its own
// server process group; a router or load balancer in front of them is the user's), per server
// for an instance spanning servers, one block per pool for a disaggregated plan.
#include <cmath>
#include <map>
#include <sstream>

#include "report/launch.hpp"
#include "report/launch_internal.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

// One pool of the plan: its strategy, the batch it runs at and where its ranks are.
struct Pool {
  std::string role;  // "" (aggregated), "prefill", "decode"
  Strategy s;
  double batch = 0;                               // sequences in flight, all replicas
  std::vector<std::vector<LaunchSlot>> replicas;  // per replica, ranks tp fastest, then pp
};

// The serving settings every engine maps (from the request, the model and the plan).
struct Settings {
  std::string model_path;
  bool moe = false, kv_fp8 = false, cuda_graphs = true, nvls = false, deepep = true;
  std::string
      quantize;  // "fp8", ... when --precision asked for other weights than the checkpoint's
  std::string kv_dtype;
  int chunk = 8192, redundant = 0, mtp_draft = 0;
  double mem_util = 0.9;
};

int ceil_int(double x) {
  return static_cast<int>(std::ceil(x - 1e-9));
}

// Sequences one instance (replica) holds, and one scheduler of it (an attention-DP rank).
int instance_batch(const Pool& p) {
  return std::max(1, ceil_int(p.batch / p.s.dp));
}
int rank_batch(const Pool& p) {
  const int b = instance_batch(p);
  return p.s.attention_dp ? std::max(1, ceil_int(static_cast<double>(b) / p.s.tp)) : b;
}

Settings settings_of(const ServeLaunch& in, const std::string& kv_dtype) {
  Settings s;
  const ModelSpec& m = *in.model;
  s.model_path = model_path_of(m.sources, m.name);
  s.moe = m.is_moe();
  s.kv_dtype = kv_dtype;
  s.kv_fp8 = kv_dtype.rfind("fp8", 0) == 0;
  s.cuda_graphs = in.request.cuda_graphs;
  s.nvls = in.request.nvls;
  s.deepep = in.request.moe_comm == MoeComm::DeepEP;
  s.quantize = in.precision;
  s.chunk = static_cast<int>(in.request.prefill_chunk);
  s.redundant = m.moe.redundant_experts;
  s.mtp_draft = in.request.mtp_accept > 0 ? in.request.mtp_draft : 0;
  s.mem_util = in.request.mem_util;
  return s;
}

std::string num(double x) {
  std::ostringstream os;
  os << x;
  return os.str();
}

// The plan's placement of the best plan as replicas of engine-ordered ranks.
Pool pool_from_placement(const Placement& pl, double batch) {
  Pool p;
  p.s = pl.strategy;
  p.batch = batch;
  p.replicas.assign(static_cast<std::size_t>(p.s.dp),
                    std::vector<LaunchSlot>(static_cast<std::size_t>(p.s.tp * p.s.pp)));
  for (const RankPlacement& r : pl.ranks)
    p.replicas[static_cast<std::size_t>(r.dp_rank)]
              [static_cast<std::size_t>(r.tp_rank + p.s.tp * r.pp_rank)] = {r.node, r.local_gpu};
  return p;
}

// A pool of a disaggregated plan: `first` GPUs of the topology (in its order) come before it;
// ranks in tp-pp-dp order (disagg.cpp prices replica 0 on the pool's first GPUs).
Pool pool_from_range(const std::string& role, const DisaggPool& dp, int first, int per_node) {
  Pool p;
  p.role = role;
  p.s = dp.strategy;
  p.batch = dp.batch;
  const int per_replica = p.s.tp * p.s.pp;
  for (int d = 0; d < p.s.dp; ++d) {
    std::vector<LaunchSlot> ranks;
    for (int r = 0; r < per_replica; ++r) {
      const int g = first + d * per_replica + r;
      ranks.push_back({g / per_node, g % per_node});
    }
    p.replicas.push_back(std::move(ranks));
  }
  return p;
}

std::string replica_header(const Pool& p, std::size_t d, const LaunchNodes& n) {
  std::string role = p.role.empty() ? "" : p.role + " ";
  std::string out =
      "# " + role + "instance " + std::to_string(d) + " (replica " + std::to_string(d) + " of " +
      std::to_string(p.s.dp) + "): " + std::to_string(p.s.tp * p.s.pp) +
      (p.s.tp * p.s.pp == 1 ? " GPU on " : " GPUs on ") + std::to_string(n.nodes.size()) +
      (n.nodes.size() == 1 ? " server" : " servers") + "\n" + layout_comment(n);
  if (!n.contiguous)
    out +=
        "# note: the engine gives each server a contiguous block of ranks; the plan's placement "
        "interleaves servers, so the engine's groups differ from the plan's\n";
  return out;
}

// Past four replicas only the first two and the last are written out; true for the ones left
// out (the first of them adds one comment saying so).
bool elided(const Pool& p, std::size_t d, std::string& out) {
  const std::size_t n = p.replicas.size();
  if (n <= 4 || d < 2 || d + 1 == n) return false;
  if (d == 2)
    out += "# ... " + p.role + (p.role.empty() ? "" : " ") + "instances 2 to " +
           std::to_string(n - 2) + ": the same on their own GPUs (the plan's placement)\n";
  return true;
}

// ---- SGLang (and Dynamo's SGLang worker) ------------------------------------------------------

// The SGLang server arguments of one server of one instance.
void sglang_args(LaunchCommand& c, const Pool& p, const Settings& s, const LaunchNodes& n,
                 std::size_t node_index, int port, std::string& notes) {
  const char* e = "sglang";
  c.arg(e, "--model-path", s.model_path).arg(e, "--tp-size", std::to_string(p.s.tp));
  if (p.s.pp > 1) c.arg(e, "--pp-size", std::to_string(p.s.pp));
  if (p.s.attention_dp)
    c.arg(e, "--dp-size", std::to_string(p.s.tp)).arg(e, "--enable-dp-attention");
  if (s.moe && p.s.ep > 1) c.arg(e, "--ep-size", std::to_string(p.s.ep));
  if (s.moe && p.s.attention_dp && p.s.ep == p.s.tp) {
    if (s.deepep) {
      c.arg(e, "--moe-a2a-backend", "deepep");
      if (p.role == "prefill") c.arg(e, "--deepep-mode", "normal");
      if (p.role == "decode") c.arg(e, "--deepep-mode", "low_latency");
    } else {
      notes +=
          "# MoE tokens all-gathered and reduce-scattered: SGLang's default "
          "(--moe-a2a-backend none)\n";
    }
  }
  if (s.redundant > 0) c.arg(e, "--ep-num-redundant-experts", std::to_string(s.redundant));
  if (s.kv_fp8) c.arg(e, "--kv-cache-dtype", "fp8_e4m3");
  if (!s.quantize.empty()) {
    if (s.quantize == "fp8")
      c.arg(e, "--quantization", "fp8");
    else
      notes += "# weights " + s.quantize +
               ": serve a checkpoint already quantized to it (no on-load flag emitted)\n";
  }
  c.arg(e, "--chunked-prefill-size", std::to_string(s.chunk));
  c.arg(e, "--max-running-requests", std::to_string(instance_batch(p)));
  if (p.role != "prefill") {
    if (s.cuda_graphs)
      c.arg(e, "--cuda-graph-max-bs", std::to_string(rank_batch(p)));
    else
      c.arg(e, "--disable-cuda-graph");
  }
  c.arg(e, "--mem-fraction-static", num(s.mem_util));
  if (s.nvls) c.arg(e, "--enable-nccl-nvls");
  if (s.mtp_draft > 0 && p.role != "prefill")
    c.arg(e, "--speculative-algorithm", "EAGLE")
        .arg(e, "--speculative-num-steps", std::to_string(s.mtp_draft))
        .arg(e, "--speculative-eagle-topk", "1")
        .arg(e, "--speculative-num-draft-tokens", std::to_string(s.mtp_draft + 1));
  if (n.nodes.size() > 1)
    c.arg(e, "--nnodes", std::to_string(n.nodes.size()))
        .arg(e, "--node-rank", std::to_string(node_index))
        .arg(e, "--dist-init-addr", node_addr(n.nodes.front()) + ":5000");
  if (!p.role.empty())
    c.arg(e, "--disaggregation-mode", p.role).arg(e, "--disaggregation-transfer-backend", "nixl");
  if (port > 0) c.arg(e, "--port", std::to_string(port));
}

// Ports: the first instance on a server keeps the engine's default, the next get base + 1, ...
int port_for(std::map<int, int>& used, int node, int base) {
  const int k = used[node]++;
  return k == 0 ? 0 : base + k;
}

std::string sglang_pool(const Pool& p, const Settings& s, bool dynamo, std::map<int, int>& used) {
  std::string out;
  for (std::size_t d = 0; d < p.replicas.size(); ++d) {
    const LaunchNodes n = launch_nodes(p.replicas[d]);
    const int port = port_for(used, n.nodes.front(), 30000);  // counted for elided ones too
    if (elided(p, d, out)) continue;
    out += replica_header(p, d, n);
    std::string notes;
    for (std::size_t i = 0; i < n.nodes.size(); ++i) {
      LaunchCommand c(dynamo ? "dynamo" : "sglang",
                      dynamo ? "python3 -m dynamo.sglang" : "python3 -m sglang.launch_server");
      const std::string visible = visible_devices(n.gpus[i]);
      if (!visible.empty()) c.env("cuda", "CUDA_VISIBLE_DEVICES", visible);
      notes.clear();
      sglang_args(c, p, s, n, i, port, notes);
      if (n.nodes.size() > 1) out += "# on n" + std::to_string(n.nodes[i]) + "\n";
      out += c.str();
    }
    out += notes;
  }
  return out;
}

// ---- vLLM --------------------------------------------------------------------------------------

std::string vllm_pool(const Pool& p, const Settings& s, std::map<int, int>& used) {
  const char* e = "vllm";
  std::string out;
  const bool ep_all = s.moe && p.s.ep == p.s.tp && p.s.ep > 1;
  for (std::size_t d = 0; d < p.replicas.size(); ++d) {
    const LaunchNodes n = launch_nodes(p.replicas[d]);
    const int port = port_for(used, n.nodes.front(), 8000);  // counted for elided ones too
    if (elided(p, d, out)) continue;
    out += replica_header(p, d, n);
    std::string notes;
    if (s.moe && p.s.ep > 1 && p.s.ep < p.s.tp)
      notes += "# ep" + std::to_string(p.s.ep) + " < tp" + std::to_string(p.s.tp) +
               ": vLLM's expert parallel size is always TP x DP; no flag splits experts " +
               std::to_string(p.s.tp / p.s.ep) +
               " ways inside EP groups (experts stay TP-sharded)\n";
    if (s.mtp_draft > 0 && p.role != "prefill")
      notes += "# speculative decoding (" + std::to_string(s.mtp_draft) +
               " draft tokens): no cited vLLM flag here; see docs/launch.md\n";
    if (s.cuda_graphs && p.role != "prefill")
      notes += "# CUDA graphs on (vLLM's default): the plan assumes batches up to " +
               std::to_string(rank_batch(p)) + " per engine are captured\n";
    if (!s.quantize.empty() && s.quantize != "fp8")
      notes += "# weights " + s.quantize + ": serve a checkpoint already quantized to it\n";
    const bool dp_nodes = p.s.attention_dp && n.nodes.size() > 1;
    if (n.nodes.size() > 1 && !p.s.attention_dp)
      notes += "# TP/PP across servers: start a Ray cluster over n" +
               std::to_string(n.nodes.front()) +
               " (head) and the others, then run the command above on the head only\n";
    const std::size_t commands = dp_nodes ? n.nodes.size() : 1;
    const int per_node = static_cast<int>(n.gpus.front().size());
    for (std::size_t i = 0; i < commands; ++i) {
      LaunchCommand c(e, "vllm serve");
      if (!s.nvls) c.env("nccl", "NCCL_NVLS_ENABLE", "0");
      if (commands > 1 || n.nodes.size() == 1) {
        const std::string visible = visible_devices(n.gpus[i]);
        if (!visible.empty()) c.env("cuda", "CUDA_VISIBLE_DEVICES", visible);
      }
      c.positional(s.model_path);
      if (p.s.attention_dp && s.moe) {
        c.arg(e, "--tensor-parallel-size", "1")
            .arg(e, "--data-parallel-size", std::to_string(p.s.tp));
      } else {
        c.arg(e, "--tensor-parallel-size", std::to_string(p.s.tp));
      }
      if (p.s.pp > 1) c.arg(e, "--pipeline-parallel-size", std::to_string(p.s.pp));
      if (ep_all) {
        c.arg(e, "--enable-expert-parallel");
        if (p.s.attention_dp) {
          const char* backend = !s.deepep             ? "allgather_reducescatter"
                                : p.role == "prefill" ? "deepep_high_throughput"
                                                      : "deepep_low_latency";
          c.arg(e, "--all2all-backend", backend);
        }
      }
      if (s.redundant > 0)
        c.arg(e, "--enable-eplb")
            .arg(e, "--eplb-config",
                 "'{\"num_redundant_experts\":" + std::to_string(s.redundant) + "}'");
      if (s.kv_fp8) c.arg(e, "--kv-cache-dtype", "fp8");
      if (s.quantize == "fp8") c.arg(e, "--quantization", "fp8");
      c.arg(e, "--enable-chunked-prefill")
          .arg(e, "--max-num-batched-tokens", std::to_string(s.chunk));
      c.arg(e, "--max-num-seqs", std::to_string(rank_batch(p)));
      if (!s.cuda_graphs && p.role != "prefill") c.arg(e, "--enforce-eager");
      c.arg(e, "--gpu-memory-utilization", num(s.mem_util));
      if (dp_nodes) {
        c.arg(e, "--data-parallel-size-local", std::to_string(per_node));
        if (i > 0)
          c.arg(e, "--data-parallel-start-rank", std::to_string(per_node * static_cast<int>(i)));
        c.arg(e, "--data-parallel-address", node_addr(n.nodes.front()))
            .arg(e, "--data-parallel-rpc-port", "13345");
        if (i > 0) c.arg(e, "--headless");
      } else if (n.nodes.size() > 1) {
        c.arg(e, "--distributed-executor-backend", "ray");
      }
      if (!p.role.empty())
        c.arg(e, "--kv-transfer-config",
              "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'");
      if (port > 0 && i == 0) c.arg(e, "--port", std::to_string(port));
      if (n.nodes.size() > 1) out += "# on n" + std::to_string(n.nodes[i]) + "\n";
      out += c.str();
    }
    out += notes;
  }
  return out;
}

// ---- TensorRT-LLM ------------------------------------------------------------------------------

// The key under its section of a cited "section.key" YAML option.
std::string yaml_key(std::string_view engine, std::string_view dotted) {
  const std::string_view f = launch_flag(engine, dotted);
  return std::string(f.substr(f.find('.') + 1));
}

std::string trtllm_pool(const Pool& p, const Settings& s, std::map<int, int>& used) {
  const char* e = "trtllm";
  const std::string file = "trtllm" + (p.role.empty() ? "" : "-" + p.role) + ".yaml";
  std::string yaml;
  std::string notes;
  if (p.s.attention_dp) yaml += std::string(launch_flag(e, "enable_attention_dp")) + ": true\n";
  if (p.role != "prefill") {
    if (s.cuda_graphs) {
      yaml += "cuda_graph_config:\n  " + yaml_key(e, "cuda_graph_config.enable_padding") +
              ": true\n  " + yaml_key(e, "cuda_graph_config.max_batch_size") + ": " +
              std::to_string(rank_batch(p)) + "\n";
    } else {
      notes +=
          "# CUDA graphs off: the plan assumes eager decode; no cuda_graph_config is written "
          "(check your version's default)\n";
    }
  }
  if (s.kv_fp8) yaml += "kv_cache_config:\n  " + yaml_key(e, "kv_cache_config.dtype") + ": fp8\n";
  if (s.moe && p.s.attention_dp && p.s.ep == p.s.tp) {
    if (s.deepep)
      notes +=
          "# MoE all-to-all (the plan's DeepEP traffic): TensorRT-LLM chooses its MoE "
          "communication itself; its wide-EP backend (" +
          std::string(launch_flag(e, "moe_config.backend")) +
          ": WIDEEP) is listed for GB200 NVL72 only, so no key is written\n";
    else
      notes +=
          "# MoE tokens all-gathered and reduce-scattered: what TensorRT-LLM does when "
          "ep <= top-k (no key written)\n";
  }
  if (s.mtp_draft > 0 && p.role != "prefill")
    yaml += "speculative_config:\n  " + yaml_key(e, "speculative_config.decoding_type") +
            ": MTP\n  " + yaml_key(e, "speculative_config.num_nextn_predict_layers") + ": " +
            std::to_string(s.mtp_draft) + "\n";
  if (s.redundant > 0)
    notes += "# " + std::to_string(s.redundant) +
             " redundant experts: TensorRT-LLM's load balancer (moe_config) is not emitted\n";
  if (!s.quantize.empty())
    notes += "# weights " + s.quantize + ": serve a checkpoint quantized to it (ModelOpt)\n";
  notes += "# memory: the plan uses " + num(s.mem_util) +
           " of HBM; --kv_cache_free_gpu_memory_fraction is a fraction of what is left after the "
           "weights, so it is left at TensorRT-LLM's default\n";
  std::string out;
  if (!yaml.empty()) out += "cat > " + file + " <<'EOF'\n" + yaml + "EOF\n";
  for (std::size_t d = 0; d < p.replicas.size(); ++d) {
    const LaunchNodes n = launch_nodes(p.replicas[d]);
    const int port = port_for(used, n.nodes.front(), 8000);  // counted for elided ones too
    if (elided(p, d, out)) continue;
    out += replica_header(p, d, n);
    LaunchCommand c(e, "trtllm-serve");
    const int per_node = static_cast<int>(n.gpus.front().size());
    if (n.nodes.size() > 1) {
      std::string hosts;
      for (const int node : n.nodes)
        hosts += (hosts.empty() ? "" : ",") + node_addr(node) + ":" + std::to_string(per_node);
      std::string launcher = "mpirun " + std::string(launch_flag("mpirun", "-H")) + " " + hosts +
                             " " + std::string(launch_flag("mpirun", "-np")) + " " +
                             std::to_string(p.s.tp * p.s.pp);
      if (!s.nvls)
        launcher += " " + std::string(launch_flag("mpirun", "-x")) + " NCCL_NVLS_ENABLE=0";
      c.prefix(launcher + " " + std::string(launch_flag(e, "trtllm-llmapi-launch")));
    } else {
      if (!s.nvls) c.env("nccl", "NCCL_NVLS_ENABLE", "0");
      const std::string visible = visible_devices(n.gpus.front());
      if (!visible.empty()) c.env("cuda", "CUDA_VISIBLE_DEVICES", visible);
    }
    c.positional(s.model_path).arg(e, "--tp_size", std::to_string(p.s.tp));
    if (p.s.pp > 1) c.arg(e, "--pp_size", std::to_string(p.s.pp));
    if (s.moe) c.arg(e, "--ep_size", std::to_string(p.s.ep));
    c.arg(e, "--max_batch_size", std::to_string(rank_batch(p)))
        .arg(e, "--max_num_tokens", std::to_string(s.chunk))
        .arg(e, "--enable_chunked_prefill");
    if (n.nodes.size() > 1) c.arg(e, "--gpus_per_node", std::to_string(per_node));
    if (!yaml.empty()) c.arg(e, "--extra_llm_api_options", file);
    if (!p.role.empty()) c.arg(e, "--server_role", p.role == "prefill" ? "CONTEXT" : "GENERATION");
    if (port > 0) c.arg(e, "--port", std::to_string(port));
    out += c.str();
  }
  return out + notes;
}

std::string pool_block(std::string_view engine, const Pool& p, const Settings& s,
                       std::map<int, int>& used) {
  if (engine == "sglang") return sglang_pool(p, s, false, used);
  if (engine == "dynamo") return sglang_pool(p, s, true, used);
  if (engine == "vllm") return vllm_pool(p, s, used);
  return trtllm_pool(p, s, used);
}

void check_engine(std::string_view engine) {
  for (const std::string& e : serving_engines())
    if (e == engine) return;
  throw UnknownNameError("engine", std::string(engine), serving_engines());
}

std::string preamble(std::string_view engine, const std::string& what, bool multi_node) {
  std::string version;
  for (const LaunchFlag& f : launch_flags())
    if (f.engine == engine) {
      version = std::string(f.version);
      break;
    }
  std::string out =
      "# " + what + "\n# flags as of " + version + " (docs/launch.md cites each flag's source)\n";
  if (multi_node)
    out += "# set N<i>_ADDR to the address of server n<i> of the topology before running\n";
  return out;
}

bool spans_nodes(const std::vector<Pool>& pools) {
  for (const Pool& p : pools)
    for (const auto& r : p.replicas)
      for (const LaunchSlot& s : r)
        if (s.node != r.front().node) return true;
  return false;
}

std::string emit_pools(std::string_view engine, const std::vector<Pool>& pools, const Settings& s,
                       const std::string& what) {
  std::string out = preamble(engine, what, spans_nodes(pools));
  if (engine == "dynamo") {
    LaunchCommand f("dynamo", "python3 -m dynamo.frontend");
    f.arg("dynamo", "--http-port", "8000");
    out +=
        "# the frontend (HTTP, router); etcd and NATS must be running (Dynamo's docs)\n" + f.str();
  }
  if (engine == "sglang" || engine == "dynamo")
    if (!s.nvls)
      out += "# NVLS off: SGLang sets NCCL_NVLS_ENABLE=0 itself unless --enable-nccl-nvls\n";
  std::map<int, int> used;
  for (const Pool& p : pools) out += pool_block(engine, p, s, used);
  if (pools.size() == 1 && pools.front().replicas.size() > 1)
    out += "# " + std::to_string(pools.front().replicas.size()) +
           " replicas: put a load balancer (or the engine's router) in front of the instances\n";
  if (pools.size() > 1 && engine != "dynamo")
    out +=
        "# prefill and decode instances are paired by the engine's disaggregation router "
        "(not emitted)\n";
  return out;
}

}  // namespace

std::string emit_serving(std::string_view engine, const ServeLaunch& in, const PlanOutput& out) {
  check_engine(engine);
  if (out.plans.empty() || !out.plans.front().fits || !out.placement)
    throw InputError("--emit", "", "no plan fits: nothing to launch");
  const PlanResult& best = out.plans.front();
  const Pool pool = pool_from_placement(*out.placement, best.batch);
  const std::string what = out.model + " on " + out.topology + ": " + label(pool.s, out.moe) +
                           ", batch " + num(best.batch) + " (" +
                           std::string(to_string(in.request.mode)) + ")";
  return emit_pools(engine, {pool}, settings_of(in, out.kv_dtype), what);
}

std::string emit_serving_disagg(std::string_view engine, const ServeLaunch& in,
                                const DisaggOutput& out) {
  check_engine(engine);
  if (!out.best) throw InputError("--emit", "", "no split fits: nothing to launch");
  const DisaggResult& b = *out.best;
  const int per_node = out.nodes > 0 ? out.gpus / out.nodes : out.gpus;
  const std::vector<Pool> pools = {pool_from_range("prefill", b.prefill, 0, per_node),
                                   pool_from_range("decode", b.decode, b.prefill.gpus, per_node)};
  const std::string what = out.model + " on " + out.topology + ", disaggregated " + b.ratio +
                           ": prefill " + label(b.prefill.strategy, in.model->is_moe()) +
                           ", decode " + label(b.decode.strategy, in.model->is_moe());
  return emit_pools(engine, pools,
                    settings_of(in, std::string(to_string(in.model->dtypes.kv_cache))), what);
}

}  // namespace topoplan::report
