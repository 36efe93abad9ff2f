// A small XML reader for NCCL topology files: elements, attributes, comments, the <?xml?>
// declaration and the five predefined entities. Text content, CDATA and DTDs are not needed by
// the NCCL format and are rejected. Every element remembers its line so that importers can name
// it in errors. Private to src/.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace topoplan::detail {

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;  // in file order
  std::vector<XmlElement> children;
  int line = 0;  // 1-based line of the '<' that opens the element

  // The attribute's value, or nullptr when absent.
  const std::string* attribute(const std::string& key) const;
};

// Parses `text` into its root element. Throws InputError(source, "line N", ...) on malformed
// XML: unclosed or mismatched tags, bad attribute syntax, duplicate attributes, stray text, a
// second root element.
XmlElement parse_xml(const std::string& text, const std::string& source);

// Escapes &, <, >, " for an attribute value written between double quotes.
std::string xml_escape(const std::string& value);

}  // namespace topoplan::detail
