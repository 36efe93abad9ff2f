// make_cluster() reports a bad option as InputError("cluster", "<option>", ...): it does not know
// whether the option came from a cluster file or a flag. Its callers put the error back where
// the value came from: a JSON pointer of the file, or the flag.
#pragma once

#include <string>

#include "topoplan/error.hpp"

namespace topoplan::detail {

// `e` with source `source` and, for make_cluster's option names, the JSON pointer under
// /cluster (`from_file`) or the command-line flag; other errors come back unchanged.
InputError locate_cluster_error(const InputError& e, const std::string& source, bool from_file);

// The compare design key ("tiers") of a cluster flag ("--tiers") that locate_cluster_error
// blamed, "" for any other source: a design's options come from its keys, and `:tiers=5` was
// reported as "--tiers: ...", a flag never typed.
std::string design_key_of_flag(const std::string& flag);

}  // namespace topoplan::detail
