// Data files compiled into the binary (topologies/, models/). Paths are relative to the source
// root, e.g. "topologies/servers/hgx-h20-8.json".
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/limits.hpp"

namespace topoplan {

// The contents of an embedded file, or nullopt when no file has that path.
std::optional<std::string_view> embedded_file(std::string_view path);

// Paths of embedded files under `prefix` (e.g. "topologies/servers/"), sorted.
std::vector<std::string> embedded_files(std::string_view prefix);

// Reads `name_or_path`: an existing file on disk wins; otherwise `dir/<name>.json` from the
// embedded data. Returns {text, source name for messages}. Throws UnknownNameError listing the
// embedded names of `dir` when neither exists.
struct LoadedText {
  std::string text;
  std::string source;  // the file path or "builtin:<name>"
};
LoadedText load_file_or_builtin(const std::string& name_or_path, std::string_view dir,
                                std::string_view kind);

// Reads a whole file from disk; throws InputError naming the path when it cannot be read, is not
// a regular file, or is larger than limits::kMaxFileBytes.
std::string read_text_file(const std::string& path);

// Reads `in` to its end (a pipe, stdin); throws InputError naming `source` as soon as more than
// `max_bytes` have arrived, so an endless or huge stream is refused without being held whole.
std::string read_text_stream(std::istream& in, const std::string& source,
                             std::size_t max_bytes = limits::kMaxFileBytes);

}  // namespace topoplan
