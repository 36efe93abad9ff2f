// When a progress bar redraws: not before the search has run a second (short searches draw
// nothing), then at most ten times a second, and always at the end. Issue 28: the serving bar
// redrew once per strategy, ~6,000 times in a 5 s search.
#pragma once

namespace topoplan::cli {

class ProgressThrottle {
 public:
  static constexpr double kDelay_s = 1.0, kInterval_s = 0.1;
  // True when a bar should be drawn now, `elapsed_s` after the start; `last` is the final update.
  bool due(double elapsed_s, bool last) {
    if (elapsed_s < kDelay_s) return false;
    if (!last && drawn_ && elapsed_s - last_s_ < kInterval_s) return false;
    drawn_ = true;
    last_s_ = elapsed_s;
    return true;
  }

 private:
  bool drawn_ = false;
  double last_s_ = 0;
};

}  // namespace topoplan::cli
