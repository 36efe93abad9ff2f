// The XML reader: the subset NCCL topology files use, and errors that name the line.
#include <doctest/doctest.h>

#include "io/xml_tree.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using detail::parse_xml;

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_xml(text, "t.xml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("elements, attributes, comments, declaration and entities") {
  const auto root = parse_xml(
      "<?xml version=\"1.0\"?>\n<!-- c -->\n<system version='1'>\n  <cpu a=\"x &amp; &lt;y&gt;\">\n"
      "    <pci busid=\"0000:01:00.0\"/>\n  </cpu>\n</system>\n",
      "t.xml");
  CHECK(root.name == "system");
  CHECK(*root.attribute("version") == "1");
  CHECK(root.line == 3);
  REQUIRE(root.children.size() == 1);
  CHECK(*root.children[0].attribute("a") == "x & <y>");
  CHECK(root.children[0].children[0].line == 5);
  CHECK(root.children[0].attribute("missing") == nullptr);
  CHECK(detail::xml_escape("a&b\"<") == "a&amp;b&quot;&lt;");
}

TEST_CASE("malformed XML: the message names the line") {
  CHECK(error_of("<system>\n<cpu>\n</system>") ==
        "t.xml: line 3: </system> closes <cpu> opened on line 2");
  CHECK(error_of("<system>\n\n<cpu/>") == "t.xml: line 1: <system> is never closed");
  CHECK(error_of("<system a=\"1\" a=\"2\"/>") ==
        "t.xml: line 1: duplicate attribute 'a' on <system>");
  CHECK(error_of("<system>\nhello</system>") == "t.xml: line 2: unexpected text inside <system>");
  CHECK(error_of("<system a=1/>") == "t.xml: line 1: attribute 'a' value must be quoted");
  CHECK(error_of("<a/>\n<b/>") == "t.xml: line 2: a second root element");
  CHECK(error_of("<a x=\"&bogus;\"/>") ==
        "t.xml: line 1: unknown entity in attribute value '&bogus;'");
  CHECK(error_of("\n<!-- open") == "t.xml: line 2: unterminated comment");
  CHECK(error_of("") == "t.xml: line 1: no root element");
}
