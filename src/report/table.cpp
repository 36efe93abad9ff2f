#include "report/table.hpp"
#include "report/text_prefix.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace topoplan::report {

Table::Table(std::vector<std::string> headers, std::vector<Align> align)
    : headers_(std::move(headers)), align_(std::move(align)) {
  if (align_.empty() && !headers_.empty()) align_.push_back(Align::Left);
  align_.resize(headers_.size(), Align::Right);
}

void Table::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

namespace {

// Columns a cell takes on a terminal: UTF-8 characters, not bytes ("µs" is 2 columns, 3 bytes).
std::size_t columns(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char ch : s) n += (ch & 0xC0) != 0x80 ? 1 : 0;  // continuation bytes add none
  return n;
}

}  // namespace

void Table::print(std::ostream& os, const std::string& indent) const {
  std::vector<std::size_t> width(headers_.size());
  for (std::size_t c = 0; c < headers_.size(); ++c) {
    width[c] = columns(headers_[c]);
    for (const auto& r : rows_) width[c] = std::max(width[c], columns(r[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    os << indent;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::string pad(width[c] - columns(cells[c]), ' ');
      if (c) os << "  ";
      if (align_[c] == Align::Right) {
        os << pad << cells[c];
      } else {
        os << cells[c] << (c + 1 < cells.size() ? pad : "");
      }
    }
    os << "\n";
  };
  line(headers_);
  std::vector<std::string> rule;
  for (auto w : width) rule.emplace_back(w, '-');
  line(rule);
  for (const auto& r : rows_) line(r);
}

std::string fmt(const char* format, double value) {
  auto print = [format](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return std::string(buf);
  };
  // A negative value that prints as zero (-0.0, or -0.001 at "%.2f") prints as the zero it
  // shows: "-0.00" read as a sign that means something.
  if (std::signbit(value)) {
    const std::string zero = print(0.0);
    if (print(-value) == zero) return zero;
  }
  return print(value);
}

std::string count_text(double value) {
  const double a = std::round(std::fabs(value));
  if (!(a < 1e18)) return fmt("%.3g", value);  // beyond exact integers (and NaN): as before
  return (a > 0 && value < 0 ? "-" : "") + grouped(static_cast<std::size_t>(a));
}

}  // namespace topoplan::report
