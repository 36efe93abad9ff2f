// Helpers shared by the route tests.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "topoplan/route.hpp"

namespace topoplan::test {

inline int id(const Topology& t, const std::string& name) {
  auto i = t.find(name);
  REQUIRE_MESSAGE(i.has_value(), "no device " << name);
  return *i;
}

// Checks class, bottleneck bandwidth (GB/s) and summed latency (µs) of a path.
inline void check_path(const Path& p, PathClass cls, double bw_GBps, double latency_us) {
  CHECK(to_string(p.cls) == to_string(cls));
  CHECK(p.bw_GBps == doctest::Approx(bw_GBps));
  CHECK(p.latency_us == doctest::Approx(latency_us));
}

}  // namespace topoplan::test
