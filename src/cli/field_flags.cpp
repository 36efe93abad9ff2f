// Field → flag table. A flag whose name differs from its field (units in the field name, short
// CLI spellings) is listed explicitly; every other entry is the field with '-' for '_'.
#include "cli/field_flags.hpp"

#include <map>

namespace topoplan::cli {

namespace {

const std::map<std::string, std::string>& table() {
  static const std::map<std::string, std::string> t = {
      // PlanRequest (plan, compare) and the shared workload rules (model show, roofline).
      {"batch", "--batch"},
      {"prompt", "--prompt"},
      {"output", "--output"},
      {"context", "--context"},
      {"tpot_max_ms", "--tpot-max"},
      {"ttft_max_ms", "--ttft-max"},
      {"gpus", "--gpus"},
      {"tp", "--tp"},
      {"pp", "--pp"},
      {"dp", "--dp"},
      {"ep", "--ep"},
      {"attention_dp", "--attention-dp"},
      {"mtp_draft", "--mtp-draft"},
      {"mtp_accept", "--mtp-accept"},
      {"mem_util", "--mem-util"},
      {"prefill_chunk", "--prefill-chunk"},
      {"workload", "--workload"},
      {"prefill_nodes", "--prefill-nodes"},  // DisaggRequest (plan --disagg)
      {"request_rate", "--request-rate"},
      {"requests", "--requests"},
      {"concurrency", "--concurrency"},
      {"top", "--top"},
      {"precision", "--precision"},
      // Strategy values reach the library unvalidated only through the API; the CLI keeps the
      // "strategy: --tp" form its messages always had.
      {"strategy.tp", "strategy: --tp"},
      {"strategy.pp", "strategy: --pp"},
      {"strategy.dp", "strategy: --dp"},
      {"strategy.ep", "strategy: --ep"},
      // TrainRequest (plan --mode train).
      {"seq", "--seq"},
      {"global_batch", "--global-batch"},
      {"micro_batch", "--micro-batch"},
      {"cp", "--cp"},
      {"vp", "--vp"},
      {"zero", "--zero"},
      {"train_tokens", "--train-tokens"},
      {"ep_overlap", "--ep-overlap"},
      {"recompute_modules", "--recompute-modules"},
      {"fp8_param_gather", "--fp8-param-gather"},
      {"grad_reduce", "--grad-reduce"},
      // CollectiveOptions (collective), ComputeModel (roofline --mem-bw).
      {"algorithm", "--algo"},
      {"protocol", "--proto"},
      {"root", "--root"},
      {"hbm_GBps", "--mem-bw"},
      // topo import (ImportOptions).
      {"name", "--name"},
      // compare and render.
      {"designs", "--topology"},
      {"gpu_hour_price", "--gpu-hour-price"},
      {"item_prices", "--price"},
      {"pue", "--pue"},
      {"kwh_usd", "--kwh-price"},
      {"years", "--years"},
      {"color_by", "--color-by"},
      {"format", "--format"},
      {"output_path", "-o"},
  };
  return t;
}

std::string one_flag(const std::string& field) {
  auto it = table().find(field);
  return it == table().end() ? field : it->second;
}

}  // namespace

std::string flag_for(const std::string& field) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    std::size_t slash = field.find('/', start);
    out += one_flag(field.substr(start, slash - start));
    if (slash == std::string::npos) return out;
    out += '/';
    start = slash + 1;
  }
}

std::string flag_message(const FieldError& e) {
  return flag_for(e.field()) + ": " + e.detail_with(flag_for);
}

}  // namespace topoplan::cli
