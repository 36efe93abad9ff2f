// LogCurve interpolation and Bound names.
#include <cmath>

#include "topoplan/perf.hpp"

namespace topoplan {

std::string_view to_string(Bound b) {
  switch (b) {
    case Bound::Compute:
      return "compute";
    case Bound::Memory:
      return "memory";
    case Bound::Floor:
      return "floor";
  }
  return "?";
}

// Geometric interpolation (log y linear in log x): time = x / y(x) then rises between two points
// whenever it rises from one to the next, so measured monotonic times give a monotonic model.
// Linear scan: the curves hold ~10-20 points.
double LogCurve::at(double x) const noexcept {
  if (y.empty()) return 1.0;
  if (!(x > 0)) return y.front();
  const double lx = std::log(x);
  if (lx <= log_x.front()) return y.front();
  if (lx >= log_x.back()) return y.back();
  std::size_t i = 1;
  while (log_x[i] < lx) ++i;
  const double t = (lx - log_x[i - 1]) / (log_x[i] - log_x[i - 1]);
  return std::exp(std::log(y[i - 1]) + t * (std::log(y[i]) - std::log(y[i - 1])));
}

}  // namespace topoplan
