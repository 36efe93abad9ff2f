// Splicing streamed arrays into an nlohmann dump (json_splice.hpp).
#include "report/json_splice.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <string_view>

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
  std::vector<std::pair<std::size_t, const Splice*>> at;
  for (const Splice& s : splices) {
    // Searched without its opening quote: the placeholder's first character is the backslash
    // of \u0000, rare in a dump, where a quote starts every key (std::string::find scans for
    // the first character, then compares).
    const std::string quoted = json_string(s.placeholder);
    const std::string_view tail = std::string_view(quoted).substr(1);
    const std::size_t pos = text.find(tail);
    if (pos == std::string::npos || pos == 0 || text[pos - 1] != '"' ||
        text.find(tail, pos + 1) != std::string::npos)
      throw std::logic_error("json splice: placeholder not found exactly once");
    at.emplace_back(pos - 1, &s);
  }
  std::sort(at.begin(), at.end());
  std::size_t from = 0;
  for (const auto& [pos, s] : at) {
    os.write(text.data() + from, static_cast<std::streamsize>(pos - from));
    const std::size_t line = text.rfind('\n', pos);
    const std::size_t start = line == std::string::npos ? 0 : line + 1;
    const std::size_t spaces = text.find_first_not_of(' ', start) - start;
    s->write(os, indent > 0 ? static_cast<int>(spaces) / indent : 0);
    from = pos + json_string(s->placeholder).size();
  }
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
