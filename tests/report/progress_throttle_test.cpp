// The progress bar's redraw rule (src/cli/progress_throttle.hpp).
#include <doctest/doctest.h>

#include "cli/progress_throttle.hpp"

using topoplan::cli::ProgressThrottle;

TEST_CASE("ProgressThrottle: nothing in the first second, then at most 10 redraws a second") {
  ProgressThrottle t;
  CHECK_FALSE(t.due(0.5, false));
  CHECK_FALSE(t.due(0.99, true));  // a search shorter than a second draws nothing
  CHECK(t.due(1.0, false));
  CHECK_FALSE(t.due(1.05, false));
  CHECK(t.due(1.1, false));
  CHECK(t.due(1.15, true));  // the last update is always drawn
  // 6,000 updates over 5 s (one per strategy, as the issue measured) redraw about 41 times.
  ProgressThrottle u;
  int draws = 0;
  for (int i = 1; i <= 6000; ++i) draws += u.due(5.0 * i / 6000, i == 6000);
  CHECK(draws >= 40);
  CHECK(draws <= 42);
}
