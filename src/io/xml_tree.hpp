// The XML reader of NCCL topology files, over libxml2: elements, attributes, comments, the <?xml?>
// declaration and the five predefined entities. Text content, CDATA and DTDs are not needed by
// the NCCL format and are rejected; no network access, no entity expansion. Nesting, attributes
// per element and elements per file are bounded (limits.hpp: kMaxXmlDepth, kMaxXmlAttributes,
// kMaxXmlElements). Every element remembers its line so that importers can name it in errors.
// Private to src/.
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
// XML (libxml2's message: mismatched tags, bad attribute syntax, duplicate attributes, unknown
// entities), an unclosed element, stray text, a second root element, a DOCTYPE, or a bound
// passed.
XmlElement parse_xml(const std::string& text, const std::string& source);

// Escapes &, <, >, " for an attribute value written between double quotes.
std::string xml_escape(const std::string& value);

}  // namespace topoplan::detail
