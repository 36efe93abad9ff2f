// Output of `topoplan plan --mode train`: ranked table, the best plan's memory and step
// breakdown, groups, explanation and search statistics, or the same as JSON with stable keys
// (docs/training.md, "CLI and JSON"). `train_json_text` is the entry point `compare` can use.
#pragma once

#include <ostream>
#include <string>

#include "topoplan/train.hpp"

namespace topoplan::report {

void print_train(std::ostream& os, const TrainingResult& r);
void print_train_json(std::ostream& os, const TrainingResult& r);
// One plan as a JSON object (the elements of "plans"), serialised.
std::string train_plan_json_text(const TrainPlan& p);

}  // namespace topoplan::report
