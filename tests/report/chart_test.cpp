// Charts: nccl-tests size labels (hand values) and PLplot files that exist and are valid SVG.
#include "report/chart.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "topoplan/error.hpp"

using namespace topoplan::report;

TEST_CASE("chart: size labels like nccl-tests' -b/-e sizes") {
  CHECK(size_label(8) == "8B");
  CHECK(size_label(1024) == "1K");
  CHECK(size_label(64.0 * 1024) == "64K");
  CHECK(size_label(1 << 20) == "1M");
  CHECK(size_label(8.0 * (1 << 30)) == "8G");
  CHECK(size_label(1536) == "1.5K");
}

TEST_CASE("chart: PLplot writes an SVG with the title, and rejects unknown formats") {
  const auto dir = std::filesystem::temp_directory_path() / "topoplan_chart_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "line.svg").string();
  ChartPanel p{"busbw test", "size", "GB/s", ChartAxis::SizeLog2, ChartAxis::Linear, {}, {},
               {},           {},     ""};
  p.series.push_back({"ring/Simple", {8, 1024, 1 << 20}, {0.1, 10, 100}, false});
  p.y_limits.emplace_back(50, "limit");
  write_chart({p}, path);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string svg = ss.str();
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.rfind("</svg>") != std::string::npos);
  BarChart b{"bars", "relative", {"a", "b"}, {"x", "y"}, {{1, 0.5}, {0.25, 1}}};
  const std::string png = (dir / "bars.png").string();
  write_bar_chart(b, png);
  CHECK(std::filesystem::file_size(png) > 1000);
  CHECK_THROWS_AS(write_chart({p}, (dir / "x.gif").string()), topoplan::InputError);
}
