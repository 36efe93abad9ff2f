// Charts through PLplot (Debian libplplot-dev, cairo driver): line/point panels and grouped
// bars written as SVG, PNG or PDF (format from the file extension). No SVG is drawn by hand.
#pragma once

#include <string>
#include <vector>

namespace topoplan::report {

struct ChartSeries {
  std::string name;
  std::vector<double> x, y;
  bool points = false;  // markers only (else a line with markers)
};

enum class ChartAxis { Linear, Log10, SizeLog2 };  // SizeLog2: bytes on a log2 axis, "8B".."4G"

struct ChartPanel {
  std::string title, x_label, y_label;
  ChartAxis x_axis = ChartAxis::Linear, y_axis = ChartAxis::Linear;
  std::vector<ChartSeries> series;
  std::vector<std::pair<double, std::string>> x_limits;  // vertical dashed lines with labels
  std::vector<std::pair<double, std::string>> y_limits;  // horizontal dashed lines
  std::vector<std::pair<double, double>> marks;          // highlighted points (x, y)
  std::string mark_label;
};

// Bars: groups[g] are drawn side by side per category (one colour per group).
struct BarChart {
  std::string title, y_label;
  std::vector<std::string> categories;      // x-axis groups (metrics)
  std::vector<std::string> groups;          // one bar per group in each category (designs)
  std::vector<std::vector<double>> values;  // values[group][category]
};

// Panels stacked vertically on one page. Throws InputError naming `path` on an unknown extension.
void write_chart(const std::vector<ChartPanel>& panels, const std::string& path);
void write_bar_chart(const BarChart& chart, const std::string& path);

// nccl-tests style size label of a byte count ("8B", "64K", "1M", "2G").
std::string size_label(double bytes);

}  // namespace topoplan::report
