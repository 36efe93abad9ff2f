// Topology diagrams (`topoplan topo render`): a Topology becomes a Diagram (clusters, nodes and
// merged edges, independent of Graphviz), which diagram_graphviz.cpp lays out with Graphviz dot.
// Conventions (docs/report.md): lstopo-style nesting (server → NUMA node → PCIe tree), network
// switches outside the servers, rails as columns, edge colour by link kind, pen width by
// bandwidth per direction, parallel links merged into one edge marked ×N.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "topoplan/topology.hpp"

namespace topoplan::report {

enum class DiagramFormat { Dot, Svg, Png, Pdf };
// "dot", "svg", "png", "pdf"; throws FieldError("format") on anything else.
DiagramFormat parse_diagram_format(const std::string& text);
// The format of an output file when no format is given: its extension (FieldError("output_path")
// if none known).
DiagramFormat diagram_format_of_path(const std::string& path);

// What a plan adds to the drawing (diagram_overlay.cpp builds it from a plan).
struct OverlayHighlight {
  int link = -1;      // Topology link index
  std::string label;  // "TP bottleneck: nvlink4 ×18, 450 GB/s, 1.2 ms/step"
};
struct Overlay {
  std::string caption;              // strategy and headline figures
  std::map<int, std::string> fill;  // device index → fill colour
  std::map<int, std::string> tag;   // device index → text added to its label ("TP0 r3")
  std::vector<std::pair<std::string, std::string>> fill_legend;  // (colour, "TP group 0")
  std::vector<OverlayHighlight> highlights;
  // What the highlighted links mean, for the legend.
  std::string highlight_legend = "bottleneck link of a group kind (its load)";
  // Devices of the first pipeline (tp rank 0, dp replica 0) in stage order: drawn as arrows
  // between the servers that hold consecutive stages when servers are drawn compact.
  std::vector<int> pp_chain;
};

struct DiagramOptions {
  bool labels = false;  // print GB/s per direction on every edge
  bool expand = false;  // draw every server and switch (no collapse)
  // Past this many servers (or past this many CPU sockets in one server) the rest collapse.
  int full_servers = 4;
  int full_sockets = 8;
  // A plan overlay on more than one server draws each server it uses as one compact box (its
  // GPUs as coloured cells), this many per row, in server order; --expand draws them in full.
  int compact_per_row = 4;
  // At most this many compact servers are drawn (Graphviz's layout grows faster than linearly:
  // 128 boxes took 4.6 s, 256 more than 100 s); the servers of the first pipeline come first,
  // then the rest in server order, and the others of the plan fold into one counted box.
  int compact_max = 32;
  const Overlay* overlay = nullptr;
};

struct DiagramCluster {
  std::string key;
  std::string label;
  std::string parent;  // "" = top level
  std::string fill;
};

struct DiagramNode {
  std::string key;
  std::string label;
  std::string cluster;  // "" = top level
  DeviceType type = DeviceType::Gpu;
  std::string fill;
  int devices = 1;  // devices merged into this node (> 1 for a collapsed stack)
  int level = 0;    // drawing tier: CPU 0, PCIe switch 1, GPU/NIC 2, NVSwitch 3, fabric 3 + tier
  // A compact server: one cell per GPU in local order (overlay fill, tag); empty otherwise.
  struct Cell {
    std::string fill, text;
  };
  std::vector<Cell> cells;
};

struct DiagramEdge {
  std::string a, b;  // node keys, a drawn above b
  LinkKind kind = LinkKind::PCIe;
  std::string type;    // catalog link type
  int links = 0;       // topology links merged into this edge
  int count = 0;       // Σ Link::count (NVLinks, lanes or bundled ports)
  double bw_GBps = 0;  // per direction of ONE merged link (the widest)
  std::string colour;
  double penwidth = 1;
  std::string label;
  bool highlight = false;
  bool invisible = false;  // layout only: stacks rows of compact servers
  bool chain = false;      // a pipeline arrow between compact servers (no link of its own)
};

struct Diagram {
  std::string title;
  std::string caption;             // from the overlay
  std::vector<std::string> notes;  // "× 127 more servers like this", ...
  std::vector<DiagramCluster> clusters;
  std::vector<DiagramNode> nodes;
  std::vector<DiagramEdge> edges;
  // Nodes of one cluster drawn on one rank, left to right (GPU i and NIC i in PCIe-switch
  // order, switches in rail order), so the drawing reads like the wiring.
  struct Row {
    std::string cluster;
    std::vector<std::string> keys;
  };
  std::vector<Row> rows;
  std::vector<LinkKind> kinds;  // link kinds present (the legend)
  std::vector<std::pair<std::string, std::string>> fill_legend;
  std::string highlight_legend = "bottleneck link of a group kind (its load)";
};

Diagram build_diagram(const Topology& t, const DiagramOptions& options);

// Style (diagram_style.cpp): one colour per link kind and device type; pen width grows with
// √(GB/s per direction) so a 900 GB/s NVLink bundle is ~4× a 50 GB/s NIC port, not 18×.
std::string link_colour(LinkKind kind);
std::string link_kind_label(LinkKind kind);
std::string device_fill(DeviceType type);
double pen_width(double bw_GBps);

// Graphviz backend (diagram_graphviz.cpp).
std::string diagram_dot(const Diagram& d);  // DOT text before layout
std::string diagram_svg(const Diagram& d);  // laid out with dot, SVG text
void write_diagram(const Diagram& d, DiagramFormat format, const std::string& path);

}  // namespace topoplan::report
