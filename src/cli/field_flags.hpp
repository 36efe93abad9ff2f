// The one table from a request field (FieldError::field(), named after the library's request
// members) to the command-line flag that sets it, so the library's errors read as flags here.
#pragma once

#include <string>

#include "topoplan/error.hpp"

namespace topoplan::cli {

// "batch" → "--batch", "tpot_max_ms" → "--tpot-max"; "tp/pp" → "--tp/--pp" (each part); a
// field no flag sets comes back unchanged.
std::string flag_for(const std::string& field);
// The error as the user gave it: "--batch: must be at least 1 sequence (or 0: searched)".
std::string flag_message(const FieldError& e);

}  // namespace topoplan::cli
