// Fixtures shared by placement_test.cpp and placement_optimize_test.cpp.
#pragma once

#include <string>

#include "plan/plan_test_util.hpp"

namespace topoplan::test {

// `nodes` copies of a built-in server on its default fabric (the server alone for 1).
inline Topology cluster(const std::string& server, int nodes) {
  return load_topology(server, Machine::cluster(nodes));
}

}  // namespace topoplan::test
