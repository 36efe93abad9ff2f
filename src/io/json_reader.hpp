// The one JSON reader of every input format (topology, catalog, model, Hugging Face config,
// calibration, probe results, NCCL tuning): checked access to the fields of an object, every error
// an InputError naming the file and the JSON pointer of the offending field (RFC 6901).
// Private to src/: nlohmann/json never reaches include/.
//
// One rule for absence: a key that is missing or JSON null is "not given" (Hugging Face writes
// null for unset options), so optional accessors return their fallback and required ones say
// "missing field" (missing) or "expected ..., got null" (null).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

namespace topoplan::io {

struct QuantityRange;

// Parses `text`; a syntax error becomes InputError(source, "line L, column C", "malformed JSON:
// ...").
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

// Escapes a key for use inside a JSON pointer (RFC 6901: ~ → ~0, / → ~1).
std::string pointer_token(const std::string& key);

// `text` with every byte that is not part of well-formed UTF-8 replaced by '?'. For names taken
// from file paths (a folder "bad\xffdir" holding config.json): JSON output must be UTF-8, and a
// path is bytes.
std::string utf8_or_replaced(const std::string& text);

class JsonReader {
 public:
  // Reads `j` (not checked: raw() may be any value) found in `source` at `pointer`.
  JsonReader(const nlohmann::json& j, std::string source, std::string pointer = "");
  // The same, but `j` must be an object ("expected an object" at `pointer`, "/" for the root).
  static JsonReader object_at(const nlohmann::json& j, std::string source, std::string pointer);

  bool has(const std::string& key) const;  // present and not null
  std::string pointer_to(const std::string& key) const;
  [[noreturn]] void fail(const std::string& where, const std::string& what) const;
  // Throws on keys outside `allowed` (catches typos such as "hiden_size").
  void only(std::initializer_list<const char*> allowed) const;

  const nlohmann::json& at(const std::string& key) const;  // required: "missing field"
  std::string str(const std::string& key) const;           // required string
  std::string str_or(const std::string& key, const std::string& fallback) const;
  // Optional string (→ "") of at most `max_bytes` bytes: free text such as a description.
  std::string str_at_most(const std::string& key, std::size_t max_bytes) const;
  // A number >= min (`positive` additionally rejects 0); optional (→ 0) unless `positive`.
  double number(const std::string& key, double min, bool positive) const;
  // number(), and at most `max` (a resource or plausibility bound from topoplan/limits.hpp).
  double number_at_most(const std::string& key, double min, double max, bool positive) const;
  // A physical quantity within its plausible range (io/quantity_ranges.hpp): required, finite,
  // min <= x <= max, else "must be MIN to MAX UNIT (docs/limits.md), got X" at the pointer.
  // With `zero_ok`, 0 (absent, or "not supported") is also accepted; an absent key is 0 then.
  double quantity(const std::string& key, const QuantityRange& range, bool zero_ok = false) const;
  int integer(const std::string& key, int min) const;          // required, min..1e9
  int integer_or(const std::string& key, int fallback) const;  // optional, 0..1e9
  bool boolean_or(const std::string& key, bool fallback) const;
  JsonReader object(const std::string& key) const;  // required object

  const nlohmann::json& raw() const { return j_; }
  const std::string& source() const { return source_; }
  const std::string& pointer() const { return pointer_; }

 private:
  const nlohmann::json& j_;
  std::string source_, pointer_;
};

}  // namespace topoplan::io
