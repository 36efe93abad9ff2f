// A plain-text table for terminal output: columns sized to their widest cell, numbers
// right-aligned.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace topoplan::report {

enum class Align { Left, Right };

class Table {
 public:
  // One column per header; `align` defaults to Left for the first column, Right for the rest.
  explicit Table(std::vector<std::string> headers, std::vector<Align> align = {});
  void add_row(std::vector<std::string> cells);  // pads or truncates to the header count
  void print(std::ostream& os, const std::string& indent = "") const;
  std::size_t rows() const { return rows_.size(); }

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

// printf-style number formatting for table cells ("%.1f" etc.).
std::string fmt(const char* format, double value);
// A count rounded to an integer with thousands separators: 49151612 -> "49,151,612" (tables at
// cluster scale stay readable and exact; the JSON keeps the plain number).
std::string count_text(double value);

}  // namespace topoplan::report
