// The progress bar of long searches (plan, plan --mode train).
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "cli/progress_throttle.hpp"

namespace topoplan::cli {

// A progress bar on stderr for searches that run longer than a second, only on a terminal
// (never on stdout, never into a pipe or file); erased when the search ends.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled && isatty(STDERR_FILENO) == 1) {}
  ~ProgressBar() {
    if (drawn_) std::fprintf(stderr, "\r%*s\r", kWidth + 40, "");
  }
  void update(int done, int total) {
    if (!enabled_) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (total <= 0 || !throttle_.due(elapsed, done >= total)) return;
    const int fill = static_cast<int>(static_cast<long long>(kWidth) * done / total);
    std::fprintf(stderr, "\r[%s%s] %d/%d strategies, %.0f s", std::string(fill, '#').c_str(),
                 std::string(kWidth - fill, ' ').c_str(), done, total, elapsed);
    std::fflush(stderr);
    drawn_ = true;
  }

 private:
  static constexpr int kWidth = 30;
  bool enabled_;
  ProgressThrottle throttle_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace topoplan::cli
