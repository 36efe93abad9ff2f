// Diagram style: colours per link kind and device type, pen width per bandwidth, output formats.
#include <algorithm>
#include <cmath>
#include <optional>

#include "report/diagram.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

// Colours: NVLink in NVIDIA green, the rest from the Tableau-10 palette (distinct for the
// colour-blind-safe pairs blue/orange/purple); InfraGraph's visualizer also colours by link type.
std::string link_colour(LinkKind kind) {
  switch (kind) {
    case LinkKind::NVLink:
      return "#76b900";
    case LinkKind::C2C:
      return "#17becf";
    case LinkKind::PCIe:
      return "#1f77b4";
    case LinkKind::CpuLink:
      return "#9467bd";
    case LinkKind::Network:
      return "#d62728";
  }
  return "#000000";
}

std::string link_kind_label(LinkKind kind) {
  switch (kind) {
    case LinkKind::NVLink:
      return "NVLink";
    case LinkKind::C2C:
      return "NVLink-C2C";
    case LinkKind::PCIe:
      return "PCIe";
    case LinkKind::CpuLink:
      return "CPU interconnect (UPI / xGMI)";
    case LinkKind::Network:
      return "InfiniBand / RoCE";
  }
  return "link";
}

std::string device_fill(DeviceType type) {
  switch (type) {
    case DeviceType::Gpu:
      return "#d9f2b3";
    case DeviceType::NvSwitch:
      return "#b8e07a";
    case DeviceType::PcieSwitch:
      return "#cfe3f5";
    case DeviceType::Cpu:
      return "#fde9b0";
    case DeviceType::Nic:
      return "#f9d0cf";
    case DeviceType::NetSwitch:
      return "#e4dcf5";
  }
  return "#ffffff";
}

// √ scaling: 50 GB/s (one NDR port) → 2, 64 GB/s (PCIe 5 x16) → 2.3, 450 GB/s (18 NVLink4) → 6,
// 900 GB/s (18 NVLink5) → 8.5; clamped to [1, 9] so no edge vanishes or swallows its neighbours.
double pen_width(double bw_GBps) {
  return std::clamp(std::sqrt(std::max(bw_GBps, 0.0) / 12.5), 1.0, 9.0);
}

namespace {
std::optional<DiagramFormat> format_named(const std::string& text) {
  if (text == "dot" || text == "gv") return DiagramFormat::Dot;
  if (text == "svg") return DiagramFormat::Svg;
  if (text == "png") return DiagramFormat::Png;
  if (text == "pdf") return DiagramFormat::Pdf;
  return std::nullopt;
}
const char* const kFormats = " (dot, svg, png, pdf)";
}  // namespace

DiagramFormat parse_diagram_format(const std::string& text) {
  if (auto f = format_named(text)) return *f;
  throw FieldError("format", "unknown diagram format '" + text + "'" + kFormats);
}

DiagramFormat diagram_format_of_path(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos)
    throw FieldError("output_path",
                     "'" + path + "' has no extension; pass {format} dot|svg|png|pdf");
  std::string ext = path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (auto f = format_named(ext)) return *f;
  throw FieldError("output_path", path + ": unknown diagram format '" + ext + "'" + kFormats);
}

}  // namespace topoplan::report
