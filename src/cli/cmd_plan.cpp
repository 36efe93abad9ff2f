// `topoplan plan`: flags here, the search in plan/, text and JSON in report/plan_report.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "cli/calibration_option.hpp"
#include "cli/commands.hpp"
#include "cli/csv_option.hpp"
#include "cli/keep_until_exit.hpp"
#include "cli/mode_flags.hpp"
#include "cli/model_options.hpp"
#include "cli/option_groups.hpp"
#include "cli/plan_train.hpp"
#include "cli/progress_bar.hpp"
#include "cli/topology_options.hpp"
#include "report/chart_views.hpp"
#include "report/diagram_overlay.hpp"
#include "report/disagg_report.hpp"
#include "report/html_report.hpp"
#include "report/launch.hpp"
#include "report/plan_report.hpp"
#include "topoplan/disagg.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"
#include "topoplan/plan.hpp"

namespace topoplan::cli {

namespace {

struct PlanArgs {
  std::string model = "deepseek-r1";
  TopologyOptions topo{.topology = "hgx-h20-8", .cluster = {}};
  std::string mode = "serve", workload = "steady", fp8_block_gemm = "auto", placement = "tp-pp-dp",
              max_tp_class, cuda_graphs = "on", nvls, moe_comm, engine, two_batch_overlap = "off";
  std::optional<int> tp, pp, dp, ep;
  std::optional<bool> attention_dp;
  PlanRequest req;
  PrecisionOptions precision;
  TrainFlags train;
  bool json = false;
  std::string calibration;
  std::string render, color_by = "tp";  // --render FILE: the best plan drawn on the topology
  std::string chart;                    // --chart FILE: the Pareto front
  std::string html;                     // --html FILE: the self-contained report page
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  bool quiet = false;
  bool placement_detail = false;      // --placement-detail: every rank in --json however many
  bool disagg = false;                // --disagg: prefill and decode on separate pools (disagg.hpp)
  std::string decode_server;          // --decode-server: the decode pool's own kind of server
  std::string kv_transfer = "after";  // --kv-transfer after | layerwise
  std::optional<int> redundant_experts, ep_slots;  // MoeSpec::redundant_experts
  DisaggRequest pools;
  std::string emit;  // --emit ENGINE: the launch commands of the best plan (docs/launch.md)
  CsvOption csv;     // --csv [FILE]: one row per ranked strategy
};

// --emit prints the commands on stdout: nothing else may go there.
void check_emit(const PlanArgs& a) {
  if (a.emit.empty()) return;
  if (a.json || a.csv.to_stdout())
    throw InputError("--emit", "",
                     "prints the launch commands on stdout; drop --json, or give --csv a FILE");
  // The engine is checked before the search, which may take a while.
  const bool train = a.mode == "train";
  const std::vector<std::string> known =
      train ? report::training_engines() : report::serving_engines();
  if (std::find(known.begin(), known.end(), a.emit) == known.end())
    throw UnknownNameError(train ? "training engine" : "serving engine", a.emit, known);
}

// The weight precision --precision forces on the checkpoint ("" when none or the same).
std::string forced_precision(const PlanArgs& a, const ModelSpec& m) {
  if (a.precision.precision.empty()) return "";
  return load_model(a.model).dtypes.weights.dtype == m.dtypes.weights.dtype ? ""
                                                                            : a.precision.precision;
}

template <typename Print>
std::string printed(Print&& print) {
  std::ostringstream os;
  print(os);
  return os.str();
}

// What --engine sets for serving when the flag itself is not given (docs/planner.md, "Engine
// profiles"). No engine: SGLang's settings, the planner's defaults since issue 14.
struct EngineDefaults {
  std::string nvls = "off", moe_comm = "deepep";
};
EngineDefaults serving_engine(const std::string& engine) {
  // SGLang sets NCCL_NVLS_ENABLE=0 unless --enable-nccl-nvls, and runs the attention-DP MoE
  // all-to-all with --moe-a2a-backend deepep.
  if (engine.empty() || engine == "sglang") return {};
  // vLLM leaves NCCL's own default (NVLS on where the hardware has it); its MoE all-to-all
  // backend differs by version (--all2all-backend): the planner keeps DeepEP's traffic unless
  // --moe-comm says otherwise.
  if (engine == "vllm") return {.nvls = "on", .moe_comm = "deepep"};
  // TensorRT-LLM leaves NCCL's default; its PyTorch backend all-gathers MoE tokens and
  // reduce-scatters the outputs when the EP size is at most top-k (select_alltoall_method_type).
  if (engine == "trtllm") return {.nvls = "on", .moe_comm = "allgather"};
  throw UnknownNameError("engine", engine, {"sglang", "vllm", "trtllm"});
}

// The request from the flags (shared with `compare`, which plans several designs with it).
PlanRequest finish_request(PlanArgs& a) {
  a.req.mode = parse_plan_mode(a.mode);
  a.req.workload = parse_plan_workload(a.workload);
  // The requests in flight are the batch the plans run at; a different --batch is refused by
  // PlanRequest::validate, naming it.
  if (a.req.workload == PlanWorkload::Closed && a.req.batch == 0) a.req.batch = a.req.concurrency;
  a.req.fp8_block_gemm = parse_fp8_block_gemm(a.fp8_block_gemm);
  a.req.order = parse_placement_order(a.placement);
  if (!a.max_tp_class.empty()) a.req.max_tp_class = parse_path_class(a.max_tp_class);
  a.req.tp = a.tp;
  a.req.pp = a.pp;
  a.req.dp = a.dp;
  a.req.ep = a.ep;
  a.req.attention_dp = a.attention_dp;
  if (a.cuda_graphs != "on" && a.cuda_graphs != "off")
    throw InputError("--cuda-graphs", "", "expected 'on' or 'off', got '" + a.cuda_graphs + "'");
  a.req.cuda_graphs = a.cuda_graphs == "on";
  if (a.two_batch_overlap != "on" && a.two_batch_overlap != "off")
    throw InputError("--two-batch-overlap", "",
                     "expected 'on' or 'off', got '" + a.two_batch_overlap + "'");
  a.req.two_batch_overlap = a.two_batch_overlap == "on";
  const EngineDefaults d = serving_engine(a.engine);
  const std::string nvls = a.nvls.empty() ? d.nvls : a.nvls;
  if (nvls != "on" && nvls != "off")
    throw InputError("--nvls", "", "expected 'on' or 'off', got '" + nvls + "'");
  a.req.nvls = nvls == "on";
  a.req.moe_comm = parse_moe_comm(a.moe_comm.empty() ? d.moe_comm : a.moe_comm);
  return a.req;
}

// --redundant-experts N or --ep-slots S (= experts + N) on an MoE model (MoeSpec).
void apply_expert_slots(const PlanArgs& a, ModelSpec& m) {
  if (!a.redundant_experts && !a.ep_slots) return;
  const char* flag = a.ep_slots ? "--ep-slots" : "--redundant-experts";
  if (a.redundant_experts && a.ep_slots)
    throw InputError("--ep-slots", "", "give --ep-slots or --redundant-experts, not both");
  if (!m.is_moe()) throw InputError(flag, "", m.name + " has no routed experts");
  const int e = m.moe.num_experts;
  const int extra = a.ep_slots ? *a.ep_slots - e : *a.redundant_experts;
  if (extra < 0)
    throw InputError(flag, "",
                     "expert slots (" + std::to_string(e + extra) + ") fewer than the " +
                         std::to_string(e) + " routed experts of " + m.name +
                         ": every expert needs a slot");
  if (extra > 7 * e)  // docs/limits.md: at most 8 copies of every expert on average
    throw InputError(flag, "", "at most " + std::to_string(8 * e) + " slots (8 per expert)");
  m.moe.redundant_experts = extra;
}

int run_disagg(const PlanArgs& a, const ModelSpec& m, const PlanRequest& req,
               const Router& router) {
  for (const auto& [flag, value] :
       {std::pair<const char*, const std::string*>{"--html", &a.html}, {"--chart", &a.chart}})
    if (!value->empty()) throw InputError(flag, "", "not available with --disagg yet; use --json");
  if (req.mode != PlanMode::Serve)
    throw InputError("--disagg", "", "plans serving (--mode serve): it splits prefill and decode");
  if (a.kv_transfer != "after" && a.kv_transfer != "layerwise")
    throw InputError("--kv-transfer", "",
                     "expected 'after' or 'layerwise', got '" + a.kv_transfer + "'");
  DisaggRequest pools = a.pools;
  pools.kv_layerwise = a.kv_transfer == "layerwise";
  const DisaggOutput out = plan_disagg(m, router, req, pools);
  // --render: the pools coloured on the topology (--color-by is for one strategy's groups).
  if (!a.render.empty()) {
    if (out.best)
      report::render_disagg(router.topology(), m, out, a.render);
    else
      std::cerr << "--render: no split meets the limits; no diagram written\n";
  }
  if (!a.emit.empty()) {
    if (a.csv.given())
      write_csv(a.csv, printed([&](std::ostream& os) { report::print_disagg_json(os, out); }),
                "splits");
    std::cout << report::emit_serving_disagg(a.emit, {&m, req, forced_precision(a, m)}, out);
    return out.status == "ok" ? 0 : kExitNoPlan;
  }
  if (write_csv(a.csv, printed([&](std::ostream& os) { report::print_disagg_json(os, out); }),
                "splits"))
    return out.status == "ok" ? 0 : kExitNoPlan;
  if (a.json)
    report::print_disagg_json(std::cout, out);
  else
    report::print_disagg(std::cout, out);
  return out.status == "ok" ? 0 : kExitNoPlan;
}

int run_plan(PlanArgs& a) {
  check_emit(a);
  if (!a.decode_server.empty() && !a.disagg)
    throw InputError("--decode-server", "", "names the decode pool's server: use it with --disagg");
  // --decode-server: prefill on --prefill-nodes of --topology, decode on --decode-nodes of it.
  // Kept to the end of the process (keep_until_exit.hpp).
  const KeptToExit<CommSetup> owned(
      a.decode_server.empty()
          ? comm_setup(a.topo, a.calibration)  // --calibration or built-in
          : comm_setup(load_mixed_topology(a.topo, a.decode_server, a.pools.prefill_nodes,
                                           a.pools.decode_nodes),
                       a.calibration));
  const CommSetup& setup = *owned;
  if (a.mode == "train") {
    // The report pages, Pareto chart and placement drawing are the serving plan's; say so rather
    // than exit 0 without the file (issue 28).
    for (const auto& [flag, value] : {std::pair<const char*, const std::string*>{"--html", &a.html},
                                      {"--chart", &a.chart},
                                      {"--render", &a.render}})
      if (!value->empty())
        throw InputError(flag, "",
                         "not available with --mode train (serving plans only); use --json "
                         "for the training plan");
    if (a.disagg) throw InputError("--disagg", "", "plans serving, not --mode train");
    if (a.redundant_experts || a.ep_slots)
      throw InputError(a.ep_slots ? "--ep-slots" : "--redundant-experts", "",
                       "redundant experts are a serving deployment; training does not use them");
    // Training keeps bf16 master weights; --precision picks the GEMM precision instead.
    a.train.precision = a.precision.precision;
    a.train.engine = a.engine;
    // --calibration reaches training's collectives too (it reached serving only).
    const TrainPins pins{a.tp,   a.pp,    a.dp,   a.ep,   a.req.gpus,   a.req.top,
                         a.json, a.quiet, a.emit, &a.csv, &setup.tuning};
    return run_train_plan(load_model(a.model), *setup.router, a.train, pins);
  }
  ModelSpec m = load_model_with(a.model, a.precision);
  apply_expert_slots(a, m);
  PlanRequest req = finish_request(a);
  req.comm_tuning = &setup.tuning;
  // Only --placement-detail, --html and --render print every rank of a large top plan; the
  // JSON and the table print runs, which the planner keeps in place of 10 MB lists.
  req.rank_lists = a.placement_detail || !a.html.empty() || !a.render.empty();
  if (a.disagg) return run_disagg(a, m, req, *setup.router);
  if (a.threads < 1) throw InputError("--threads", "", "must be at least 1");
  PlanOutput out;
  {
    ProgressBar bar(!a.quiet);
    SearchOptions search;
    search.threads = a.threads;
    search.progress = [&bar](int done, int total) { bar.update(done, total); };
    out = plan(m, *setup.router, req, search);
  }
  if (req.workload == PlanWorkload::Burst && !out.plans.empty())
    out.burst = burst_workload(Planner(m, *setup.router, req), out.plans.front(), req);
  if (req.workload == PlanWorkload::Closed && !out.plans.empty())
    out.closed_loop = closed_loop_workload(Planner(m, *setup.router, req), out.plans.front(), req);
  const Topology& t = setup.router->topology();
  if (!a.chart.empty()) report::write_pareto_chart(out, a.chart);
  if (!a.html.empty()) report::write_plan_html(t, out, a.html);
  if (!a.render.empty()) report::render_plan(t, out, report::parse_color_by(a.color_by), a.render);
  const bool csv_out = write_csv(
      a.csv, printed([&](std::ostream& os) { report::print_plan_json(os, out); }), "plans");
  if (!a.emit.empty()) {
    if (out.status != "ok") {
      report::print_plan(std::cerr, out);  // why there is nothing to launch
      return kExitNoPlan;
    }
    std::cout << report::emit_serving(a.emit, {&m, req, forced_precision(a, m)}, out);
    return 0;
  }
  if (csv_out) return out.status == "ok" ? 0 : kExitNoPlan;
  if (a.json)
    report::print_plan_json(std::cout, out, a.placement_detail);
  else
    report::print_plan(std::cout, out);
  return out.status == "ok" ? 0 : kExitNoPlan;
}

void add_workload_flags(CLI::App& sub, PlanArgs& a, bool with_train = false) {
  PlanRequest& r = a.req;
  sub.add_option("--mode", a.mode,
                 with_train ? "serve | prefill | decode | train" : "serve | prefill | decode")
      ->capture_default_str();
  sub.add_option("--batch", r.batch,
                 "concurrent sequences over all replicas (default: serve searches, else 1)");
  sub.add_option("--prompt", r.prompt, "input tokens per request")->capture_default_str();
  sub.add_option("--output", r.output, "output tokens per request")->capture_default_str();
  sub.add_option("--context", r.context, "KV tokens during decode (default prompt + output/2)");
  sub.add_option("--tpot-max", r.tpot_max_ms, "TPOT limit in ms (serve picks the batch)");
  sub.add_option("--ttft-max", r.ttft_max_ms, "TTFT limit in ms");
  sub.add_option("--mtp-accept", r.mtp_accept,
                 "speculative decoding: tokens accepted per verify step (0 = off)");
  sub.add_option("--mtp-draft", r.mtp_draft, "draft tokens per step")->capture_default_str();
  sub.add_option("--mem-util", r.mem_util, "HBM fraction the engine may use (vLLM default)")
      ->capture_default_str();
  sub.add_option("--prefill-chunk", r.prefill_chunk, "tokens per prefill chunk")
      ->capture_default_str();
  sub.add_option("--workload", a.workload,
                 "serve: steady (the serve cycle) | burst (--requests arriving together, "
                 "prefill-first waves on the best plan) | closed (--concurrency requests kept in "
                 "flight, each new prompt prefilled alone, on the best plan)")
      ->capture_default_str();
  sub.add_option("--requests", r.requests, "--workload burst: requests arriving together");
  sub.add_option("--concurrency", r.concurrency,
                 "--workload closed: requests kept in flight over all replicas, 1 to 2^53 "
                 "(bench_serving --max-concurrency); the plans run at this batch");
  sub.add_option("--fp8-block-gemm", a.fp8_block_gemm,
                 "block-scaled FP8 GEMMs: auto (SGLang's default: fused-MoE experts without DeepEP "
                 "at the measured Triton rate, the rest as per-tensor FP8, DeepGEMM) | cublas "
                 "(all as per-tensor FP8) | triton (all at the measured Triton block-FP8 rate)")
      ->capture_default_str();
  sub.add_option("--cuda-graphs", a.cuda_graphs,
                 "on: decode replays CUDA graphs; off: eager launches (prefill is always eager)")
      ->capture_default_str();
  sub.add_option("--two-batch-overlap", a.two_batch_overlap,
                 "MoE serving: on runs each step as two half batches, one's dispatch/combine "
                 "hidden behind the other's compute (SGLang --enable-two-batch-overlap, "
                 "DeepSeek's dual micro-batch); off (SGLang's default)")
      ->capture_default_str();
  sub.add_option("--nvls", a.nvls,
                 "NCCL NVLink SHARP for the plan's collectives: off (SGLang's default, "
                 "NCCL_NVLS_ENABLE=0) | on (--enable-nccl-nvls; vLLM and NCCL's own default); "
                 "default: the --engine's, else off");
  sub.add_option("--moe-comm", a.moe_comm,
                 "MoE tokens under attention DP with ep = tp: deepep (all-to-all, SGLang "
                 "--moe-a2a-backend deepep) | allgather (all-gather + reduce-scatter: TensorRT-LLM "
                 "when the EP size is at most top-k); default: the --engine's, else deepep");
  sub.add_option("--engine", a.engine,
                 "the engine whose settings the plan assumes where no flag says otherwise: serve "
                 "sglang (default) | vllm | trtllm; train megatron (default) | nemo | torchtitan "
                 "(docs/planner.md and docs/training.md, \"Engine profiles\")");
}

void add_strategy_flags(CLI::App& sub, PlanArgs& a) {
  sub.add_option("--gpus", a.req.gpus, "GPUs to use (default, or 0: all of the topology)");
  sub.add_option("--tp", a.tp, "pin tensor parallel size");
  sub.add_option("--pp", a.pp, "pin pipeline stages");
  sub.add_option("--dp", a.dp, "pin data-parallel replicas");
  sub.add_option("--ep", a.ep,
                 "pin expert parallel size (serving: divides tp; --mode train: ep x etp divides "
                 "tp x cp x dp, Megatron's expert-data-parallel split)");
  sub.add_option("--attention-dp", a.attention_dp, "pin attention data parallelism (true/false)");
  sub.add_option("--max-tp-class", a.max_tp_class,
                 "worst path class a TP group may use (NVL, PIX, PXB, PHB, SYS, NET)");
  sub.add_option("--placement", a.placement, "tp-pp-dp | dp-pp-tp | pp-tp-dp | optimized")
      ->capture_default_str();
  sub.add_option("--top", a.req.top, "strategies shown in the table")->capture_default_str();
  // No captured default: it is this machine's core count, which a help page should not state
  // as the tool's default (issue 28's walk).
  sub.add_option("--threads", a.threads,
                 "threads evaluating strategies (default: the machine's hardware threads; the "
                 "output is the same for any count)");
  sub.add_flag("--quiet", a.quiet, "no progress bar on stderr");
}

}  // namespace

PlanRequestFlags add_plan_request_flags(CLI::App& sub) {
  auto a = std::make_shared<PlanArgs>();
  add_workload_flags(sub, *a, /*with_train=*/true);
  add_strategy_flags(sub, *a);
  add_train_flags(sub, a->train);
  const CLI::App* cmd = &sub;
  return {.mode = [a] { return a->mode; },
          .serve =
              [a, cmd] {
                refuse_other_mode_flags(*cmd, false, false);
                return finish_request(*a);
              },
          .train =
              [a, cmd] {
                refuse_other_mode_flags(*cmd, true, false);
                a->train.engine = a->engine;
                TrainPins pins;
                pins.tp = a->tp, pins.pp = a->pp, pins.dp = a->dp, pins.ep = a->ep;
                pins.gpus = a->req.gpus, pins.top = a->req.top;
                return train_request(a->train, pins);
              }};
}

// plan --help's headings, in the order of each group's first flag.
OptionGroups plan_groups() {
  return {
      {"Model and workload",
       {"--model", "--precision", "--kv-dtype", "--mode", "--batch", "--prompt", "--output",
        "--context", "--tpot-max", "--ttft-max", "--mtp-accept", "--mtp-draft", "--workload",
        "--requests", "--concurrency"}},
      {"Cluster",
       {"--topology", "--nodes", "--fabric", "--fabric-link", "--oversubscription", "--tiers",
        "--calibration"}},
      {"Engine",
       {"--engine", "--mem-util", "--prefill-chunk", "--fp8-block-gemm", "--cuda-graphs",
        "--two-batch-overlap", "--nvls", "--moe-comm", "--redundant-experts", "--ep-slots"}},
      {"Search (pins, placement, progress)",
       {"--gpus", "--tp", "--pp", "--dp", "--ep", "--attention-dp", "--max-tp-class", "--placement",
        "--top", "--threads", "--quiet"}},
      {"Training (--mode train)", train_only_flags()},
      {"Disaggregated serving (--disagg)",
       {"--disagg", "--prefill-nodes", "--decode-nodes", "--kv-transfer", "--request-rate",
        "--decode-server"}},
      {"Output",
       {"--json", "--csv", "--placement-detail", "--emit", "--render", "--color-by", "--html",
        "--chart"}},
  };
}

void add_plan_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<PlanArgs>();
  auto* sub = app.add_subcommand(
      "plan", "rank sharding strategies of a model on a topology: memory, TTFT, TPOT, tokens/s");
  sub->add_option("--model", a->model, "built-in model name or JSON/config.json file")
      ->capture_default_str();
  sub->add_option("--topology", a->topo.topology, "built-in topology name or JSON file")
      ->capture_default_str();
  add_cluster_flags(*sub, a->topo);
  add_precision_flags(*sub, a->precision, /*with_train=*/true);
  add_workload_flags(*sub, *a, /*with_train=*/true);
  add_strategy_flags(*sub, *a);
  add_train_flags(*sub, a->train);
  sub->add_flag("--disagg", a->disagg,
                "disaggregated serving: split the servers into a prefill and a decode pool, each "
                "with its own strategy, the KV cache sent between them (docs/planner.md)");
  sub->add_option("--prefill-nodes", a->pools.prefill_nodes,
                  "--disagg: servers of the prefill pool (default: every split is tried)");
  sub->add_option("--redundant-experts", a->redundant_experts,
                  "MoE serving: extra expert slots holding copies of experts (DeepSeek's EPLB, "
                  "SGLang --ep-num-redundant-experts), so EP need not divide the experts");
  sub->add_option("--ep-slots", a->ep_slots,
                  "MoE serving: expert slots in all (experts + redundant; e.g. 288 for EP144)");
  sub->add_option("--kv-transfer", a->kv_transfer,
                  "--disagg: when the KV cache leaves the prefill GPUs: after (the prefill ends; "
                  "SGLang, vLLM NIXL) or layerwise (each layer as it is computed; Mooncake)")
      ->capture_default_str();
  sub->add_option("--decode-nodes", a->pools.decode_nodes,
                  "--disagg: servers of the decode pool (with --prefill-nodes)");
  sub->add_option("--request-rate", a->pools.request_rate,
                  "--disagg: requests/s to serve; sizes copies of the best xPyD system for it");
  sub->add_option("--decode-server", a->decode_server,
                  "--disagg: decode on --decode-nodes servers of this kind (e.g. hgx-h20-8), "
                  "prefill on --prefill-nodes of --topology's, one fabric (mixed GPU pools)");
  sub->add_flag("--json", a->json, "print JSON (stable keys, docs/planner.md)");
  add_csv_option(*sub, a->csv,
                 "one row per ranked strategy (plans; --disagg: one per split tried; --mode "
                 "train: one per training plan)");
  sub->add_flag("--placement-detail", a->placement_detail,
                "--json: list every rank of the top plans' placements (beyond 4,096 ranks they "
                "are written as runs of whole servers, placement_runs, by default)");
  sub->add_option("--emit", a->emit,
                  "print the commands that launch the best plan instead of the table: serve "
                  "sglang | vllm | trtllm | dynamo; --mode train megatron | torchtitan "
                  "(docs/launch.md: engine versions, flag sources)");
  add_calibration_option(*sub, a->calibration);
  add_example(*sub, "topoplan plan --model deepseek-r1 --topology hgx-h20-8 --tpot-max 50 --json");
  add_example(*sub,
              "topoplan plan --model deepseek-r1 --topology hgx-h20-8 --tpot-max 50 --emit sglang");
  add_example(*sub, "topoplan plan --model llama-3-8b --topology hgx-h100-8 --csv plans.csv");
  sub->add_option("--render", a->render,
                  "draw the best plan on the topology (.svg, .png, .pdf, .dot; docs/report.md)");
  sub->add_option("--color-by", a->color_by, "with --render: fill GPUs by tp | pp | ep | dp")
      ->capture_default_str();
  sub->add_option("--html", a->html, "write one self-contained HTML report page");
  sub->add_option("--chart", a->chart,
                  "Pareto chart: tokens/s/GPU vs tokens/s/user, SLA, chosen plan (.svg/.png/.pdf)");
  group_options(*sub, plan_groups());
  sub->callback([&action, a, sub] {
    action = [a, sub] {
      refuse_other_mode_flags(*sub, a->mode == "train", a->disagg);
      return run_plan(*a);
    };
  });
}

}  // namespace topoplan::cli
