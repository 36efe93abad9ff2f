// topoplan::DeviceId: an id kept as a server number and an interned rest (issue 32).
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "topoplan/device_id.hpp"

using topoplan::DeviceId;

TEST_CASE("DeviceId: every text reads back exactly") {
  for (const char* text :
       {"gpu3", "n12/gpu3", "n0/nic1", "rail5/leaf16", "n/gpu", "n01/gpu", "n12/", "n1x/gpu",
        "nvswitch0", "n", "n12", "n1234567890/gpu", "n1/n2/gpu", "", "N3/gpu"}) {
    const DeviceId id(text);
    CHECK(id.str() == text);
    CHECK(std::string(id) == text);
    CHECK(id.empty() == std::string(text).empty());
  }
}

TEST_CASE("DeviceId: n<k>/<rest> is split, other texts are not") {
  CHECK(DeviceId("n12/gpu3").server() == 12);
  CHECK(DeviceId("n0/gpu3").server() == 0);
  CHECK(DeviceId("n1/n2/gpu").server() == 1);
  CHECK(DeviceId("n1/n2/gpu").local() == "n2/gpu");
  CHECK(DeviceId("n123456789/gpu").server() == 123456789);
  // A leading zero, no digits, no rest, a non-digit or ten digits keep the whole text.
  for (const char* text : {"n01/gpu", "n/gpu", "n12/", "n1x/gpu", "n1234567890/gpu", "gpu3"})
    CHECK(DeviceId(text).server() == -1);
  CHECK(DeviceId("n12/gpu3").local() == "gpu3");
  CHECK(DeviceId("gpu3").local() == "gpu3");
}

TEST_CASE("DeviceId: in_server makes the text a parse of it would") {
  const DeviceId local("gpu7");
  const DeviceId copy = DeviceId::in_server(4321, local);
  CHECK(copy.str() == "n4321/gpu7");
  CHECK(copy == DeviceId("n4321/gpu7"));
  CHECK(copy.server() == 4321);
  // An id that is already a server's copy nests as text would.
  const DeviceId nested = DeviceId::in_server(5, DeviceId("n1/gpu"));
  CHECK(nested.str() == "n5/n1/gpu");
  CHECK(nested == DeviceId("n5/n1/gpu"));
}

TEST_CASE("DeviceId: equality and order are the texts'") {
  CHECK(DeviceId("n2/gpu1") == "n2/gpu1");
  CHECK(DeviceId("n2/gpu1") == std::string("n2/gpu1"));
  CHECK_FALSE(DeviceId("n2/gpu1") == "n2/gpu10");
  CHECK_FALSE(DeviceId("n2/gpu1") == "n3/gpu1");
  CHECK_FALSE(DeviceId("n02/gpu1") == DeviceId("n2/gpu1"));  // different texts
  // Order is the texts' order, not the server numbers': "n10/" sorts before "n9/".
  CHECK(DeviceId("n10/gpu0") < DeviceId("n9/gpu0"));
  CHECK_FALSE(DeviceId("n9/gpu0") < DeviceId("n10/gpu0"));
  CHECK(DeviceId("a") < DeviceId("n0/a"));
}

TEST_CASE("DeviceId: concatenation and streaming read the text") {
  const DeviceId id("n3/gpu2");
  CHECK("GPU " + id == "GPU n3/gpu2");
  CHECK(id + " -> x" == "n3/gpu2 -> x");
  CHECK(std::string("[") + id + std::string("]") == "[n3/gpu2]");
  std::ostringstream os;
  os << id;
  CHECK(os.str() == "n3/gpu2");
}
