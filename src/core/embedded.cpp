#include "topoplan/embedded.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <istream>

#include "core/embedded_table.hpp"
#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"

namespace topoplan {
namespace {
// "file larger than 256 MiB": whole MiB when the bound is (the real cap), bytes otherwise (a
// test's small cap).
std::string larger_than(std::string_view what, std::size_t max_bytes) {
  const bool whole_mib = max_bytes % (std::size_t{1} << 20) == 0;
  return std::string(what) + " larger than " +
         (whole_mib ? std::to_string(max_bytes >> 20) + " MiB"
                    : std::to_string(max_bytes) + " bytes") +
         " (docs/limits.md)";
}
}  // namespace

std::optional<std::string_view> embedded_file(std::string_view path) {
  for (const auto& f : detail::embedded_table()) {
    if (f.path == path) return f.data;
  }
  return std::nullopt;
}

std::vector<std::string> embedded_files(std::string_view prefix) {
  std::vector<std::string> out;
  for (const auto& f : detail::embedded_table()) {
    if (f.path.substr(0, prefix.size()) == prefix) out.emplace_back(f.path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_text_stream(std::istream& in, const std::string& source, std::size_t max_bytes) {
  // Read in blocks and count: a pipe has no size to check up front, so the bound is applied to
  // what has arrived, before the next block is appended (never more than max_bytes + one block).
  std::string text;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    if (text.size() + n > max_bytes) throw InputError(source, "", larger_than("input", max_bytes));
    text.append(buf, n);
  }
  if (in.bad()) throw InputError(source, "", "read error");
  return text;
}

// Only regular files, and at most limits::kMaxFileBytes of them: /dev/zero, /dev/urandom or a
// FIFO never end, and a file of many GiB would be read whole before any check could refuse it.
std::string read_text_file(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    throw InputError(path, "", "cannot open file (no such file)");
  if (!std::filesystem::is_regular_file(status))
    throw InputError(path, "", "not a regular file (a device, FIFO or directory cannot be read)");
  if (std::filesystem::file_size(path, ec) > limits::kMaxFileBytes && !ec)
    throw InputError(path, "", larger_than("file", limits::kMaxFileBytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file");
  // The size is counted again while reading: the file may grow between stat and open.
  return read_text_stream(in, path, limits::kMaxFileBytes);
}

namespace {
// "topologies/servers/hgx-h20-8.json" -> "hgx-h20-8"
std::string stem_of(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}
}  // namespace

LoadedText load_file_or_builtin(const std::string& name_or_path, std::string_view dir,
                                std::string_view kind) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(name_or_path, ec)) {
    return {read_text_file(name_or_path), name_or_path};
  }
  // Something that looks like a path is never a built-in name: say the file is missing.
  const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                               std::filesystem::path(name_or_path).extension() == ".json";
  // read_text_file says which: missing, or not a regular file (/dev/zero).
  if (looks_like_path) return {read_text_file(name_or_path), name_or_path};
  std::string prefix(dir);
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  std::vector<std::string> names;
  for (const auto& p : embedded_files(prefix)) {
    if (stem_of(p) == name_or_path)
      return {std::string(*embedded_file(p)), "builtin:" + name_or_path};
    names.push_back(stem_of(p));
  }
  throw UnknownNameError(std::string(kind), name_or_path, names);
}

}  // namespace topoplan
