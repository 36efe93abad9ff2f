// Objects a command builds once and uses to its end (a 100,000-GPU topology, its router and
// collective model). When the command runs in the `topoplan` program, the process exits right
// after it and the system reclaims the pages at once, while freeing the graph's ~900,000
// device, link and adjacency nodes one by one was a tenth of `collective` and `topo show` on
// 100,000 GPUs (issue 32, bench/README.md): there KeptToExit hands the object to a registry
// that is never freed instead of destroying it. It stays reachable from a static pointer, so
// leak checkers (the ASan preset's LeakSanitizer) do not report it. The Python module runs the
// same commands in a long-lived process: there main() has not set the flag, and the object is
// destroyed as usual.
#pragma once

#include <memory>
#include <utility>
#include <vector>

namespace topoplan::cli {

// Set by main() of the `topoplan` program only.
inline bool process_exits_after_command = false;

template <class T>
class KeptToExit {
 public:
  explicit KeptToExit(std::unique_ptr<T> object) : object_(std::move(object)) {}
  KeptToExit(const KeptToExit&) = delete;
  KeptToExit& operator=(const KeptToExit&) = delete;
  ~KeptToExit() {
    if (!process_exits_after_command) return;
    static auto* const kept = new std::vector<std::shared_ptr<void>>;  // never freed, on purpose
    kept->emplace_back(std::move(object_));
  }
  T& operator*() const { return *object_; }
  T* operator->() const { return object_.get(); }

 private:
  std::unique_ptr<T> object_;
};

}  // namespace topoplan::cli
