#include "report/json_stream.hpp"

#include <charconv>
#include <nlohmann/json.hpp>

namespace topoplan::report {

namespace {
constexpr int kIndent = 2;                     // dump(2)
constexpr std::size_t kFlushBytes = 1u << 20;  // one write per MiB, not per token

// Bytes nlohmann's dump writes as they are: printable ASCII other than the quote and backslash.
// Anything else (control characters, non-ASCII UTF-8, invalid UTF-8) goes through nlohmann's
// own escaping so the bytes, and the error on invalid UTF-8, stay exactly its own.
bool plain(std::string_view s) {
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}
}  // namespace

JsonStream::~JsonStream() {
  try {
    flush();
  } catch (...) {  // a destructor must not throw; the stream's state says it failed
  }
}

void JsonStream::flush() {
  os_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

void JsonStream::raw(std::string_view s) {
  buf_.append(s);
  if (buf_.size() >= kFlushBytes) flush();
}

void JsonStream::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;  // the top-level value
  Level& level = stack_.back();
  raw(level.empty ? "\n" : ",\n");
  level.empty = false;
  buf_.append(stack_.size() * kIndent, ' ');
}

void JsonStream::open(char c) {
  before_value();
  raw(std::string_view(&c, 1));
  stack_.push_back({});
}

void JsonStream::close(char c) {
  const bool empty = stack_.back().empty;
  stack_.pop_back();
  if (!empty) {
    raw("\n");
    buf_.append(stack_.size() * kIndent, ' ');
  }
  raw(std::string_view(&c, 1));
}

JsonStream& JsonStream::begin_object() {
  open('{');
  return *this;
}
JsonStream& JsonStream::end_object() {
  close('}');
  return *this;
}
JsonStream& JsonStream::begin_array() {
  open('[');
  return *this;
}
JsonStream& JsonStream::end_array() {
  close(']');
  return *this;
}

void JsonStream::string(std::string_view s) {
  if (plain(s)) {
    buf_ += '"';
    buf_.append(s);
    raw("\"");
  } else {
    raw(nlohmann::json(std::string(s)).dump());
  }
}

JsonStream& JsonStream::key(std::string_view k) {
  before_value();
  string(k);
  raw(": ");
  after_key_ = true;
  return *this;
}

JsonStream& JsonStream::value(std::string_view s) {
  before_value();
  string(s);
  return *this;
}

JsonStream& JsonStream::value(long long v) {
  before_value();
  char b[24];
  const auto r = std::to_chars(b, b + sizeof b, v);
  raw(std::string_view(b, static_cast<std::size_t>(r.ptr - b)));
  return *this;
}

JsonStream& JsonStream::value(unsigned long long v) {
  before_value();
  char b[24];
  const auto r = std::to_chars(b, b + sizeof b, v);
  raw(std::string_view(b, static_cast<std::size_t>(r.ptr - b)));
  return *this;
}

JsonStream& JsonStream::value(double v) {
  before_value();
  // nlohmann's shortest round-trip form (grisu2, "450.0", "1e-05"), not re-implemented here.
  raw(nlohmann::json(v).dump());
  return *this;
}

JsonStream& JsonStream::value(bool v) {
  before_value();
  raw(v ? "true" : "false");
  return *this;
}

JsonStream& JsonStream::null() {
  before_value();
  raw("null");
  return *this;
}

}  // namespace topoplan::report
