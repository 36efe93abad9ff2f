// Flags of `topoplan plan --mode train` (issue 13's contract) and the call into the library.
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/plan_train.hpp"
#include "cli/progress_bar.hpp"
#include "report/launch.hpp"
#include "report/train_report.hpp"
#include "topoplan/error.hpp"
#include "topoplan/train.hpp"

namespace topoplan::cli {

namespace {

// "15T", "2.5B", "1e12": the suffixes of published token budgets (K, M, B or G, T, either case;
// steps of 10^3). Text without a suffix is left as it is, so "nan" or "-1" reach the range check
// (docs/limits.md) and its message.
CLI::Validator token_count_suffix() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        static const std::map<char, double> scale{{'K', 1e3},  {'M', 1e6}, {'B', 1e9}, {'G', 1e9},
                                                  {'T', 1e12}, {'k', 1e3}, {'m', 1e6}, {'b', 1e9},
                                                  {'g', 1e9},  {'t', 1e12}};
        const auto it = text.empty() ? scale.end() : scale.find(text.back());
        const std::string number = it == scale.end() ? text : text.substr(0, text.size() - 1);
        std::size_t used = 0;
        double value = 0;
        try {
          value = std::stod(number, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != number.size())
          return "expected a number with an optional K, M, B, G or T suffix, got '" + text + "'";
        if (it == scale.end()) return "";  // no suffix: the option's own parse and range check
        std::ostringstream os;
        os << std::setprecision(17) << value * it->second;
        text = os.str();
        return "";
      },
      "NUMBER[K|M|B|G|T]");
}

}  // namespace

void add_train_flags(CLI::App& sub, TrainFlags& f) {
  sub.add_option("--seq", f.seq, "train: tokens per sequence")->capture_default_str();
  sub.add_option("--global-batch", f.global_batch, "train: sequences per optimizer step")
      ->capture_default_str();
  sub.add_option("--micro-batch", f.micro_batch, "train: pin sequences per micro-batch")
      ->check(positive_count());
  sub.add_option("--vp", f.vp, "train: pin virtual pipeline stages (interleaved 1F1B)")
      ->check(positive_count());
  sub.add_option("--cp", f.cp, "train: pin context parallel size")->check(positive_count());
  sub.add_option("--zero", f.zero, "train: pin ZeRO stage 0|1|2|3");
  sub.add_option("--recompute", f.recompute, "train: pin none|selective|full");
  sub.add_option("--recompute-modules", f.recompute_modules,
                 "train: pin selective recompute of Megatron-Core modules, comma-separated: "
                 "core_attn,layernorm,moe_act,mla_up_proj,mlp,shared_experts,moe");
  sub.add_flag("--fp8-param-gather", f.fp8_param_gather,
               "train: FP8 strategies keep linear weights in FP8 only and all-gather them in "
               "FP8 (Megatron --fp8-param-gather; needs --zero >= 1)");
  sub.add_option("--grad-reduce", f.grad_reduce,
                 "train: gradient buffer and data-parallel reduction precision, fp32 (Megatron-LM "
                 "and torchtitan defaults) | bf16 (NeMo / Megatron-Bridge performance recipes); "
                 "default: the engine's")
      ->check(CLI::IsMember({"bf16", "fp32"}));
  sub.add_option("--sp", f.sp, "train: pin sequence parallelism (true/false)");
  sub.add_option("--train-tokens,--tokens", f.train_tokens,
                 "train: tokens to train on, e.g. 15T (days_to_train; compare: the budget)")
      ->transform(token_count_suffix());
  sub.add_flag("--tp-comm-overlap", f.tp_comm_overlap,
               "train: Megatron --tp-comm-overlap (TE userbuffers; with SP)");
  sub.add_option("--moe-dispatcher", f.moe_dispatcher,
                 "train: MoE token dispatcher, alltoall (Megatron-Core default) | deepep (flex "
                 "dispatcher with DeepEP: one copy per destination GPU / server)")
      ->check(CLI::IsMember({"alltoall", "deepep"}));
  sub.add_option("--pp-schedule", f.pp_schedule,
                 "train: 1f1b (Megatron's; interleaved with --vp > 1) | dualpipe (DeepSeek-V3: "
                 "bidirectional, EP all-to-all overlapped, even pp, no vp)")
      ->check(CLI::IsMember({"1f1b", "dualpipe"}));
  sub.add_flag("--ep-overlap", f.ep_overlap,
               "train: Megatron-Core combined 1F1B (--overlap-moe-expert-parallel-comm): MoE "
               "all-to-all behind another micro-batch's compute; pp > 1 needs vp > 1");
  sub.add_flag("--no-flash-attention", f.no_flash_attention,
               "train: unfused attention (stores the s^2 softmax activations)");
  sub.add_flag("--dropout", f.dropout, "train: dropout masks stored (GPT-3 recipes)");
  sub.add_flag("--no-timing", f.no_timing,
               "train: null search_s / evaluations_per_s_per_core (reproducible output)");
}

TrainRequest train_request(const TrainFlags& f, const TrainPins& pins) {
  TrainRequest q;
  q.seq = f.seq;
  q.global_batch = f.global_batch;
  q.micro_batch = f.micro_batch;
  q.vp = f.vp, q.cp = f.cp, q.zero = f.zero;
  q.tp = pins.tp, q.pp = pins.pp, q.dp = pins.dp, q.ep = pins.ep;
  q.gpus = pins.gpus, q.top = pins.top;
  if (!f.recompute.empty()) q.recompute = parse_recompute(f.recompute);
  if (!f.recompute_modules.empty()) {
    q.recompute_modules = parse_recompute_modules(f.recompute_modules);
    if (!q.recompute) q.recompute = Recompute::Selective;
  }
  q.fp8_param_gather = f.fp8_param_gather;
  if (!f.grad_reduce.empty()) q.grad_reduce = parse_grad_reduce(f.grad_reduce);
  if (f.precision == "auto")
    q.search_precision = true;
  else if (!f.precision.empty())
    q.precision = parse_train_precision(f.precision);
  if (!f.sp.empty()) {
    if (f.sp != "true" && f.sp != "false")
      throw InputError("--sp", "", "expected 'true' or 'false', got '" + f.sp + "'");
    q.sp = f.sp == "true";
  }
  q.train_tokens = f.train_tokens;
  q.tp_comm_overlap = f.tp_comm_overlap;
  q.deepep = f.moe_dispatcher == "deepep";
  q.dualpipe = f.pp_schedule == "dualpipe";
  q.ep_overlap = f.ep_overlap;
  apply_train_engine(q, f.engine);  // after the flags: it only turns settings on
  q.flash_attention = !f.no_flash_attention;
  q.dropout = f.dropout;
  return q;
}

int run_train_plan(const ModelSpec& m, const Router& router, const TrainFlags& f,
                   const TrainPins& pins) {
  TrainRequest q = train_request(f, pins);
  q.comm_tuning = pins.comm_tuning;
  TrainingResult r;
  {
    ProgressBar bar(!pins.quiet);
    q.progress = [&bar](int done, int total) { bar.update(done, total); };
    r = plan_training(m, router, q);
  }
  if (f.no_timing) r.search_s = r.evaluations_per_s_per_core = -1;  // printed as null / "-"
  const int rc = r.plans.front().fits ? 0 : 3;
  bool csv_out = false;
  if (pins.csv != nullptr && pins.csv->given()) {
    std::ostringstream os;
    report::print_train_json(os, r);
    csv_out = write_csv(*pins.csv, os.str(), "plans");
  }
  if (!pins.emit.empty()) {
    if (rc != 0) {
      report::print_train(std::cerr, r);  // why there is nothing to launch
      return rc;
    }
    std::cout << report::emit_training(pins.emit, m, r);
    return 0;
  }
  if (csv_out) return rc;
  if (pins.json)
    report::print_train_json(std::cout, r);
  else
    report::print_train(std::cout, r);
  return rc;
}

}  // namespace topoplan::cli
