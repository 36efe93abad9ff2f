#include <doctest/doctest.h>

#include "topoplan/topology_io.hpp"

using namespace topoplan;

TEST_CASE("smoke") {
  Topology t = load_topology("hgx-h20-8");
  CHECK(t.gpus().size() == 8);
}
