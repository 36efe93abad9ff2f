#include "topoplan/error.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <numeric>

#include "topoplan/limits.hpp"

namespace topoplan {
namespace {
std::string compose(const std::string& source, const std::string& location,
                    const std::string& what) {
  std::string msg = source;
  if (!location.empty()) msg += (msg.empty() ? "" : ": ") + location;
  if (!msg.empty()) msg += ": ";
  return msg + what;
}

// A field reference: lower-case letters, digits after the first, '_' and '.' ("mtp_draft",
// "strategy.tp"), so braces in quoted user text ("'{1}'", "{}") are left alone.
bool is_field_name(const std::string& name) {
  if (name.empty() || !std::islower(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '.';
  });
}

// "{name}" → name_of(name) for each field reference; all other text comes back unchanged.
std::string render_fields(const std::string& text,
                          const std::function<std::string(const std::string&)>& name_of) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t open = text.find('{', i);
    const std::size_t close = open == std::string::npos ? open : text.find('}', open);
    if (close == std::string::npos) break;
    const std::string name = text.substr(open + 1, close - open - 1);
    out += text.substr(i, open - i) + (is_field_name(name) ? name_of(name) : "{" + name + "}");
    i = close + 1;
  }
  return out + text.substr(std::min(i, text.size()));
}

// Case-insensitive edit distance of a and b (b at most kMaxSuggestionNameLength characters), or
// any value above `limit` once every entry of a row exceeds it (a row's minimum never
// decreases). Called once per candidate of a file's 100,000 ids for each unknown one: no heap
// row, and most candidates stop after a few characters (a fuzzed file of 20 unknown ids took
// 9.5 s in the fuzz build with a heap row and full rows).
std::size_t edit_distance_within(const std::string& a, const std::string& b, std::size_t limit) {
  std::array<std::size_t, limits::kMaxSuggestionNameLength + 1> row;
  std::iota(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(b.size()) + 1, 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    std::size_t row_min = row[0];
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      std::size_t cost = std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + cost});
      row_min = std::min(row_min, row[j]);
      diag = up;
    }
    if (row_min > limit) return limit + 1;
  }
  return row[b.size()];
}

std::string suggestion_text(const std::string& kind, const std::string& name,
                            const std::vector<std::string>& known) {
  std::string msg = "unknown " + kind + " '" + name + "'";
  auto close = closest_names(name, known);
  if (!close.empty()) {
    msg += "; did you mean ";
    for (std::size_t i = 0; i < close.size(); ++i) msg += (i ? ", '" : "'") + close[i] + "'";
    msg += "?";
  } else if (!known.empty()) {
    // A catalog lists all its names; a file's ten thousand device ids would drown the message.
    constexpr std::size_t kListed = 30;
    msg += "; known: ";
    for (std::size_t i = 0; i < known.size() && i < kListed; ++i) msg += (i ? ", " : "") + known[i];
    if (known.size() > kListed) msg += ", ... (" + std::to_string(known.size()) + " in all)";
  }
  return msg;
}
}  // namespace

InputError::InputError(const std::string& source, const std::string& location,
                       const std::string& what)
    : Error(compose(source, location, what), 2),
      source_(source),
      location_(location),
      detail_(what) {}

InputError::InputError(const std::string& what) : Error(what, 2), detail_(what) {}

namespace {
std::string field_name(const std::string& name) {
  return name;
}
}  // namespace

FieldError::FieldError(const std::string& field, const std::string& detail_template)
    : InputError(field, "", render_fields(detail_template, field_name)),
      template_(detail_template) {}

std::string FieldError::detail_with(
    const std::function<std::string(const std::string&)>& name_of) const {
  return render_fields(template_, name_of);
}

UnknownNameError::UnknownNameError(const std::string& kind, const std::string& name,
                                   const std::vector<std::string>& known)
    : InputError(suggestion_text(kind, name, known)) {}

std::string line_column_location(const std::string& text, std::size_t byte_offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte_offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

std::vector<std::string> closest_names(const std::string& name,
                                       const std::vector<std::string>& known, std::size_t max) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  // Bounded work (topoplan/limits.hpp): an edit distance costs |name| x |k|, so a long name, a
  // long candidate or a huge list (every id of a big file) is cut before it turns quadratic.
  if (name.size() > limits::kMaxSuggestionNameLength) return {};
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
  for (std::size_t i = 0; i < known.size() && i < limits::kMaxSuggestionCandidates; ++i) {
    const std::string& k = known[i];
    // Lengths further apart than `limit` need more than `limit` edits; only a substring match
    // could still count, and that needs the shorter inside the longer.
    const std::size_t gap =
        k.size() > name.size() ? k.size() - name.size() : name.size() - k.size();
    if (k.size() > limits::kMaxSuggestionNameLength) continue;
    std::size_t d = gap > limit ? limit + 1 : edit_distance_within(name, k, limit);
    // Substring matches ("h20" in "hgx-h20-8") count as close even when the edit distance is large.
    bool contains =
        !name.empty() && (k.find(name) != std::string::npos || name.find(k) != std::string::npos);
    if (contains) d = std::min<std::size_t>(d, 1);
    if (d <= limit) scored.emplace_back(d, k);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < max; ++i) out.push_back(scored[i].second);
  return out;
}

}  // namespace topoplan
