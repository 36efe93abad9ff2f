// `topoplan plan --mode train`: the training flags and their run (cmd_plan_train.cpp), called
// from cmd_plan.cpp when --mode is "train".
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "cli/csv_option.hpp"
#include "topoplan/model.hpp"
#include "topoplan/route.hpp"
#include "topoplan/train.hpp"

namespace topoplan::cli {

struct TrainFlags {
  double seq = 8192;
  int global_batch = 2048;
  std::optional<int> micro_batch, vp, cp, zero;
  std::string recompute, recompute_modules, precision, sp, moe_dispatcher = "alltoall", engine,
                                                           grad_reduce, pp_schedule = "1f1b";
  double train_tokens = 0;
  bool tp_comm_overlap = false, no_flash_attention = false, dropout = false, no_timing = false;
  bool ep_overlap = false, fp8_param_gather = false;
};

// Shared strategy pins of `topoplan plan` (--tp --pp --dp --ep --gpus --top --json).
struct TrainPins {
  std::optional<int> tp, pp, dp, ep;
  int gpus = 0, top = 5;
  bool json = false;
  bool quiet = false;  // --quiet: no progress bar
  std::string emit;    // --emit megatron|torchtitan: launch commands instead of the table
  const CsvOption* csv = nullptr;           // --csv [FILE]: one row per training plan
  const NcclTuning* comm_tuning = nullptr;  // --calibration's constants (nullptr: built-in)
};

void add_train_flags(CLI::App& sub, TrainFlags& f);
// The library's request from the flags and pins (throws InputError on a bad value).
TrainRequest train_request(const TrainFlags& f, const TrainPins& pins);
// Prints the plans; returns 0, or 3 when no strategy fits in memory.
int run_train_plan(const ModelSpec& m, const Router& router, const TrainFlags& f,
                   const TrainPins& pins);

}  // namespace topoplan::cli
