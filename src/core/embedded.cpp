#include "topoplan/embedded.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/embedded_table.hpp"
#include "topoplan/error.hpp"

namespace topoplan {

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

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "", "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
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
  if (looks_like_path) throw InputError(name_or_path, "", "cannot open file (no such file)");
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
