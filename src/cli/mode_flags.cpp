#include "cli/mode_flags.hpp"

#include <string>
#include <vector>

#include "topoplan/error.hpp"

namespace topoplan::cli {

namespace {

// Read only by the serving planner (PlanRequest, PrecisionOptions::kv_dtype, the placement
// search). --disagg, --redundant-experts, --html ... have their own messages in cmd_plan.cpp.
const std::vector<std::string> kServeOnly = {
    "--batch",         "--prompt",         "--output",
    "--context",       "--tpot-max",       "--ttft-max",
    "--mtp-accept",    "--mtp-draft",      "--mem-util",
    "--prefill-chunk", "--workload",       "--requests",
    "--concurrency",   "--fp8-block-gemm", "--cuda-graphs",
    "--nvls",          "--moe-comm",       "--kv-dtype",
    "--placement",     "--max-tp-class",   "--two-batch-overlap",
    "--attention-dp"};
// Read only when the servers are split into pools.
const std::vector<std::string> kDisaggOnly = {"--prefill-nodes", "--decode-nodes", "--request-rate",
                                              "--kv-transfer"};

bool given(const CLI::App& cmd, const std::string& flag) {
  const CLI::Option* o = cmd.get_option_no_throw(flag);
  return o != nullptr && o->count() > 0;
}

void refuse(const CLI::App& cmd, const std::vector<std::string>& flags, const std::string& why) {
  for (const std::string& flag : flags)
    if (given(cmd, flag)) throw InputError(flag, "", why);
}

}  // namespace

// Read only by the training planner (cmd_plan_train.cpp, TrainFlags). A function-local static:
// plan's and compare's --help headings are built from it during static initialization.
const std::vector<std::string>& train_only_flags() {
  static const std::vector<std::string> flags = {"--seq",
                                                 "--global-batch",
                                                 "--micro-batch",
                                                 "--vp",
                                                 "--cp",
                                                 "--zero",
                                                 "--recompute",
                                                 "--recompute-modules",
                                                 "--fp8-param-gather",
                                                 "--grad-reduce",
                                                 "--sp",
                                                 "--train-tokens",
                                                 "--tp-comm-overlap",
                                                 "--moe-dispatcher",
                                                 "--pp-schedule",
                                                 "--ep-overlap",
                                                 "--no-flash-attention",
                                                 "--dropout",
                                                 "--no-timing"};
  return flags;
}

void refuse_other_mode_flags(const CLI::App& cmd, bool train, bool disagg) {
  if (train)
    refuse(cmd, kServeOnly,
           "sets up serving, not --mode train (it would be ignored); training takes --seq, "
           "--global-batch, --train-tokens, ...");
  else
    refuse(cmd, train_only_flags(),
           "applies to --mode train (it would be ignored in --mode serve)");
  if (!disagg)
    refuse(cmd, kDisaggOnly,
           "sizes the pools of --disagg or sets its KV transfer: use it with --disagg");
}

}  // namespace topoplan::cli
