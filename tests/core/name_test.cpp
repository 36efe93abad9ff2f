// topoplan::Name: an interned string that reads like a const std::string (issue 32).
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "topoplan/name.hpp"
#include "topoplan/topology.hpp"

using topoplan::Name;

TEST_CASE("Name: equal texts are one pool entry, and it reads like a string") {
  const Name a("nvlink4"), b(std::string("nvlink") + "4"), c("pcie5");
  CHECK(&a.str() == &b.str());  // one entry: copies and equal texts share it
  CHECK(&a.str() != &c.str());
  CHECK(a == b);
  CHECK_FALSE(a == c);
  CHECK(a == "nvlink4");
  CHECK(a == std::string("nvlink4"));
  CHECK(std::string("nvlink4") == a);
  CHECK(a < c);  // by text: "nvlink4" < "pcie5"
  CHECK_FALSE(c < a);
  const std::string& text = a;  // no copy: the pool's string
  CHECK(text == "nvlink4");
  CHECK(a.size() == 7);
  CHECK(std::string(a.c_str()) == "nvlink4");
  CHECK(a + " x18" == "nvlink4 x18");
  CHECK("type " + a == "type nvlink4");
  std::ostringstream os;
  os << a;
  CHECK(os.str() == "nvlink4");
  const Name empty;
  CHECK(empty.empty());
  CHECK(empty == "");
  CHECK(empty == Name(""));
}

TEST_CASE("Name keeps the per-device and per-link records small") {
  // A pointer in place of a std::string each: the sizes issue 32 counts per record.
  CHECK(sizeof(Name) == sizeof(void*));
  CHECK(sizeof(topoplan::Link) == 48);
  // The id is a Name and a server number (topoplan/device_id.hpp), no string of its own.
  CHECK(sizeof(topoplan::DeviceId) == 2 * sizeof(void*));
  CHECK(sizeof(topoplan::Device) == 40);
}
