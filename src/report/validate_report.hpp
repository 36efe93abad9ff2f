// `topoplan validate` and `topoplan calibrate` output: measured vs predicted per row, error
// summaries per operation and overall, the fitted regimes.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "topoplan/nccl_tests.hpp"

namespace topoplan::report {

struct ValidateHeader {
  std::string topology;
  std::string calibration;  // file, or "built-in"
};

void print_validate(std::ostream& os, const ValidateHeader& header,
                    const std::vector<ValidationRow>& rows, bool json);
void print_calibrate(std::ostream& os, const CommCalibration& calibration,
                     const std::string& output);

}  // namespace topoplan::report
