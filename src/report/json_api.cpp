// The public to_json functions forward to the writers behind `--json`, so the library and the
// CLI print the same document (one writer per result; tests/report/json_api_test.cpp).
#include <sstream>

#include "report/collective_report.hpp"
#include "report/compare.hpp"
#include "report/disagg_report.hpp"
#include "report/model_report.hpp"
#include "report/plan_report.hpp"
#include "report/roofline_report.hpp"
#include "report/train_report.hpp"
#include "topoplan/json.hpp"

namespace topoplan {

namespace {
template <typename Print>
std::string printed(Print&& print) {
  std::ostringstream os;
  print(os);
  return os.str();
}
}  // namespace

std::string to_json(const PlanOutput& plan) {
  return printed([&](std::ostream& os) { report::print_plan_json(os, plan); });
}

std::string to_json(const TrainingResult& train) {
  return printed([&](std::ostream& os) { report::print_train_json(os, train); });
}

std::string to_json(const report::CollectiveReport& collective) {
  return printed([&](std::ostream& os) { report::print_collective(os, collective, true); });
}

std::string to_json(const ModelSpec& model, const report::ModelShowOptions& options) {
  return printed([&](std::ostream& os) { report::print_model_show(os, model, options, true); });
}

std::string to_json(const report::RooflineContext& context, const RooflineResult& roofline) {
  return printed([&](std::ostream& os) { report::print_roofline(os, context, roofline, true); });
}

std::string to_json(const report::Comparison& comparison) {
  return printed([&](std::ostream& os) { report::print_compare_json(os, comparison); });
}

std::string to_json(const DisaggOutput& disagg) {
  return printed([&](std::ostream& os) { report::print_disagg_json(os, disagg); });
}

}  // namespace topoplan
