// DeviceId (topoplan/device_id.hpp).
#include "topoplan/device_id.hpp"

#include <ostream>

namespace topoplan {

namespace {
// The server number of an "n<k>/<rest>" id and where its rest starts, or -1: k is 1 to 9
// digits without a leading zero (so the text reads back exactly and fits an int) and the rest
// is not empty.
int server_prefix(std::string_view text, std::size_t& rest) {
  if (text.size() < 4 || text[0] != 'n') return -1;
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash < 2 || slash > 10 || slash + 1 == text.size())
    return -1;
  if (text[1] == '0' && slash > 2) return -1;
  int k = 0;
  for (std::size_t i = 1; i < slash; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    k = k * 10 + (text[i] - '0');
  }
  rest = slash + 1;
  return k;
}
}  // namespace

DeviceId::DeviceId(std::string_view text) {
  std::size_t rest = 0;
  server_ = server_prefix(text, rest);
  rest_ = Name(server_ < 0 ? text : text.substr(rest));
}

bool operator==(const DeviceId& a, std::string_view b) {
  std::size_t rest = 0;
  const int server = server_prefix(b, rest);
  return a.server_ == server && a.rest_ == (server < 0 ? b : b.substr(rest));
}

DeviceId DeviceId::in_server(int server, const DeviceId& local) {
  if (local.server_ >= 0 || server < 0) return DeviceId("n" + std::to_string(server) + "/" + local);
  DeviceId id;
  id.rest_ = local.rest_;
  id.server_ = server;
  return id;
}

std::string DeviceId::str() const {
  if (server_ < 0) return rest_.str();
  std::string s = "n";
  s += std::to_string(server_);
  s += '/';
  s += rest_.str();
  return s;
}

// Parsed again: the rest may itself be of the n<k>/ form ("n1/n2/gpu"), and equality needs
// every id in its split form.
DeviceId DeviceId::local() const {
  return server_ < 0 ? *this : DeviceId(std::string_view(rest_.str()));
}

std::ostream& operator<<(std::ostream& os, const DeviceId& id) {
  return os << id.str();
}

}  // namespace topoplan
