#include "report/topo_report.hpp"

#include <cctype>

#include <nlohmann/json.hpp>

#include "report/json_number.hpp"
#include "report/table.hpp"
#include "report/text_prefix.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {
using nlohmann::ordered_json;

std::string gbps(double v) {
  return fmt("%.1f", v) + " GB/s";
}
}  // namespace

namespace {

// The description up to its first ',', ':' or sentence '.' outside parentheses ("8x AMD Instinct
// MI300X 192GB (OAM, xGMI), ..." keeps its parenthesis; "2.5" is not a sentence end).
std::string first_clause(const std::string& text) {
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    const bool decimal_point =
        c == '.' && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1]));
    if (depth <= 0 && (c == ',' || c == ':' || (c == '.' && !decimal_point)))
      return text.substr(0, i);
  }
  return text;
}

}  // namespace

void print_topo_list(std::ostream& os, const std::vector<TopoListEntry>& entries, bool json) {
  if (json) {
    ordered_json arr = ordered_json::array();
    for (const auto& e : entries)
      arr.push_back({{"name", e.name},
                     {"gpus", e.gpus},
                     {"nodes", e.nodes},
                     {"gpu_model", e.gpu_model},
                     {"nvlink_domain", e.nvlink_domain},
                     {"description", e.description}});
    os << ordered_json{{"topologies", arr}}.dump(2) << "\n";
    return;
  }
  Table table({"name", "GPUs", "nodes", "GPU", "NVLink domain", "description"},
              {Align::Left, Align::Right, Align::Right, Align::Left, Align::Right, Align::Left});
  for (const auto& e : entries) {
    std::string desc = text_prefix(first_clause(e.description));
    table.add_row({e.name, std::to_string(e.gpus), std::to_string(e.nodes), e.gpu_model,
                   std::to_string(e.nvlink_domain), desc});
  }
  table.print(os);
}

TopoShowSource show_source(const Topology& t) {
  return {t.name, t.description, t.fabric, t.link_count(), t.gpu_models(), &t.catalog(),
          &t,     nullptr,       0};
}

TopoShowSource show_source(const ClusterShape& shape, const Topology& server,
                           std::size_t lists_limit_gpus) {
  std::vector<std::pair<std::string, int>> models = server.gpu_models();
  for (auto& [model, count] : models) count *= shape.nodes;
  return {shape.name,        shape.description, shape.fabric, shape.links,     std::move(models),
          &server.catalog(), nullptr,           &server,      lists_limit_gpus};
}

void print_topo_show(std::ostream& os, const TopoShowSource& t, const TopologySummary& s,
                     bool json) {
  if (json) {
    print_topo_show_json(os, t, s);
    return;
  }
  os << t.name << ": " << text_prefix(t.description) << "\n\n";
  Table table({"", "value"}, {Align::Left, Align::Left});
  table.add_row({"servers", std::to_string(s.nodes)});
  table.add_row({"GPUs", gpu_models_text(t.gpu_models)});
  table.add_row({"GPU memory total", format_bytes_binary(s.gpu_memory_bytes)});
  std::string devs;
  for (const auto& [type, n] : s.devices)
    devs += (devs.empty() ? "" : ", ") + std::to_string(n) + " " + type;
  table.add_row({"devices", devs});
  table.add_row({"links", std::to_string(t.links)});
  table.add_row({"NVLink domain", std::to_string(s.nvlink_domain) + " GPUs"});
  table.add_row({"NVLink per GPU", gbps(s.nvlink_GBps)});
  table.add_row({"PCIe per GPU", gbps(s.pcie_GBps)});
  // 0 GB/s is no figure, not a measured zero: say whether there is no NIC or no NIC link model
  // (an nvidia-smi import without --nic leaves the NICs' ports unknown).
  bool has_nic = false;
  for (const auto& [type, n] : s.devices) has_nic |= type == "nic" && n > 0;
  table.add_row({"network per GPU",
                 s.network_GBps > 0 ? gbps(s.network_GBps) + " (" + gbps(s.network_share_GBps) +
                                          " with every GPU sending)"
                 : has_nic ? "unknown: NICs with no network link (imported without --nic?)"
                           : "none (no NIC)"});
  table.add_row({"bisection", gbps(s.bisection_GBps)});
  if (!t.fabric.kind.empty()) {
    std::string tiers;
    for (std::size_t i = 0; i < s.switches_per_tier.size(); ++i)
      tiers += (i ? " / " : "") + std::to_string(s.switches_per_tier[i]);
    table.add_row({"fabric", t.fabric.kind + ", " + t.fabric.link + ", " +
                                 count_of(t.fabric.tiers, "tier", "tiers") + ", oversubscription " +
                                 fmt("%g", t.fabric.oversubscription)});
    table.add_row({"switches per tier", tiers});
    for (const ServerGroupInfo& g : t.fabric.groups)  // a mixed cluster's server groups
      table.add_row({"server group", std::to_string(g.nodes) + " x " + g.server});
  }
  table.print(os, "  ");
  os << "All bandwidths are nominal GB/s per direction.\n";
  for (const auto& [model, count] : t.gpu_models) {
    const std::string note = assumed_figures_note(t.catalog->gpu(model));
    if (!note.empty()) os << "Note: " << note << ".\n";
  }
}

void print_topo_paths(std::ostream& os, const Topology& t, const PathMatrix& m,
                      const std::vector<int>& nics, bool json) {
  const std::size_t n = m.gpus.size();
  auto cell = [&](std::size_t i, std::size_t j) { return m.cells[i][j]; };
  if (json) {
    ordered_json ids = ordered_json::array(), cls = ordered_json::array(),
                 bw = ordered_json::array(), lat = ordered_json::array(),
                 hops = ordered_json::array(), nic = ordered_json::array();
    for (std::size_t i = 0; i < n; ++i) {
      ids.push_back(t.device(m.gpus[i]).id);
      nic.push_back(nics[i] < 0 ? ordered_json(nullptr) : ordered_json(t.device(nics[i]).id));
      ordered_json c = ordered_json::array(), b = ordered_json::array(), l = ordered_json::array(),
                   h = ordered_json::array();
      for (std::size_t j = 0; j < n; ++j) {
        const Path* p = cell(i, j);
        c.push_back(p ? std::string(to_string(p->cls)) : "X");
        b.push_back(p ? ordered_json(json_number(p->bw_GBps)) : ordered_json(nullptr));
        l.push_back(p ? ordered_json(json_number(p->latency_us)) : ordered_json(nullptr));
        h.push_back(p ? ordered_json(p->hops.size()) : ordered_json(nullptr));
      }
      cls.push_back(c), bw.push_back(b), lat.push_back(l), hops.push_back(h);
    }
    ordered_json j{{"name", t.name}, {"gpus", ids},       {"nic", nic},  {"class", cls},
                   {"GBps", bw},     {"latency_us", lat}, {"hops", hops}};
    os << j.dump(2) << "\n";
    return;
  }
  auto matrix = [&](const std::string& title, auto value, bool with_nic) {
    std::vector<std::string> head{""};
    for (int g : m.gpus) head.push_back(t.device(g).id);
    if (with_nic) head.push_back("NIC");
    Table table(head);
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<std::string> row{t.device(m.gpus[i]).id};
      for (std::size_t j = 0; j < n; ++j) row.push_back(cell(i, j) ? value(*cell(i, j)) : "X");
      if (with_nic) row.push_back(nics[i] < 0 ? "-" : t.device(nics[i]).id);
      table.add_row(row);
    }
    os << title << "\n";
    table.print(os, "  ");
    os << "\n";
  };
  matrix(
      "Path class (NCCL: NVL NVLink, NVB via one GPU, PIX/PXB PCIe switch(es), PHB via CPU, "
      "SYS across CPUs, NET network)",
      [](const Path& p) { return std::string(to_string(p.cls)); }, true);
  matrix(
      "Bottleneck bandwidth (GB/s per direction)",
      [](const Path& p) { return fmt("%.1f", p.bw_GBps); }, false);
  matrix(
      "Latency (us, sum of hops)", [](const Path& p) { return fmt("%.2f", p.latency_us); }, false);
}

void print_topo_validate(std::ostream& os, const std::string& source,
                         const std::vector<Diagnostic>& diagnostics, bool json) {
  if (json) {
    ordered_json arr = ordered_json::array();
    for (const auto& d : diagnostics)
      arr.push_back({{"location", d.location}, {"message", d.message}});
    os << ordered_json{{"source", source}, {"valid", diagnostics.empty()}, {"diagnostics", arr}}
              .dump(2)
       << "\n";
    return;
  }
  if (diagnostics.empty()) {
    os << source << ": valid\n";
    return;
  }
  for (const auto& d : diagnostics) os << source << ": " << d.location << ": " << d.message << "\n";
  os << source << ": "
     << count_of(static_cast<long long>(diagnostics.size()), "problem", "problems") << "\n";
}

}  // namespace topoplan::report
