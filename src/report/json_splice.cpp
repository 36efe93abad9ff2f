// Splicing streamed arrays into an nlohmann dump (json_splice.hpp).
#include "report/json_splice.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <unordered_map>

namespace topoplan::report {

std::string splice_placeholder(int n) {
  return std::string(1, '\0') + "topoplan-splice-" + std::to_string(n);
}

std::string json_string(const std::string& s) {
  // Printable ASCII without a quote or backslash prints as is; anything else (escapes,
  // UTF-8 validation) goes through nlohmann, so the bytes are the tree's either way.
  const bool plain = std::all_of(
      s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
  if (!plain) return nlohmann::ordered_json(s).dump();
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  out += s;
  out += '"';
  return out;
}

namespace {
// Arrays are built in a buffer and written once: per-token stream insertions into std::cout
// (synchronised with stdio) cost more than the search at 16,384 ranks.
void newline(std::string& out, int spaces) {
  out += '\n';
  out.append(static_cast<std::size_t>(spaces), ' ');
}
}  // namespace

void dump_spliced(std::ostream& os, const nlohmann::ordered_json& j, int indent,
                  const std::vector<Splice>& splices) {
  const std::string text = j.dump(indent);
  std::unordered_map<std::string, const Splice*> by_text;  // the placeholder as dumped
  for (const Splice& s : splices)
    if (!by_text.emplace(json_string(s.placeholder), &s).second)
      throw std::logic_error("json splice: two splices share a placeholder");
  // One pass over the dump: every placeholder starts with this prefix (json_string of the NUL
  // is \u0000), so the scan is linear whatever the number of splices (a 100,000-GPU plan has
  // one per evaluated strategy).
  std::string prefix = json_string(splice_placeholder(0));
  prefix.resize(prefix.size() - 2);  // without the number and the closing quote
  std::size_t from = 0, found = 0;
  for (std::size_t pos = text.find(prefix); pos != std::string::npos;
       pos = text.find(prefix, pos + 1)) {
    const std::size_t end = text.find('"', pos + prefix.size());
    auto it =
        end == std::string::npos ? by_text.end() : by_text.find(text.substr(pos, end + 1 - pos));
    if (it == by_text.end() || it->second == nullptr)
      throw std::logic_error("json splice: placeholder unknown or found twice");
    os.write(text.data() + from, static_cast<std::streamsize>(pos - from));
    const std::size_t line = text.rfind('\n', pos);
    const std::size_t start = line == std::string::npos ? 0 : line + 1;
    const std::size_t spaces = text.find_first_not_of(' ', start) - start;
    it->second->write(os, indent > 0 ? static_cast<int>(spaces) / indent : 0);
    it->second = nullptr;
    ++found;
    from = end + 1;
  }
  if (found != splices.size()) throw std::logic_error("json splice: placeholder not found");
  os.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

void write_flat_array(std::ostream& os, int indent, int depth, std::size_t rows,
                      const FlatRow& row) {
  if (rows == 0) {
    os << "[]";
    return;
  }
  std::vector<std::pair<const char*, std::string>> fields;
  std::string out = "[";
  for (std::size_t i = 0; i < rows; ++i) {
    fields.clear();
    row(i, fields);
    if (i > 0) out += ',';
    newline(out, (depth + 1) * indent);
    if (fields.empty()) {
      out += "{}";
      continue;
    }
    out += '{';
    for (std::size_t f = 0; f < fields.size(); ++f) {
      if (f > 0) out += ',';
      newline(out, (depth + 2) * indent);
      ((out += '"') += fields[f].first) += "\": ";
      out += fields[f].second;
    }
    newline(out, (depth + 1) * indent);
    out += '}';
  }
  newline(out, depth * indent);
  out += ']';
  os.write(out.data(), static_cast<std::streamsize>(out.size()));
}

void write_string_array(std::ostream& os, int indent, int depth,
                        const std::vector<std::string>& items) {
  if (items.empty()) {
    os << "[]";
    return;
  }
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    newline(out, (depth + 1) * indent);
    out += json_string(items[i]);
  }
  newline(out, depth * indent);
  out += ']';
  os.write(out.data(), static_cast<std::streamsize>(out.size()));
}

}  // namespace topoplan::report
