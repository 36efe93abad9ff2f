// Graphviz backend of the diagrams: Diagram → cgraph graph (nested "cluster_" subgraphs, one
// node per DiagramNode, one edge per merged DiagramEdge, an HTML-table legend) → dot layout →
// SVG/PNG/PDF through gvc, or the DOT text through agwrite. Graphviz 2.43's C API takes char*
// everywhere, so every string goes through a mutable copy (cstr).
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>

#include "io/output_file.hpp"
#include "report/diagram.hpp"
#include "report/html_text.hpp"
#include "report/table.hpp"
#include "topoplan/error.hpp"

namespace topoplan::report {

namespace {

// A mutable NUL-terminated copy for the char* parameters of the Graphviz C API.
struct cstr {
  std::string s;
  explicit cstr(std::string text) : s(std::move(text)) {}
  operator char*() { return s.data(); }
};

void set(void* obj, const std::string& name, const std::string& value) {
  agsafeset(obj, cstr(name), cstr(value), cstr(""));
}

std::string legend_html(const Diagram& d) {
  std::string rows;
  auto row = [&](const std::string& colour, const std::string& text, int height) {
    rows += "<TR><TD WIDTH=\"36\" HEIGHT=\"" + std::to_string(height) + "\" BGCOLOR=\"" + colour +
            "\"></TD><TD ALIGN=\"LEFT\">" + html_escape(text) + "</TD></TR>";
  };
  for (LinkKind k : d.kinds) row(link_colour(k), link_kind_label(k), 6);
  bool highlighted = false, chain = false;
  for (const DiagramEdge& e : d.edges) highlighted |= e.highlight, chain |= e.chain;
  if (highlighted) row("#e6007e", d.highlight_legend, 6);
  if (chain) row("#333333", "pipeline: stage → next stage on another server (dashed)", 2);
  for (const auto& [colour, text] : d.fill_legend) row(colour, text, 14);
  return "<TABLE BORDER=\"1\" CELLBORDER=\"0\" CELLSPACING=\"3\" BGCOLOR=\"white\">"
         "<TR><TD COLSPAN=\"2\"><B>Legend</B></TD></TR>" +
         rows +
         "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">pen width ∝ √(GB/s per direction); ×N: N links "
         "merged; xN: PCIe lanes</TD></TR></TABLE>";
}

// Header row (server name, highlights) over one cell per GPU, filled with its group colour.
std::string compact_html(const DiagramNode& n) {
  auto lines = [](const std::string& text) {
    std::string out, line;
    for (char c : text + "\n") {
      if (c != '\n') {
        line += c;
        continue;
      }
      out += (out.empty() ? "" : "<BR/>") + html_escape(line);
      line.clear();
    }
    return out;
  };
  std::string cells;
  for (const DiagramNode::Cell& c : n.cells) {
    std::string text = c.text;
    for (char& ch : text)
      if (ch == ' ') ch = '\n';  // "TP0.3 PP1 DP2" stacked: narrow cells
    cells +=
        "<TD BGCOLOR=\"" + c.fill + "\"><FONT POINT-SIZE=\"8\">" + lines(text) + "</FONT></TD>";
  }
  return "<TABLE BORDER=\"1\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\" "
         "BGCOLOR=\"" +
         n.fill + "\" COLOR=\"#888888\"><TR><TD COLSPAN=\"" +
         std::to_string(std::max<std::size_t>(n.cells.size(), 1)) + "\">" + lines(n.label) +
         "</TD></TR><TR>" + cells + "</TR></TABLE>";
}

std::string graph_label(const Diagram& d) {
  std::string label = d.title;
  if (!d.caption.empty()) label += "\n" + d.caption;
  for (const std::string& n : d.notes) label += "\n" + n;
  return label;
}

// Object ids in creation order. cgraph's default id of a named object is the address of its
// interned name, and subgraphs are kept sorted by id, so dot would meet NUMA 1 before NUMA 0
// depending on malloc; sequential ids make the drawing follow the wiring order and repeatable.
struct SequentialIds {
  // Interned with agstrdup (the global dictionary: no graph exists yet when the discipline
  // opens): agwrite reads the refstr header of a printed name to tell HTML from plain strings.
  std::vector<char*> names;
  std::map<std::string, IDTYPE> ids;
  IDTYPE anonymous = 1;  // odd: unnamed objects; even: 2 × (index + 1) into names
};

void* ids_open(Agraph_t*, Agdisc_t*) {
  return new SequentialIds;
}
long ids_map(void* state, int, char* name, IDTYPE* id, int create) {
  auto* s = static_cast<SequentialIds*>(state);
  if (!name) {
    *id = s->anonymous;
    s->anonymous += 2;
    return 1;
  }
  if (auto it = s->ids.find(name); it != s->ids.end()) {
    *id = it->second;
    return 1;
  }
  if (!create) return 0;
  s->names.push_back(agstrdup(nullptr, name));
  *id = 2 * static_cast<IDTYPE>(s->names.size());
  s->ids.emplace(name, *id);
  return 1;
}
long ids_alloc(void*, int, IDTYPE) {
  return 0;  // ids chosen by callers are not supported (only the parser uses them)
}
void ids_free(void*, int, IDTYPE) {}
char* ids_print(void* state, int, IDTYPE id) {
  auto* s = static_cast<SequentialIds*>(state);
  if (id % 2 != 0 || id == 0 || id / 2 > s->names.size()) return nullptr;
  return s->names[id / 2 - 1];
}
void ids_close(void* state) {
  auto* s = static_cast<SequentialIds*>(state);
  for (char* name : s->names) agstrfree(nullptr, name);
  delete s;
}
void ids_register(void*, int, void*) {}

Agiddisc_t kSequentialIds = {ids_open,  ids_map,   ids_alloc,   ids_free,
                             ids_print, ids_close, ids_register};
Agdisc_t kDiscipline = {&AgMemDisc, &kSequentialIds, &AgIoDisc};

struct GraphDeleter {
  void operator()(Agraph_t* g) const { agclose(g); }
};
using GraphPtr = std::unique_ptr<Agraph_t, GraphDeleter>;

GraphPtr to_graph(const Diagram& d) {
  GraphPtr g(agopen(cstr("topology"), Agdirected, &kDiscipline));
  Agraph_t* root = g.get();
  for (const auto& [k, v] :
       std::map<std::string, std::string>{{"newrank", "true"},
                                          {"fontname", "Helvetica"},
                                          {"fontsize", "14"},
                                          {"labelloc", "t"},
                                          {"nodesep", "0.3"},
                                          {"ranksep", "0.7"},
                                          {"bgcolor", "white"},
                                          // Keep the wiring order (rows, creation
                                          // order): dot's crossing minimiser
                                          // mirrors sockets and rails.
                                          {"mclimit", "0.01"},
                                          {"remincross", "false"}})
    set(root, k, v);
  set(root, "label", graph_label(d));
  agattr(root, AGNODE, cstr("shape"), cstr("box"));
  agattr(root, AGNODE, cstr("style"), cstr("rounded,filled"));
  agattr(root, AGNODE, cstr("fontname"), cstr("Helvetica"));
  agattr(root, AGNODE, cstr("fontsize"), cstr("10"));
  agattr(root, AGEDGE, cstr("dir"), cstr("none"));
  agattr(root, AGEDGE, cstr("fontname"), cstr("Helvetica"));
  agattr(root, AGEDGE, cstr("fontsize"), cstr("9"));

  std::map<std::string, Agraph_t*> clusters{{"", root}};
  // dot's initial order walks sibling clusters last-created first (it mirrored NUMA 1 before
  // NUMA 0 and n1 before n0), so siblings are created in reverse, each after its parent.
  std::map<std::string, const DiagramCluster*> by_key;
  for (const DiagramCluster& c : d.clusters) by_key[c.key] = &c;
  std::function<Agraph_t*(const std::string&)> make = [&](const std::string& key) -> Agraph_t* {
    if (auto it = clusters.find(key); it != clusters.end()) return it->second;
    const DiagramCluster& c = *by_key.at(key);
    Agraph_t* sub = agsubg(make(c.parent), cstr("cluster_" + c.key), 1);
    set(sub, "label", c.label);
    set(sub, "style", "rounded,filled");
    set(sub, "fillcolor", c.fill);
    set(sub, "color", "#888888");
    set(sub, "fontname", "Helvetica");
    return clusters[c.key] = sub;
  };
  for (auto c = d.clusters.rbegin(); c != d.clusters.rend(); ++c) make(c->key);
  std::map<std::string, Agnode_t*> nodes;
  std::map<std::string, int> level;
  Agsym_t* label_attr = agattr(root, AGNODE, cstr("label"), cstr("\\N"));
  for (const DiagramNode& n : d.nodes) {
    Agnode_t* v = agnode(clusters.at(n.cluster), cstr(n.key), 1);
    if (!n.cells.empty()) {  // a compact server: an HTML table, one coloured cell per GPU
      set(v, "shape", "plaintext");
      set(v, "style", "");
      agxset(v, label_attr, agstrdup_html(root, cstr(compact_html(n))));
      nodes[n.key] = v;
      level[n.key] = n.level;
      continue;
    }
    set(v, "label", n.label);
    set(v, "fillcolor", n.fill);
    if (n.devices > 1) set(v, "peripheries", "2");  // a stack of like devices
    if (n.type == DeviceType::NvSwitch) set(v, "shape", "hexagon");
    nodes[n.key] = v;
    level[n.key] = n.level;
  }
  for (const DiagramEdge& e : d.edges) {
    Agedge_t* x = agedge(root, nodes.at(e.a), nodes.at(e.b), nullptr, 1);
    if (e.invisible) {  // stacks a row of compact servers below the previous one
      set(x, "style", "invis");
      continue;
    }
    if (e.chain) {  // pipeline arrow: drawn, but not a layout constraint
      set(x, "style", "dashed");
      set(x, "dir", "forward");
      set(x, "color", e.colour);
      // xlabel, not label: dot 2.43 lays out a labelled edge inside one rank by adding a rank
      // (flat.c), and with HTML-table nodes that realloc left a freed rank array in use (heap
      // corruption under valgrind, SIGABRT at 16 compact servers).
      set(x, "xlabel", e.label);
      set(x, "constraint", "false");
      continue;
    }
    set(x, "color", e.highlight ? "#e6007e" : e.colour);
    set(x, "penwidth", fmt("%.2f", e.highlight ? e.penwidth + 3 : e.penwidth));
    if (!e.label.empty()) set(x, "label", e.label);
    if (e.highlight) set(x, "fontcolor", "#e6007e");
    // Links between devices of one tier (GPU-GPU NVLink) must not push one below the other; CPU
    // links stay constraints, drawn flat by the CPU row, and keep socket 0 left of socket 1.
    const bool same_level = level.at(e.a) == level.at(e.b);
    if (same_level && e.kind != LinkKind::CpuLink) set(x, "constraint", "false");
    // Fabric switches sit below the whole server box (NIC level 2 → leaf level 4), not beside it.
    if (level.at(e.b) - level.at(e.a) > 1)
      set(x, "minlen", std::to_string(level.at(e.b) - level.at(e.a)));
  }
  int rank = 0;
  for (const Diagram::Row& row : d.rows) {
    Agraph_t* same = agsubg(clusters.at(row.cluster), cstr("rank" + std::to_string(rank++)), 1);
    set(same, "rank", "same");
    Agnode_t* previous = nullptr;
    for (const std::string& key : row.keys) {
      Agnode_t* v = agsubnode(same, nodes.at(key), 1);
      // dot aborts (class2.c merge_chain) on two flat edges between one pair: skip the ordering
      // edge where a real one (UPI, GPU-GPU NVLink) already joins the neighbours.
      const bool joined = previous && (agedge(root, previous, v, nullptr, 0) != nullptr ||
                                       agedge(root, v, previous, nullptr, 0) != nullptr);
      if (previous && !joined) set(agedge(root, previous, v, nullptr, 1), "style", "invis");
      previous = v;
    }
  }
  Agnode_t* legend = agnode(root, cstr("legend"), 1);
  set(legend, "shape", "plaintext");
  set(legend, "style", "");
  agxset(legend, agattr(root, AGNODE, cstr("label"), nullptr),
         agstrdup_html(root, cstr(legend_html(d))));
  return g;
}

// One Graphviz context for the process, never freed: Graphviz 2.43 keeps a text-size cache
// across contexts that gvFreeContext frees while the pango plugin still points into it, so a
// second context reads freed memory (valgrind: invalid read in textspan_size after
// gvFreeContext, seen with two diagrams in one compare --html).
struct Context {
  GVC_t* gvc = [] {
    static GVC_t* const shared = gvContext();
    return shared;
  }();
};

const char* renderer(DiagramFormat f) {
  switch (f) {
    case DiagramFormat::Svg:
      return "svg";
    case DiagramFormat::Png:
      return "png";
    case DiagramFormat::Pdf:
      return "pdf";
    case DiagramFormat::Dot:
      return "dot";
  }
  return "svg";
}

}  // namespace

std::string diagram_dot(const Diagram& d) {
  GraphPtr g = to_graph(d);
  char* buffer = nullptr;
  std::size_t size = 0;
  FILE* mem = open_memstream(&buffer, &size);
  agwrite(g.get(), mem);
  std::fclose(mem);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

std::string diagram_svg(const Diagram& d) {
  GraphPtr g = to_graph(d);
  Context ctx;
  if (gvLayout(ctx.gvc, g.get(), "dot") != 0) throw Error("graphviz: dot layout failed");
  char* data = nullptr;
  unsigned int length = 0;
  const int rc = gvRenderData(ctx.gvc, g.get(), "svg", &data, &length);
  std::string svg = rc == 0 && data ? std::string(data, length) : std::string();
  gvFreeRenderData(data);
  gvFreeLayout(ctx.gvc, g.get());
  if (rc != 0) throw Error("graphviz: SVG rendering failed");
  return svg;
}

void write_diagram(const Diagram& d, DiagramFormat format, const std::string& path) {
  if (format == DiagramFormat::Dot) {
    detail::write_output_file(path, diagram_dot(d));
    return;
  }
  GraphPtr g = to_graph(d);
  Context ctx;
  if (gvLayout(ctx.gvc, g.get(), "dot") != 0) throw Error("graphviz: dot layout failed");
  // Graphviz draws into a temporary file beside the target, renamed into place once complete.
  detail::write_output_via(path, [&](const std::string& temp) {
    const int rc = gvRenderFilename(ctx.gvc, g.get(), renderer(format), cstr(temp));
    gvFreeLayout(ctx.gvc, g.get());
    if (rc != 0)
      throw InputError(path, "", std::string("graphviz could not write ") + renderer(format));
  });
}

}  // namespace topoplan::report
