// `topo show --json`, streamed: every device and link of a 100,000-GPU cluster is 130 MB of JSON,
// which as an nlohmann document took 1.0 GB and 4 s (docs/limits.md); written as it goes it costs
// the output buffer. Keys and bytes are those of the document it replaced (docs/routing.md).
#include "report/json_number.hpp"
#include "report/json_stream.hpp"
#include "report/topo_report.hpp"

namespace topoplan::report {

namespace {

void write_fabric(JsonStream& w, const FabricInfo& f) {
  if (f.kind.empty()) {
    w.null();
    return;
  }
  w.begin_object()
      .field("server", f.server)
      .field("nodes", f.nodes)
      .field("kind", f.kind)
      .field("link", f.link)
      .field("tiers", f.tiers)
      .field("oversubscription", json_number(f.oversubscription));
  if (!f.groups.empty()) {  // a mixed cluster: its server groups in node order
    w.key("groups").begin_array();
    for (const ServerGroupInfo& g : f.groups)
      w.begin_object().field("server", g.server).field("nodes", g.nodes).end_object();
    w.end_array();
  }
  w.end_object();
}

// Every device and link, for users who post-process the topology (ids as in `topo paths`).
void write_devices(JsonStream& w, const Topology& t) {
  w.begin_array();
  for (std::size_t i = 0; i < t.device_count(); ++i) {
    const Device& d = t.device(static_cast<int>(i));
    w.begin_object()
        .field("id", d.id)
        .field("type", to_string(d.type))
        .field("model", d.model)
        .field("node", d.node)
        .field("tier", d.tier)
        .end_object();
  }
  w.end_array();
}

void write_links(JsonStream& w, const Topology& t) {
  w.begin_array();
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    w.begin_object()
        .field("from", t.device(l.a).id)
        .field("to", t.device(l.b).id)
        .field("type", l.type)
        .field("kind", to_string(l.kind))
        .field("count", l.count)
        .field("GBps", json_number(l.bw_GBps))
        .end_object();
  }
  w.end_array();
}

// A described cluster's lists: its server's devices and links, ids as in that server alone (in
// the cluster they are "n<node>/" + id), and why the whole lists are not written.
void write_server_lists(JsonStream& w, const TopoShowSource& t) {
  w.key("device_list").null();
  w.key("link_list").null();
  w.field("lists_omitted", "past " + std::to_string(t.lists_limit_gpus) +
                               " GPUs the device and link lists are one server's "
                               "(server_device_list, server_link_list; in the cluster its ids "
                               "are n<node>/<id>); --device-list writes every device and link");
  write_devices(w.key("server_device_list"), *t.server);
  write_links(w.key("server_link_list"), *t.server);
}

}  // namespace

void print_topo_show_json(std::ostream& os, const TopoShowSource& t, const TopologySummary& s) {
  JsonStream w(os);
  w.begin_object().field("name", t.name).field("description", t.description);
  w.field("nodes", s.nodes).field("gpus", s.gpus).field("gpu_model", s.gpu_model);
  // Every GPU kind with its count ("gpu_model" stays the first GPU's, for existing scripts).
  w.key("gpu_models").begin_array();
  for (const auto& [model, count] : t.gpu_models)
    w.begin_object().field("model", model).field("count", count).end_object();
  w.end_array();
  // GPU figures that are not public (catalog "assumed"); absent when every figure is published.
  std::vector<std::string> notes;
  for (const auto& [model, count] : t.gpu_models)
    if (std::string n = assumed_figures_note(t.catalog->gpu(model)); !n.empty())
      notes.push_back(std::move(n));
  if (!notes.empty()) {
    w.key("assumed_figures").begin_array();
    for (const std::string& n : notes) w.value(n);
    w.end_array();
  }
  w.field("gpu_memory_bytes", json_number(s.gpu_memory_bytes));
  w.key("devices").begin_object();
  for (const auto& [type, n] : s.devices) w.field(type, n);
  w.end_object();
  w.field("links", t.links).field("nvlink_domain", s.nvlink_domain);
  w.key("per_gpu")
      .begin_object()
      .field("nvlink_GBps", json_number(s.nvlink_GBps))
      .field("pcie_GBps", json_number(s.pcie_GBps))
      .field("network_GBps", json_number(s.network_GBps))
      .field("network_share_GBps", json_number(s.network_share_GBps))
      .end_object();
  w.field("bisection_GBps", json_number(s.bisection_GBps));
  w.key("switches_per_tier").begin_array();
  for (int n : s.switches_per_tier) w.value(n);
  w.end_array();
  write_fabric(w.key("fabric"), t.fabric);
  if (t.all) {
    write_devices(w.key("device_list"), *t.all);
    write_links(w.key("link_list"), *t.all);
  } else {
    write_server_lists(w, t);
  }
  w.end_object();
  w.flush();
  os << "\n";
}

}  // namespace topoplan::report
