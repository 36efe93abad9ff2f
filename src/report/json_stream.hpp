// Pretty JSON written as it is produced, for documents too large to build in memory first
// (`topo show --json` of 100,000 GPUs: 130 MB of text that an nlohmann document held as ~750 MB
// of nodes). The bytes are those of nlohmann's dump(2) of the same document, so outputs keep
// their goldens whichever way they are written (tests/report/json_stream_test.cpp).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace topoplan::report {

class JsonStream {
 public:
  explicit JsonStream(std::ostream& os) : os_(os) {}
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;
  ~JsonStream();  // flushes what is buffered (call flush() to see stream errors first)

  JsonStream& begin_object();
  JsonStream& end_object();
  JsonStream& begin_array();
  JsonStream& end_array();
  // Names the next value of the enclosing object.
  JsonStream& key(std::string_view k);

  JsonStream& value(std::string_view s);
  JsonStream& value(const char* s) { return value(std::string_view(s)); }
  JsonStream& value(const std::string& s) { return value(std::string_view(s)); }
  JsonStream& value(long long v);
  JsonStream& value(int v) { return value(static_cast<long long>(v)); }
  JsonStream& value(unsigned long long v);
  JsonStream& value(unsigned long v) { return value(static_cast<unsigned long long>(v)); }
  JsonStream& value(double v);  // NaN and infinities print as null, as nlohmann does
  JsonStream& value(bool v);
  JsonStream& null();

  // key(k).value(v), the common case.
  template <class T>
  JsonStream& field(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  void flush();  // writes the buffer to the stream

 private:
  void before_value();  // the comma, newline and indent that precede a value or key
  void open(char c);    // '{' or '['
  void close(char c);   // '}' or ']'
  void raw(std::string_view s);
  void string(std::string_view s);

  struct Level {
    bool empty = true;  // no member or element written yet
  };
  std::ostream& os_;
  std::string buf_;
  std::vector<Level> stack_;
  bool after_key_ = false;  // the next value follows "key": on the same line
};

}  // namespace topoplan::report
