// Names that reach topoplan from outside a JSON document (a flag such as --name, a file's
// name, a compare design's text) are bytes: nlohmann's parser checks the UTF-8 of what it
// reads, but its dump() throws (type_error 316, an internal error) on a name that is not
// UTF-8. Such names are checked where they enter. Implemented in io/json_reader.cpp.
#pragma once

#include <string>

namespace topoplan::io {

// Whether `text` is well-formed UTF-8 (RFC 3629).
bool is_utf8(const std::string& text);

}  // namespace topoplan::io
