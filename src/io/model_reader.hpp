// Checked field access for model JSON: every error names the file and the JSON pointer.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>

#include "topoplan/error.hpp"

namespace topoplan::io {

class JsonReader {
 public:
  JsonReader(const nlohmann::json& j, std::string source, std::string pointer = "")
      : j_(j), source_(std::move(source)), pointer_(std::move(pointer)) {}

  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  std::string at(const char* key) const { return pointer_ + "/" + key; }
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(source_, where, what);
  }
  // Throws on keys outside `allowed` (catches typos such as "hiden_size").
  void only(std::initializer_list<const char*> allowed) const;

  int integer(const char* key) const;                // required, > 0
  int integer(const char* key, int fallback) const;  // optional, >= 0
  bool boolean(const char* key, bool fallback) const;
  std::string string(const char* key, const std::string& fallback) const;
  JsonReader object(const char* key) const;  // required object
  const nlohmann::json& raw() const { return j_; }
  const std::string& source() const { return source_; }
  const std::string& pointer() const { return pointer_; }

 private:
  const nlohmann::json& j_;
  std::string source_, pointer_;
};

}  // namespace topoplan::io
