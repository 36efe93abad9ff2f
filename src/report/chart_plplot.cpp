// PLplot backend of the charts: one PLplot stream per file (cairo driver: svgcairo, pngcairo,
// pdfcairo), a fixed qualitative palette, legends through pllegend.
#include <plplot/plplot.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "io/output_file.hpp"
#include "report/chart.hpp"
#include "report/table.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

// Tableau-10 (index 0 background white, 1 axes black, 2.. series).
constexpr int kPalette[][3] = {{255, 255, 255}, {0, 0, 0},       {31, 119, 180},  {255, 127, 14},
                               {44, 160, 44},   {214, 39, 40},   {148, 103, 189}, {140, 86, 75},
                               {227, 119, 194}, {127, 127, 127}, {188, 189, 34},  {23, 190, 207}};
constexpr int kColours = sizeof(kPalette) / sizeof(kPalette[0]);
constexpr int kSeriesColours = kColours - 2;
constexpr int kPageWidth = 1100, kPanelHeight = 420;

int series_colour(std::size_t i) {
  return 2 + static_cast<int>(i % kSeriesColours);
}

std::string device_of(const std::string& path) {
  const std::string ext =
      path.substr(path.rfind('.') == std::string::npos ? path.size() : path.rfind('.') + 1);
  if (ext == "svg") return "svgcairo";
  if (ext == "png") return "pngcairo";
  if (ext == "pdf") return "pdfcairo";
  throw InputError(path, "", "chart format from the extension: .svg, .png or .pdf");
}

// RAII for one PLplot stream writing `path`.
class Page {
 public:
  Page(const std::string& path, int panels, int height) {
    plsdev(device_of(path).c_str());
    plsfnam(path.c_str());
    plspage(0, 0, kPageWidth, height, 0, 0);
    plscmap0n(kColours);
    for (int i = 0; i < kColours; ++i) plscol0(i, kPalette[i][0], kPalette[i][1], kPalette[i][2]);
    plinit();
    plssub(1, panels);
    plfontld(1);
  }
  ~Page() { plend(); }
  Page(const Page&) = delete;
  Page& operator=(const Page&) = delete;
};

double axis_value(ChartAxis a, double v) {
  if (a == ChartAxis::Log10) return std::log10(std::max(v, 1e-300));
  if (a == ChartAxis::SizeLog2) return std::log2(std::max(v, 1e-300));
  return v;
}

void size_labels(PLINT axis, PLFLT value, char* label, PLINT length, PLPointer) {
  const std::string text = axis == PL_X_AXIS ? size_label(std::exp2(value)) : fmt("%g", value);
  std::snprintf(label, static_cast<std::size_t>(length), "%s", text.c_str());
}

std::pair<double, double> padded(double lo, double hi, ChartAxis a) {
  if (!(hi > lo)) hi = lo + 1;
  const double pad = (hi - lo) * 0.05;
  if (a == ChartAxis::Linear) return {std::min(0.0, lo), hi + pad};
  return {lo - pad, hi + pad};
}

std::string box_options(ChartAxis a) {
  if (a == ChartAxis::Log10) return "bcnstlv";
  if (a == ChartAxis::SizeLog2) return "bcnsto";
  return "bcnstgv";
}

void legend(const std::vector<std::string>& names, const std::vector<int>& colours, bool lines) {
  const int n = static_cast<int>(names.size());
  if (n == 0) return;
  std::vector<PLINT> opt(n, lines ? PL_LEGEND_LINE | PL_LEGEND_SYMBOL : PL_LEGEND_COLOR_BOX);
  std::vector<PLINT> col(colours.begin(), colours.end()), style(n, 1), patterns(n, 0),
      numbers(n, 1);
  std::vector<PLFLT> widths(n, 2.0), scales(n, 0.8), box_scales(n, 0.8);
  std::vector<const char*> text, symbols(n, "#(728)");
  for (const std::string& s : names) text.push_back(s.c_str());
  PLFLT w = 0, h = 0;
  pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX,
           PL_POSITION_RIGHT | PL_POSITION_OUTSIDE, 0.02, 0.0, 0.05, 0, 1, 1, 0, 0, n, opt.data(),
           0.8, 0.7, 1.8, 0.0, col.data(), text.data(), col.data(), patterns.data(),
           box_scales.data(), widths.data(), col.data(), style.data(), widths.data(), col.data(),
           scales.data(), numbers.data(), symbols.data());
}

void draw_panel(const ChartPanel& p) {
  pladv(0);
  plvpor(0.08, 0.66, 0.14, 0.88);
  double x0 = std::numeric_limits<double>::max(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const ChartSeries& s : p.series)
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      x0 = std::min(x0, axis_value(p.x_axis, s.x[i])),
      x1 = std::max(x1, axis_value(p.x_axis, s.x[i]));
      y0 = std::min(y0, axis_value(p.y_axis, s.y[i])),
      y1 = std::max(y1, axis_value(p.y_axis, s.y[i]));
    }
  for (const auto& [v, _] : p.x_limits) x1 = std::max(x1, axis_value(p.x_axis, v));
  for (const auto& [v, _] : p.y_limits) y1 = std::max(y1, axis_value(p.y_axis, v));
  const auto [xa, xb] = padded(x0, x1, p.x_axis);
  const auto [ya, yb] = padded(y0, y1, p.y_axis);
  plwind(xa, xb, ya, yb);
  plcol0(1);
  plwidth(1);
  plschr(0, 0.9);
  if (p.x_axis == ChartAxis::SizeLog2) plslabelfunc(size_labels, nullptr);
  const double xtick =
      p.x_axis == ChartAxis::SizeLog2 ? std::max(1.0, std::ceil((xb - xa) / 12)) : 0;
  plbox(box_options(p.x_axis).c_str(), xtick, 0, box_options(p.y_axis).c_str(), 0, 0);
  plslabelfunc(nullptr, nullptr);
  pllab(p.x_label.c_str(), p.y_label.c_str(), p.title.c_str());
  std::vector<std::string> names;
  std::vector<int> colours;
  for (std::size_t k = 0; k < p.series.size(); ++k) {
    const ChartSeries& s = p.series[k];
    std::vector<PLFLT> x, y;
    for (std::size_t i = 0; i < s.x.size(); ++i)
      x.push_back(axis_value(p.x_axis, s.x[i])), y.push_back(axis_value(p.y_axis, s.y[i]));
    plcol0(series_colour(k));
    plwidth(2);
    if (!s.points) plline(static_cast<PLINT>(x.size()), x.data(), y.data());
    plpoin(static_cast<PLINT>(x.size()), x.data(), y.data(), 17);
    names.push_back(s.name);
    colours.push_back(series_colour(k));
  }
  pllsty(2);
  plcol0(5);
  for (const auto& [v, text] : p.x_limits) {
    const PLFLT xs[] = {axis_value(p.x_axis, v), axis_value(p.x_axis, v)}, ys[] = {ya, yb};
    plline(2, xs, ys);
    plptex(xs[0], yb - (yb - ya) * 0.06, 1, 0, -0.03, text.c_str());
  }
  for (const auto& [v, text] : p.y_limits) {
    const PLFLT xs[] = {xa, xb}, ys[] = {axis_value(p.y_axis, v), axis_value(p.y_axis, v)};
    plline(2, xs, ys);
    plptex(xb, ys[0], 1, 0, 1.02, text.c_str());
  }
  pllsty(1);
  if (!p.marks.empty()) {
    plcol0(1);
    plschr(0, 1.0);
    for (std::size_t i = 0; i < p.marks.size(); ++i) {
      const auto& [mx, my] = p.marks[i];
      const PLFLT x[] = {axis_value(p.x_axis, mx)}, y[] = {axis_value(p.y_axis, my)};
      plssym(0, 3.0);
      plpoin(1, x, y, 18);  // a star
      plssym(0, 1.0);
      if (i == 0)  // one label for all the stars
        plptex(x[0], y[0] - (yb - ya) * 0.08, 1, 0, -0.05, p.mark_label.c_str());
    }
  }
  plschr(0, 0.8);
  legend(names, colours, true);
}

}  // namespace

std::string size_label(double bytes) {
  const char* const units[] = {"B", "K", "M", "G", "T"};
  int u = 0;
  while (bytes >= 1024 && u < 4) bytes /= 1024, ++u;
  return fmt("%g", std::round(bytes * 10) / 10) + units[u];
}

void write_chart(const std::vector<ChartPanel>& panels, const std::string& path) {
  const std::string dev = device_of(path);
  // PLplot draws into a temporary file beside the target (same extension), renamed when done.
  detail::write_output_via(path, [&](const std::string& temp) {
    Page page(temp, static_cast<int>(panels.size()),
              kPanelHeight * static_cast<int>(panels.size()));
    for (const ChartPanel& p : panels) draw_panel(p);
  });
}

static void draw_bar_chart(const BarChart& c, const std::string& path);

void write_bar_chart(const BarChart& c, const std::string& path) {
  const std::string dev = device_of(path);
  detail::write_output_via(path, [&](const std::string& temp) { draw_bar_chart(c, temp); });
}

static void draw_bar_chart(const BarChart& c, const std::string& path) {
  Page page(path, 1, kPanelHeight + 60);
  pladv(0);
  plvpor(0.08, 0.68, 0.16, 0.88);
  double top = 0;
  for (const auto& g : c.values)
    for (double v : g) top = std::max(top, v);
  const double n_cat = static_cast<double>(c.categories.size());
  plwind(0, n_cat, 0, top * 1.12 + 1e-12);
  plcol0(1);
  plschr(0, 0.9);
  plbox("bc", 0, 0, "bcnstgv", 0, 0);
  pllab("", c.y_label.c_str(), c.title.c_str());
  const double groups = static_cast<double>(c.groups.size());
  const double width = 0.8 / std::max(groups, 1.0);
  std::vector<int> colours;
  for (std::size_t g = 0; g < c.groups.size(); ++g) {
    plcol0(series_colour(g));
    colours.push_back(series_colour(g));
    for (std::size_t k = 0; k < c.categories.size(); ++k) {
      const double x0 = static_cast<double>(k) + 0.1 + width * static_cast<double>(g);
      const double v = c.values[g][k];
      const PLFLT xs[] = {x0, x0, x0 + width, x0 + width}, ys[] = {0, v, v, 0};
      plfill(4, xs, ys);
      plschr(0, 0.65);
      plptex(x0 + width / 2, v + top * 0.015, 0, 1, 0, fmt("%.2f", v).c_str());
    }
  }
  plcol0(1);
  plschr(0, 0.85);
  for (std::size_t k = 0; k < c.categories.size(); ++k)
    plmtex("b", 1.5, (static_cast<double>(k) + 0.5) / n_cat, 0.5, c.categories[k].c_str());
  legend(c.groups, colours, false);
}

}  // namespace topoplan::report
