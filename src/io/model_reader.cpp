#include "io/model_reader.hpp"

namespace topoplan::io {

void JsonReader::only(std::initializer_list<const char*> allowed) const {
  for (const auto& [key, value] : j_.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) fail(pointer_ + "/" + key, "unknown key \"" + key + "\"");
  }
}

int JsonReader::integer(const char* key) const {
  if (!has(key)) fail(at(key), "missing required integer");
  int v = integer(key, 0);
  if (v <= 0) fail(at(key), "must be a positive integer");
  return v;
}

int JsonReader::integer(const char* key, int fallback) const {
  if (!has(key)) return fallback;
  const auto& v = j_.at(key);
  if (!v.is_number_integer()) fail(at(key), "expected an integer, got " + v.dump());
  auto x = v.get<long long>();
  if (x < 0 || x > 1'000'000'000) fail(at(key), "out of range: " + v.dump());
  return static_cast<int>(x);
}

bool JsonReader::boolean(const char* key, bool fallback) const {
  if (!has(key)) return fallback;
  const auto& v = j_.at(key);
  if (!v.is_boolean()) fail(at(key), "expected true or false, got " + v.dump());
  return v.get<bool>();
}

std::string JsonReader::string(const char* key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  const auto& v = j_.at(key);
  if (!v.is_string()) fail(at(key), "expected a string, got " + v.dump());
  return v.get<std::string>();
}

JsonReader JsonReader::object(const char* key) const {
  if (!has(key)) fail(at(key), "missing required object");
  if (!j_.at(key).is_object()) fail(at(key), "expected an object");
  return JsonReader(j_.at(key), source_, at(key));
}

}  // namespace topoplan::io
