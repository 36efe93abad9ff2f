// Checked access to JSON object fields for the hw data files: every error names the file and the
// JSON pointer of the offending field. Private to src/ (nlohmann/json never reaches include/).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace topoplan::detail {

// Parses `text`; a syntax error becomes InputError(source, "line L, column C", ...).
nlohmann::json parse_json_text(const std::string& text, const std::string& source);

// Escapes a key for use inside a JSON pointer (RFC 6901: ~ → ~0, / → ~1).
std::string pointer_token(const std::string& key);

class Fields {
 public:
  Fields(const nlohmann::json& obj, std::string src, std::string ptr);

  bool has(const std::string& key) const;
  const nlohmann::json& at(const std::string& key) const;  // throws when missing
  std::string str(const std::string& key) const;           // required string
  std::string str_or(const std::string& key, const std::string& fallback) const;
  // Required (or optional → 0) number >= min; `positive` additionally rejects 0.
  double number(const std::string& key, double min, bool positive) const;
  int integer(const std::string& key, int min) const;    // required integer >= min
  std::string pointer_to(const std::string& key) const;  // JSON pointer of the field `key`

  const nlohmann::json& obj;
  std::string source;
  std::string pointer;
};

}  // namespace topoplan::detail
