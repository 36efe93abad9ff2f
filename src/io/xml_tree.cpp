// Recursive-descent XML reader (see xml_tree.hpp for what it accepts).
#include "io/xml_tree.hpp"

#include <cctype>

#include "topoplan/error.hpp"

namespace topoplan::detail {
namespace {

class Reader {
 public:
  Reader(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  XmlElement document() {
    skip_misc();
    if (at_end()) fail("no root element");
    XmlElement root = element();
    skip_misc();
    if (!at_end()) fail(peek() == '<' ? "a second root element" : "text after the root element");
    return root;
  }

 private:
  const std::string& text_;
  const std::string& source_;
  std::size_t pos_ = 0;
  int line_ = 1;

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(source_, "line " + std::to_string(line_), what);
  }
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  bool starts(const char* s) const {
    return text_.compare(pos_, std::char_traits<char>::length(s), s) == 0;
  }
  void advance(std::size_t n = 1) {
    for (std::size_t i = 0; i < n && !at_end(); ++i, ++pos_)
      if (text_[pos_] == '\n') ++line_;
  }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(peek()))) advance();
  }
  // Skips up to and including `end`; fails naming `what` when the file ends first.
  void skip_past(const char* end, const char* what) {
    const int start = line_;
    const std::size_t at = text_.find(end, pos_);
    if (at == std::string::npos) {
      line_ = start;
      fail(std::string("unterminated ") + what);
    }
    advance(at + std::char_traits<char>::length(end) - pos_);
  }
  // Whitespace, comments and processing instructions between elements.
  void skip_misc() {
    for (;;) {
      skip_space();
      if (starts("<!--")) {
        skip_past("-->", "comment");
      } else if (starts("<?")) {
        skip_past("?>", "<? ... ?> declaration");
      } else if (starts("<!")) {
        fail("DOCTYPE and CDATA sections are not supported");
      } else {
        return;
      }
    }
  }
  std::string name() {
    const std::size_t start = pos_;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' ||
                         peek() == '-' || peek() == ':' || peek() == '.'))
      advance();
    if (pos_ == start) fail(std::string("expected a name, found '") + peek() + "'");
    return text_.substr(start, pos_ - start);
  }
  std::string unescape(const std::string& raw) const {
    static const std::pair<const char*, char> kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    std::string out;
    for (std::size_t i = 0; i < raw.size();) {
      bool matched = raw[i] != '&';
      if (!matched) {
        for (const auto& [entity, c] : kEntities) {
          if (raw.compare(i, std::char_traits<char>::length(entity), entity) == 0) {
            out += c;
            i += std::char_traits<char>::length(entity);
            matched = true;
            break;
          }
        }
        if (!matched) fail("unknown entity in attribute value '" + raw + "'");
        continue;
      }
      out += raw[i++];
    }
    return out;
  }
  void attributes(XmlElement& e) {
    for (;;) {
      skip_space();
      if (peek() == '/' || peek() == '>' || at_end()) return;
      const std::string key = name();
      skip_space();
      if (peek() != '=') fail("attribute '" + key + "' has no '=' value");
      advance();
      skip_space();
      const char quote = peek();
      if (quote != '"' && quote != '\'') fail("attribute '" + key + "' value must be quoted");
      advance();
      const std::size_t close = text_.find(quote, pos_);
      if (close == std::string::npos) fail("unterminated value of attribute '" + key + "'");
      const std::string raw = text_.substr(pos_, close - pos_);
      advance(close + 1 - pos_);
      if (e.attribute(key)) fail("duplicate attribute '" + key + "' on <" + e.name + ">");
      e.attributes.emplace_back(key, unescape(raw));
    }
  }
  XmlElement element() {
    if (peek() != '<') fail("expected '<'");
    XmlElement e;
    e.line = line_;
    advance();
    e.name = name();
    attributes(e);
    if (starts("/>")) {
      advance(2);
      return e;
    }
    if (peek() != '>') fail("unterminated tag <" + e.name + ">");
    advance();
    for (;;) {
      skip_misc();
      if (at_end()) {
        line_ = e.line;
        fail("<" + e.name + "> is never closed");
      }
      if (starts("</")) break;
      if (peek() != '<') fail("unexpected text inside <" + e.name + ">");
      e.children.push_back(element());
    }
    advance(2);
    const std::string closing = name();
    if (closing != e.name)
      fail("</" + closing + "> closes <" + e.name + "> opened on line " + std::to_string(e.line));
    skip_space();
    if (peek() != '>') fail("expected '>' after </" + closing);
    advance();
    return e;
  }
};

}  // namespace

const std::string* XmlElement::attribute(const std::string& key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

XmlElement parse_xml(const std::string& text, const std::string& source) {
  return Reader(text, source).document();
}

std::string xml_escape(const std::string& value) {
  std::string out;
  for (char c : value) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace topoplan::detail
