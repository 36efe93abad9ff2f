// XML reader over libxml2's streaming xmlTextReader (see xml_tree.hpp for what it accepts).
// libxml2 does the lexing, entity and encoding rules; this file builds the small element tree
// and applies topoplan's bounds (limits.hpp): depth, attributes per element, element count.
#include "io/xml_tree.hpp"

#include <libxml/parser.h>
#include <libxml/xmlreader.h>

#include <climits>
#include <memory>

#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"

namespace topoplan::detail {
namespace {

// libxml2's parse options: no network (NONET), no DTD loading or validation, entities left
// unexpanded (no NOENT: only the five predefined entities are replaced), no XInclude, no
// XML_PARSE_HUGE (libxml2's own caps on names, text and depth stay on), line numbers past
// 65,535 kept (BIG_LINES).
constexpr int kParseOptions = XML_PARSE_NONET | XML_PARSE_NOCDATA | XML_PARSE_BIG_LINES;

[[noreturn]] void fail(const std::string& source, long line, const std::string& what) {
  throw InputError(source, "line " + std::to_string(line < 1 ? 1 : line), what);
}

// Counts the attributes of every start tag before libxml2 parses the text: libxml2 2.9 checks
// each attribute against all earlier ones of its element (quadratic). One linear pass: a tag runs
// from '<' to the '>' outside quotes; each '=' outside quotes is one attribute. Comments, CDATA
// and processing instructions are skipped whole; whatever else is malformed is left to libxml2.
// Returns whether the text has a start tag at all.
bool check_attribute_counts(const std::string& text, const std::string& source) {
  bool any_tag = false;
  long line = 1;
  auto skip_to = [&](std::size_t from, const char* end) {
    const std::size_t at = text.find(end, from);
    const std::size_t stop = at == std::string::npos ? text.size() : at;
    for (std::size_t i = from; i < stop; ++i) line += text[i] == '\n';
    return stop;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') ++line;
    if (text[i] != '<') continue;
    if (text.compare(i, 4, "<!--") == 0) {
      i = skip_to(i + 4, "-->");
      continue;
    }
    if (text.compare(i, 9, "<![CDATA[") == 0) {
      i = skip_to(i + 9, "]]>");
      continue;
    }
    if (text.compare(i, 2, "<?") == 0) {
      i = skip_to(i + 2, "?>");
      continue;
    }
    const long tag_line = line;
    const std::size_t name_start = i + 1;
    any_tag =
        any_tag || (name_start < text.size() && text[name_start] != '/' && text[name_start] != '!');
    int count = 0;
    std::size_t j = name_start;
    for (; j < text.size() && text[j] != '>' && text[j] != '<'; ++j) {
      const char c = text[j];
      if (c == '\n') ++line;
      if (c == '"' || c == '\'') {
        j = skip_to(j + 1, c == '"' ? "\"" : "'");
      } else if (c == '=' && ++count > limits::kMaxXmlAttributes) {
        std::size_t name_end = name_start;
        while (name_end < text.size() && name_end - name_start < 64 &&
               std::string_view(" \t\r\n/>=").find(text[name_end]) == std::string_view::npos)
          ++name_end;
        fail(source, tag_line,
             "<" + text.substr(name_start, name_end - name_start) + "> has more than " +
                 std::to_string(limits::kMaxXmlAttributes) + " attributes");
      }
    }
    i = j < text.size() && text[j] == '<' ? j - 1 : j;
  }
  return any_tag;
}

// The first error libxml2 reports (warnings are ignored): its line and message.
struct FirstError {
  bool set = false;
  int code = 0;
  long line = 0;
  std::string message;
};

std::string trimmed(const char* message) {
  std::string s = message ? message : "malformed XML";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string str(const xmlChar* s) {
  return s ? reinterpret_cast<const char*>(s) : "";
}

class TreeBuilder {
 public:
  TreeBuilder(const std::string& text, const std::string& source, bool any_tag)
      : source_(source), any_tag_(any_tag) {
    if (text.size() > static_cast<std::size_t>(INT_MAX))
      fail(source, 1, "XML text larger than 2 GiB");
    reader_.reset(xmlReaderForMemory(text.data(), static_cast<int>(text.size()), nullptr, nullptr,
                                     kParseOptions));
    if (!reader_) throw InternalError("libxml2 could not create an XML reader");
    // A generic lambda converts to libxml2's handler type of either signature (const since 2.12).
    xmlStructuredErrorFunc on_error = [](void* arg, auto* error) {
      auto* first = static_cast<FirstError*>(arg);
      if (first->set || !error || error->level < XML_ERR_ERROR) return;
      first->set = true;
      first->code = error->code;
      first->line = error->line;
      first->message = trimmed(error->message);
    };
    xmlTextReaderSetStructuredErrorHandler(reader_.get(), on_error, &error_);
  }

  XmlElement document() {
    XmlElement root;
    bool have_root = false;
    std::vector<XmlElement*> open;  // the elements not yet closed, outermost first
    for (;;) {
      const int status = xmlTextReaderRead(reader_.get());
      if (status < 0 || error_.set) libxml_failed(open, have_root);
      if (status == 0) break;
      switch (xmlTextReaderNodeType(reader_.get())) {
        case XML_READER_TYPE_ELEMENT: {
          const long line = node_line();
          if (open.empty() && have_root) fail(source_, line, "a second root element");
          XmlElement* e = &root;
          if (!open.empty()) e = &open.back()->children.emplace_back();
          have_root = true;
          element(*e, line, static_cast<int>(open.size()));
          if (!xmlTextReaderIsEmptyElement(reader_.get())) open.push_back(e);
          break;
        }
        case XML_READER_TYPE_END_ELEMENT:
          if (!open.empty()) open.pop_back();
          break;
        case XML_READER_TYPE_TEXT:
        case XML_READER_TYPE_CDATA:
        case XML_READER_TYPE_ENTITY_REFERENCE:
          fail(source_, node_line(),
               open.empty() ? "text outside the root element"
                            : "unexpected text inside <" + open.back()->name + ">");
        case XML_READER_TYPE_DOCUMENT_TYPE:
          fail(source_, node_line(), "DOCTYPE declarations are not supported");
        default:  // whitespace, comments, processing instructions
          break;
      }
    }
    if (!have_root) fail(source_, 1, "no root element");
    return root;
  }

 private:
  struct ReaderFree {
    void operator()(xmlTextReaderPtr r) const { xmlFreeTextReader(r); }
  };
  const std::string& source_;
  bool any_tag_;  // the text has a start tag (a file that ends early is then not empty)
  std::unique_ptr<xmlTextReader, ReaderFree> reader_;
  FirstError error_;
  std::size_t elements_ = 0;

  // libxml2's first error, said in the reader's terms where libxml2's words mislead: it reports
  // a file that ends inside an element, or goes on after the root, as "Extra content".
  [[noreturn]] void libxml_failed(const std::vector<XmlElement*>& open, bool have_root) const {
    const bool at_end =
        error_.code == XML_ERR_DOCUMENT_END || error_.code == XML_ERR_TAG_NOT_FINISHED;
    if (at_end && !open.empty())
      fail(source_, open.back()->line, "<" + open.back()->name + "> is never closed");
    if (at_end && (have_root || any_tag_))
      fail(source_, error_.line, "a second root element or text after it");
    if (at_end || error_.code == XML_ERR_DOCUMENT_EMPTY) fail(source_, 1, "no root element");
    if (error_.set) fail(source_, error_.line, "malformed XML: " + error_.message);
    fail(source_, xmlTextReaderGetParserLineNumber(reader_.get()), "malformed XML");
  }

  long node_line() const {
    const xmlNodePtr node = xmlTextReaderCurrentNode(reader_.get());
    const long line = node ? xmlGetLineNo(node) : -1;
    return line > 0 ? line : xmlTextReaderGetParserLineNumber(reader_.get());
  }

  // Fills `e` from the reader's current element, `depth` levels below the root.
  void element(XmlElement& e, long line, int depth) {
    e.name = str(xmlTextReaderConstName(reader_.get()));
    e.line = static_cast<int>(line);
    if (++elements_ > limits::kMaxXmlElements)
      fail(source_, line,
           "more than " + std::to_string(limits::kMaxXmlElements) + " elements in one file");
    if (depth >= limits::kMaxXmlDepth)
      fail(source_, line,
           "<" + e.name + "> nested deeper than " + std::to_string(limits::kMaxXmlDepth) +
               " levels");
    for (int more = xmlTextReaderMoveToFirstAttribute(reader_.get()); more == 1;
         more = xmlTextReaderMoveToNextAttribute(reader_.get()))
      e.attributes.emplace_back(str(xmlTextReaderConstName(reader_.get())),
                                str(xmlTextReaderConstValue(reader_.get())));
    xmlTextReaderMoveToElement(reader_.get());
  }
};

}  // namespace

const std::string* XmlElement::attribute(const std::string& key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

XmlElement parse_xml(const std::string& text, const std::string& source) {
  xmlInitParser();
  const bool any_tag = check_attribute_counts(text, source);
  return TreeBuilder(text, source, any_tag).document();
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
