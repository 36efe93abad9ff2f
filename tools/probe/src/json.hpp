// A minimal ordered JSON value for the probe's result file. The probe builds on machines that have
// the CUDA toolkit and nothing else (no nlohmann_json), so it carries this small writer.
#pragma once

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace probe {

class Json {
 public:
  enum class Type { Null, Number, String, Bool, Array, Object };
  Json() = default;
  Json(double v) : type_(Type::Number), num_(v) {}
  Json(int v) : type_(Type::Number), num_(v) {}
  Json(long long v) : type_(Type::Number), num_(static_cast<double>(v)) {}
  Json(std::size_t v) : type_(Type::Number), num_(static_cast<double>(v)) {}
  Json(unsigned v) : type_(Type::Number), num_(v) {}
  Json(bool v) : type_(Type::Bool), num_(v ? 1 : 0) {}
  Json(const char* s) : type_(Type::String), str_(s) {}
  Json(std::string s) : type_(Type::String), str_(std::move(s)) {}
  static Json array() {
    Json j;
    j.type_ = Type::Array;
    return j;
  }
  static Json object() {
    Json j;
    j.type_ = Type::Object;
    return j;
  }

  // Object member (kept in insertion order, replaced if present).
  Json& operator[](const std::string& key) {
    if (type_ != Type::Object) *this = object();
    for (auto& [k, v] : obj_)
      if (k == key) return v;
    obj_.emplace_back(key, Json());
    return obj_.back().second;
  }
  void push(Json v) {
    if (type_ != Type::Array) *this = array();
    arr_.push_back(std::move(v));
  }
  std::size_t size() const { return type_ == Type::Array ? arr_.size() : obj_.size(); }

  std::string dump(int indent = 1) const {
    std::string out;
    write(out, indent, 0);
    out += '\n';
    return out;
  }

 private:
  static void escape(std::string& out, const std::string& s) {
    out += '"';
    for (const char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += c;
      }
    }
    out += '"';
  }
  void write(std::string& out, int indent, int depth) const {
    const std::string pad(static_cast<std::size_t>(indent * (depth + 1)), ' ');
    const std::string end_pad(static_cast<std::size_t>(indent * depth), ' ');
    switch (type_) {
      case Type::Null:
        out += "null";
        break;
      case Type::Bool:
        out += num_ != 0 ? "true" : "false";
        break;
      case Type::Number: {
        if (!std::isfinite(num_)) {
          out += "null";  // JSON has no NaN/Inf; a failed measurement carries an "error" instead
          break;
        }
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.10g", num_);
        out += buf;
        break;
      }
      case Type::String:
        escape(out, str_);
        break;
      case Type::Array:
        out += '[';
        for (std::size_t i = 0; i < arr_.size(); ++i) {
          out += i ? "," : "";
          if (indent) out += "\n" + pad;
          arr_[i].write(out, 0, 0);  // one line per element: a point per line
        }
        if (indent && !arr_.empty()) out += "\n" + end_pad;
        out += ']';
        break;
      case Type::Object:
        out += '{';
        for (std::size_t i = 0; i < obj_.size(); ++i) {
          out += i ? "," : "";
          if (indent) out += "\n" + pad;
          escape(out, obj_[i].first);
          out += ": ";
          obj_[i].second.write(out, indent, depth + 1);
        }
        if (indent && !obj_.empty()) out += "\n" + end_pad;
        out += '}';
        break;
    }
  }

  Type type_ = Type::Null;
  double num_ = 0;
  std::string str_;
  std::vector<Json> arr_;
  std::vector<std::pair<std::string, Json>> obj_;
};

}  // namespace probe
