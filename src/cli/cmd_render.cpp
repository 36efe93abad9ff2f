// `topoplan topo render`: draws a topology (and optionally a plan's placement) with Graphviz.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/topology_options.hpp"
#include "report/diagram.hpp"
#include "report/diagram_overlay.hpp"

namespace topoplan::cli {

namespace {

struct RenderArgs {
  TopologyOptions topo;
  std::string output, format, plan, color_by = "tp";
  bool labels = false, expand = false;
};

int run_render(const RenderArgs& a) {
  const Topology t = load_topology(a.topo);
  report::DiagramOptions o;
  o.labels = a.labels;
  o.expand = a.expand;
  report::Overlay overlay;
  if (!a.plan.empty()) {
    overlay = report::overlay_from_plan_file(t, a.plan, report::parse_color_by(a.color_by));
    o.overlay = &overlay;
  }
  const report::DiagramFormat format = a.format.empty() ? report::diagram_format_of_path(a.output)
                                                        : report::parse_diagram_format(a.format);
  const report::Diagram d = report::build_diagram(t, o);
  report::write_diagram(d, format, a.output);
  std::cout << "wrote " << a.output << " (" << d.nodes.size() << " nodes, " << d.edges.size()
            << " edges)\n";
  return 0;
}

}  // namespace

void add_topo_render_subcommand(CLI::App& topo, Action& action) {
  auto a = std::make_shared<RenderArgs>();
  CLI::App* sub = topo.add_subcommand(
      "render", "draw the topology (servers, NUMA, PCIe, NVSwitch, NICs, fabric) with Graphviz");
  add_topology_options(*sub, a->topo);
  sub->add_option("-o,--output", a->output, "output file (.svg, .png, .pdf or .dot)")->required();
  sub->add_option("--format", a->format, "dot | svg | png | pdf (default: from -o's extension)");
  sub->add_flag("--labels", a->labels, "print GB/s per direction on every edge");
  sub->add_flag("--expand", a->expand, "draw every server and switch (no collapse)");
  sub->add_option("--plan", a->plan, "overlay the best plan of this `plan --json` output");
  sub->add_option("--color-by", a->color_by, "with --plan: fill GPUs by tp | pp | ep | dp group")
      ->capture_default_str();
  add_example(*sub, "topoplan topo render hgx-h100-8 -o hgx-h100-8.svg");
  sub->callback([&action, a] { action = [a] { return run_render(*a); }; });
}

}  // namespace topoplan::cli
