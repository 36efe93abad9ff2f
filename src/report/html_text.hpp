// Escaping text for HTML (the report pages and Graphviz's HTML-like legend labels).
#pragma once

#include <string>

namespace topoplan::report {

inline std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

}  // namespace topoplan::report
