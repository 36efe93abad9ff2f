// Building blocks of the HTML reports: the page shell, tables, inlined SVG.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace topoplan::report {

// <!DOCTYPE html> page with the report's inline CSS around `body`.
std::string html_page(const std::string& title, const std::string& body);
// A table; cells are escaped, a cell starting with "*" is marked as its column's winner.
std::string html_table(const std::vector<std::string>& head,
                       const std::vector<std::vector<std::string>>& rows);
// An SVG document made inline: XML prolog and DOCTYPE dropped, ids prefixed with `prefix` so
// several SVGs (PLplot's glyph ids, Graphviz's node ids) can share one page.
std::string inline_svg(const std::string& svg, const std::string& prefix);
// Runs `write(path)` on a temporary .svg file and returns its text (PLplot writes files only).
std::string svg_via_file(const std::function<void(const std::string&)>& write);
// Writes `text` to `path`; InputError naming the path when it cannot.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace topoplan::report
