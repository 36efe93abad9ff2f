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
        "t.xml: line 3: malformed XML: Opening and ending tag mismatch: cpu line 2 and system");
  CHECK(error_of("<system>\n\n<cpu/>") == "t.xml: line 1: <system> is never closed");
  CHECK(error_of("<system a=\"1\" a=\"2\"/>") ==
        "t.xml: line 1: malformed XML: Attribute a redefined");
  CHECK(error_of("<system>\nhello</system>") == "t.xml: line 2: unexpected text inside <system>");
  CHECK(error_of("<system a=1/>") == "t.xml: line 1: malformed XML: AttValue: \" or ' expected");
  CHECK(error_of("<a/>\n<b/>") == "t.xml: line 2: a second root element or text after it");
  CHECK(error_of("<a x=\"&bogus;\"/>") ==
        "t.xml: line 1: malformed XML: Entity 'bogus' not defined");
  CHECK(error_of("\n<!-- open") == "t.xml: line 2: malformed XML: Comment not terminated");
  CHECK(error_of("") == "t.xml: line 1: no root element");
  CHECK(error_of("  \n") == "t.xml: line 1: no root element");
}

// libxml2 reads the text; topoplan bounds depth, attributes and elements (limits.hpp) and takes
// no DTD, no external entity and nothing from the network.
TEST_CASE("hostile XML is refused at its line, fast") {
  std::string deep = "<system>\n";
  for (int i = 0; i < 20000; ++i) deep += "<pci>";
  CHECK(error_of(deep) == "t.xml: line 2: <pci> nested deeper than 128 levels");
  std::string wide = "<system>\n<cpu";
  for (int i = 0; i < 200000; ++i) wide += " a" + std::to_string(i) + "=\"1\"";
  CHECK(error_of(wide + "/></system>") == "t.xml: line 2: <cpu> has more than 256 attributes");
  // Quotes hide '>' and '=' inside values; a comment's '=' are not attributes.
  std::string values = "<system>\n<!-- " + std::string(1000, '=') + " -->\n<cpu";
  for (int i = 0; i < 256; ++i) values += " a" + std::to_string(i) + "=\"=>'\"";
  CHECK(parse_xml(values + "/></system>", "t.xml").children.at(0).attributes.size() == 256);
  std::string many = "<system>";
  for (int i = 0; i < 150000; ++i) many += "\n<pci/>";
  CHECK(error_of(many + "</system>") == "t.xml: line 16385: more than 16384 elements in one file");
  CHECK(error_of("<!DOCTYPE s [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n<s a=\"&e;\"/>")
            .find("t.xml: line ") == 0);
  CHECK(error_of("<!DOCTYPE s [<!ENTITY e \"x\">]>\n<s/>")
            .find(": DOCTYPE declarations are not supported") != std::string::npos);
  CHECK(error_of("<s>&amp;</s>") == "t.xml: line 1: unexpected text inside <s>");
  CHECK(error_of("<s><![CDATA[x]]></s>") == "t.xml: line 1: unexpected text inside <s>");
  // Lines past 65,535 are still told exactly.
  CHECK(error_of("<s>" + std::string(70000, '\n') + "<a></b></s>").find("t.xml: line 70001: ") ==
        0);
}
