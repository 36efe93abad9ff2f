// `--csv`: a JSON document's list of results as a table a notebook loads in one line
// (pandas.read_csv). One row per element of the list (plan: "plans", compare: "designs",
// collective: "results" or, with --algo all, "alternatives"); the columns are the elements'
// keys, nested objects flattened with dots ("memory.weights_bytes", "breakdown.decode.kv_us"),
// in the order they first appear. Cells follow RFC 4180: comma-separated, CRLF line ends, a
// field holding a comma, quote, CR or LF is quoted with its quotes doubled. null and a key a row
// lacks are empty cells; true/false as written; numbers as the JSON writes them; an array inside
// an element is one cell holding its compact JSON text.
#pragma once

#include <string>
#include <string_view>

namespace topoplan::report {

// `json` is a document printed by one of the --json writers; `list` the key of its array at
// the top level. Throws InternalError when the key is missing or not an array.
std::string json_list_csv(const std::string& json, std::string_view list);

// One field quoted as RFC 4180 asks (only when it must be).
std::string csv_field(std::string_view text);

}  // namespace topoplan::report
