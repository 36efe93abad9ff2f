// Flags that belong to one mode of `plan` and `compare`. Given in the other mode they would be
// read by nothing and the answer would not change, a silent no (issue 28: `--seq` on a serving
// plan, `--tpot-max` on a training plan), so they are refused, naming the mode they need.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace topoplan::cli {

// The flags only the training planner reads (TrainFlags): refused outside --mode train, and the
// "Training (--mode train)" heading of plan's and compare's --help.
const std::vector<std::string>& train_only_flags();

// Throws InputError for the first flag given on `cmd` that the mode does not read: training's
// flags without --mode train, serving's with it, the pool flags without --disagg.
void refuse_other_mode_flags(const CLI::App& cmd, bool train, bool disagg);

}  // namespace topoplan::cli
