// The pool behind topoplan::Name (topoplan/name.hpp).
#include "topoplan/name.hpp"

#include <mutex>
#include <ostream>
#include <unordered_set>

namespace topoplan {

namespace {
struct Hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Never destroyed: Names in static objects may be read during exit. Node-based, so an entry's
// address (what a Name holds) never moves.
const std::string* intern(std::string_view text) {
  static auto* pool = new std::unordered_set<std::string, Hash, std::equal_to<>>();
  static auto* guard = new std::mutex();
  const std::lock_guard<std::mutex> lock(*guard);
  auto it = pool->find(text);
  if (it == pool->end()) it = pool->emplace(text).first;
  return &*it;
}
}  // namespace

// The empty text interned once: records default-construct their Names (a Device two), and each
// paid the pool's lock and hash.
Name::Name() {
  static const std::string* const empty = intern({});
  text_ = empty;
}
Name::Name(std::string_view text) : text_(intern(text)) {}

std::ostream& operator<<(std::ostream& os, const Name& n) {
  return os << n.str();
}

}  // namespace topoplan
