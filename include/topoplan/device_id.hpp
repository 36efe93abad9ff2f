// DeviceId: a device's id ("gpu3", "rail5/leaf16", "n12/gpu3") without a string per device. A
// cluster's server copies differ only by their "n<k>/" prefix, so an id is kept as the server
// number and an interned Name for the rest, and the text is assembled when it is read: a
// 100,000-GPU cluster held an id string per device, 16.6 MB and a heap block for each id longer
// than 15 characters (issue 32). Any text may be an id; one of the form n<k>/<rest> (k without
// leading zeros, rest not empty) is split that way, whatever made it, so equal texts are equal
// ids and the text reads back exactly.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "topoplan/name.hpp"

namespace topoplan {

class DeviceId {
 public:
  DeviceId() = default;  // ""
  DeviceId(
      std::string_view text);  // NOLINT(google-explicit-constructor): a drop-in for std::string
  DeviceId(const std::string& text) : DeviceId(std::string_view(text)) {}  // NOLINT
  DeviceId(const char* text) : DeviceId(std::string_view(text)) {}         // NOLINT
  // `local` (an id inside a server, "gpu3") as the id of its copy in server `server` ("n12/gpu3").
  static DeviceId in_server(int server, const DeviceId& local);

  std::string str() const;
  operator std::string() const { return str(); }  // NOLINT(google-explicit-constructor)
  bool empty() const { return server_ < 0 && rest_.empty(); }
  // The server of an "n<k>/..." id (-1 for any other), and the id without that prefix.
  int server() const { return server_; }
  DeviceId local() const;

  friend bool operator==(const DeviceId& a, const DeviceId& b) {
    return a.server_ == b.server_ && a.rest_ == b.rest_;
  }
  // Against text: split as the constructor would, without adding the text to the pool.
  friend bool operator==(const DeviceId& a, std::string_view b);
  friend bool operator==(const DeviceId& a, const std::string& b) {
    return a == std::string_view(b);
  }
  friend bool operator==(const DeviceId& a, const char* b) { return a == std::string_view(b); }
  friend bool operator<(const DeviceId& a, const DeviceId& b) { return a.str() < b.str(); }

 private:
  Name rest_;
  int server_ = -1;
};

inline std::string operator+(const DeviceId& a, std::string_view b) {
  return a.str() + std::string(b);
}
inline std::string operator+(const DeviceId& a, const char* b) {
  return a.str() + b;
}
inline std::string operator+(const DeviceId& a, const std::string& b) {
  return a.str() + b;
}
inline std::string operator+(const std::string& a, const DeviceId& b) {
  return a + b.str();
}
inline std::string operator+(const char* a, const DeviceId& b) {
  return a + b.str();
}
std::ostream& operator<<(std::ostream& os, const DeviceId& id);

}  // namespace topoplan
