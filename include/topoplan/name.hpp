// Name: an interned string for the catalog names that many records repeat ("H100-SXM",
// "nvlink4", "ib-ndr400"). One pointer into a process-wide pool instead of a 32-byte std::string
// per record: a 100,000-GPU cluster holds 300,000 devices and 590,000 links, and the two strings
// were 21 MB of them (issue 32). It reads like a const std::string.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>

namespace topoplan {

class Name {
 public:
  Name();                       // ""
  Name(std::string_view text);  // NOLINT(google-explicit-constructor): a drop-in for std::string
  Name(const std::string& text) : Name(std::string_view(text)) {}  // NOLINT
  Name(const char* text) : Name(std::string_view(text)) {}         // NOLINT

  operator const std::string&() const { return *text_; }  // NOLINT
  const std::string& str() const { return *text_; }
  bool empty() const { return text_->empty(); }
  std::size_t size() const { return text_->size(); }
  const char* c_str() const { return text_->c_str(); }

  // Equal texts are one pool entry, so equality is identity.
  friend bool operator==(const Name& a, const Name& b) { return a.text_ == b.text_; }
  friend bool operator==(const Name& a, const std::string& b) { return *a.text_ == b; }
  friend bool operator==(const Name& a, const char* b) { return *a.text_ == b; }
  friend bool operator==(const Name& a, std::string_view b) { return *a.text_ == b; }
  friend bool operator<(const Name& a, const Name& b) { return *a.text_ < *b.text_; }

 private:
  const std::string* text_;
};

inline std::string operator+(const Name& a, std::string_view b) {
  return a.str() + std::string(b);
}
inline std::string operator+(const Name& a, const char* b) {
  return a.str() + b;
}
inline std::string operator+(const Name& a, const std::string& b) {
  return a.str() + b;
}
inline std::string operator+(const std::string& a, const Name& b) {
  return a + b.str();
}
inline std::string operator+(const char* a, const Name& b) {
  return a + b.str();
}
std::ostream& operator<<(std::ostream& os, const Name& n);

}  // namespace topoplan
