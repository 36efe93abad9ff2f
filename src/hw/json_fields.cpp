#include "hw/json_fields.hpp"

#include <cmath>

#include "topoplan/error.hpp"

namespace topoplan::detail {

nlohmann::json parse_json_text(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann reports the byte just past the error (1-based); point at the byte itself.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
    if (auto pos = what.find(": "); pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError(source, line_column_location(text, offset), "malformed JSON: " + what);
  }
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

Fields::Fields(const nlohmann::json& o, std::string src, std::string ptr)
    : obj(o), source(std::move(src)), pointer(std::move(ptr)) {
  if (!obj.is_object())
    throw InputError(source, pointer.empty() ? "/" : pointer, "expected an object");
}

std::string Fields::pointer_to(const std::string& key) const {
  return pointer + "/" + pointer_token(key);
}

bool Fields::has(const std::string& key) const {
  return obj.contains(key);
}

const nlohmann::json& Fields::at(const std::string& key) const {
  auto it = obj.find(key);
  if (it == obj.end()) throw InputError(source, pointer_to(key), "missing field");
  return *it;
}

std::string Fields::str(const std::string& key) const {
  const auto& v = at(key);
  if (!v.is_string()) throw InputError(source, pointer_to(key), "expected a string");
  return v.get<std::string>();
}

std::string Fields::str_or(const std::string& key, const std::string& fallback) const {
  return has(key) ? str(key) : fallback;
}

double Fields::number(const std::string& key, double min, bool positive) const {
  if (!has(key) && !positive) return 0;
  const auto& v = at(key);
  const std::string ptr = pointer_to(key);
  if (!v.is_number()) throw InputError(source, ptr, "expected a number");
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < min || (positive && x <= 0)) {
    std::string bound = positive && min <= 0 ? "> 0" : ">= " + nlohmann::json(min).dump();
    throw InputError(source, ptr, "must be " + bound + ", got " + v.dump());
  }
  return x;
}

int Fields::integer(const std::string& key, int min) const {
  const auto& v = at(key);
  const std::string ptr = pointer_to(key);
  if (!v.is_number_integer()) throw InputError(source, ptr, "expected an integer");
  const auto x = v.get<long long>();
  if (x < min)
    throw InputError(source, ptr, "must be >= " + std::to_string(min) + ", got " + v.dump());
  if (x > 1000000000) throw InputError(source, ptr, "must be <= 1000000000, got " + v.dump());
  return static_cast<int>(x);
}

}  // namespace topoplan::detail
