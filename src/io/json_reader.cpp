#include "io/json_reader.hpp"
#include "io/utf8.hpp"

#include "io/quantity_ranges.hpp"

#include <cmath>

#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"

namespace topoplan::io {

namespace {
// Integers beyond this are typos, not counts (and would overflow int).
constexpr long long kMaxInteger = 1'000'000'000;
}  // namespace

namespace {
// Refuses nesting deeper than limits::kMaxJsonDepth before nlohmann sees the text: its parser
// and its destructor recurse once per level, so "[[[[..." 100,000 deep overflows the stack.
// Brackets inside strings do not count; a malformed document is left to the parser's message.
void check_depth(const std::string& text, const std::string& source) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits::kMaxJsonDepth)
        throw InputError(source, line_column_location(text, i),
                         "JSON nested deeper than " + std::to_string(limits::kMaxJsonDepth) +
                             " levels (docs/limits.md)");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}
}  // namespace

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  check_depth(text, source);
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports the byte just past the error (1-based); point at the byte itself.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
    if (auto pos = what.find(": "); pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(source, line_column_location(text, offset), "malformed JSON: " + what);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond the double range ("3e2768"): nlohmann gives no offset, but quotes the
    // token, so locate its first occurrence (found by fuzzing; was an internal error, exit 1).
    const std::string what = e.what();
    const auto open = what.find('\''), close = what.rfind('\'');
    const std::string token =
        open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
    const std::size_t at = token.empty() ? std::string::npos : text.find(token);
    throw InputError(source, at == std::string::npos ? "" : line_column_location(text, at),
                     "number out of range: " + (token.empty() ? what : token));
  }
}

namespace {
// Length of the well-formed UTF-8 sequence at text[i], 0 if there is none (RFC 3629: no
// overlong forms, no UTF-16 surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence(const std::string& text, std::size_t i) {
  const auto b = static_cast<unsigned char>(text[i]);
  const std::size_t n = b < 0x80                   ? 1
                        : (b >= 0xC2 && b <= 0xDF) ? 2
                        : (b >= 0xE0 && b <= 0xEF) ? 3
                        : (b >= 0xF0 && b <= 0xF4) ? 4
                                                   : 0;
  bool ok = n > 0 && i + n <= text.size();
  for (std::size_t k = 1; ok && k < n; ++k)
    ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
  if (ok && n == 3) {
    const auto c1 = static_cast<unsigned char>(text[i + 1]);
    ok = !(b == 0xE0 && c1 < 0xA0) && !(b == 0xED && c1 >= 0xA0);
  }
  if (ok && n == 4) {
    const auto c1 = static_cast<unsigned char>(text[i + 1]);
    ok = !(b == 0xF0 && c1 < 0x90) && !(b == 0xF4 && c1 >= 0x90);
  }
  return ok ? n : 0;
}
}  // namespace

std::string utf8_or_replaced(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = utf8_sequence(text, i)) {
      out.append(text, i, n);
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

bool is_utf8(const std::string& text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

JsonReader::JsonReader(const nlohmann::json& j, std::string source, std::string pointer)
    : j_(j), source_(std::move(source)), pointer_(std::move(pointer)) {}

JsonReader JsonReader::object_at(const nlohmann::json& j, std::string source, std::string pointer) {
  if (!j.is_object())
    throw InputError(source, pointer.empty() ? "/" : pointer, "expected an object");
  return JsonReader(j, std::move(source), std::move(pointer));
}

bool JsonReader::has(const std::string& key) const {
  auto it = j_.find(key);
  return it != j_.end() && !it->is_null();
}

std::string JsonReader::pointer_to(const std::string& key) const {
  return pointer_ + "/" + pointer_token(key);
}

void JsonReader::fail(const std::string& where, const std::string& what) const {
  throw InputError(source_, where, what);
}

void JsonReader::only(std::initializer_list<const char*> allowed) const {
  for (const auto& [key, value] : j_.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) fail(pointer_to(key), "unknown key \"" + key + "\"");
  }
}

const nlohmann::json& JsonReader::at(const std::string& key) const {
  auto it = j_.find(key);
  if (it == j_.end()) fail(pointer_to(key), "missing field");
  return *it;
}

std::string JsonReader::str(const std::string& key) const {
  const auto& v = at(key);
  if (!v.is_string()) fail(pointer_to(key), "expected a string, got " + v.dump());
  return v.get<std::string>();
}

std::string JsonReader::str_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? str(key) : fallback;
}

std::string JsonReader::str_at_most(const std::string& key, std::size_t max_bytes) const {
  if (!has(key)) return "";
  std::string text = str(key);
  if (text.size() > max_bytes)
    fail(pointer_to(key), "longer than " + std::to_string(max_bytes) + " bytes (" +
                              std::to_string(text.size()) + ")");
  return text;
}

double JsonReader::number(const std::string& key, double min, bool positive) const {
  if (!has(key) && !positive) return 0;
  const auto& v = at(key);
  if (!v.is_number()) fail(pointer_to(key), "expected a number, got " + v.dump());
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < min || (positive && x <= 0)) {
    std::string bound = positive && min <= 0 ? "> 0" : ">= " + nlohmann::json(min).dump();
    fail(pointer_to(key), "must be " + bound + ", got " + v.dump());
  }
  return x;
}

double JsonReader::number_at_most(const std::string& key, double min, double max,
                                  bool positive) const {
  const double x = number(key, min, positive);
  if (x > max)
    fail(pointer_to(key), "must be <= " + nlohmann::json(max).dump() + ", got " + at(key).dump() +
                              " (docs/limits.md)");
  return x;
}

double JsonReader::quantity(const std::string& key, const QuantityRange& range,
                            bool zero_ok) const {
  if (zero_ok && !has(key)) return 0;
  const auto& v = at(key);
  if (!v.is_number()) fail(pointer_to(key), "expected a number, got " + v.dump());
  const double x = v.get<double>();
  if (const std::string p = out_of_range(x, range, zero_ok); !p.empty()) fail(pointer_to(key), p);
  return x;
}

int JsonReader::integer(const std::string& key, int min) const {
  const auto& v = at(key);
  if (!v.is_number_integer()) fail(pointer_to(key), "expected an integer, got " + v.dump());
  // An unsigned above INT64_MAX (18446744073709551615) would wrap to a negative long long.
  if (v.is_number_unsigned() && v.get<unsigned long long>() > kMaxInteger)
    fail(pointer_to(key), "must be <= " + std::to_string(kMaxInteger) + ", got " + v.dump());
  const auto x = v.get<long long>();
  if (x < min) fail(pointer_to(key), "must be >= " + std::to_string(min) + ", got " + v.dump());
  if (x > kMaxInteger)
    fail(pointer_to(key), "must be <= " + std::to_string(kMaxInteger) + ", got " + v.dump());
  return static_cast<int>(x);
}

int JsonReader::integer_or(const std::string& key, int fallback) const {
  return has(key) ? integer(key, 0) : fallback;
}

bool JsonReader::boolean_or(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const auto& v = j_.at(key);
  if (!v.is_boolean()) fail(pointer_to(key), "expected true or false, got " + v.dump());
  return v.get<bool>();
}

JsonReader JsonReader::object(const std::string& key) const {
  if (!has(key)) fail(pointer_to(key), "missing field");
  return object_at(j_.at(key), source_, pointer_to(key));
}

}  // namespace topoplan::io
