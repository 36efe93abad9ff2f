// Topology → Diagram: which device becomes which node (collapsing repeated servers, sockets and
// switches into counted stacks), which cluster holds it, and the merged edges between nodes.
#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include "report/diagram.hpp"
#include "report/table.hpp"

namespace topoplan::report {

namespace {

constexpr int kFullSocketsShown = 2;  // sockets drawn in full when a server's sockets collapse

int level_of(const Device& d) {
  switch (d.type) {
    case DeviceType::Cpu:
      return 0;
    case DeviceType::PcieSwitch:
      return 1;
    case DeviceType::Gpu:
    case DeviceType::Nic:
      return 2;
    case DeviceType::NvSwitch:
      return 3;
    case DeviceType::NetSwitch:
      return 3 + d.tier;
  }
  return 2;
}

const char* tier_name(int tier) {
  static const char* const names[] = {"", "leaf", "spine", "core", "supercore"};
  return tier >= 1 && tier <= 4 ? names[tier] : "switch";
}

// "rail3/leaf0" → "rail3/"; "leaf0" → "".
std::string prefix_of(const std::string& id) {
  const auto slash = id.rfind('/');
  return slash == std::string::npos ? "" : id.substr(0, slash + 1);
}

std::string local_id(const std::string& id) {
  const auto slash = id.rfind('/');
  return slash == std::string::npos ? id : id.substr(slash + 1);
}

// Socket (CPU local index) of every device reachable from a CPU through PCIe/C2C without crossing
// a GPU or NIC: lstopo's NUMA-node → host-bridge → PCIe-switch → device tree. -1 for the rest
// (NVSwitch, servers without CPUs).
std::vector<int> sockets_of(const Topology& t) {
  std::vector<int> socket(t.device_count(), -1);
  std::deque<int> queue;
  for (std::size_t i = 0; i < t.device_count(); ++i)
    if (t.device(static_cast<int>(i)).type == DeviceType::Cpu) {
      socket[i] = t.device(static_cast<int>(i)).local_index;
      queue.push_back(static_cast<int>(i));
    }
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop_front();
    for (const Adjacent& adj : t.neighbours(v)) {
      const LinkKind kind = t.link(link_of(adj.out)).kind;
      const DeviceType type = t.device(adj.device).type;
      if ((kind != LinkKind::PCIe && kind != LinkKind::C2C) || socket[adj.device] >= 0) continue;
      if (type != DeviceType::PcieSwitch && type != DeviceType::Gpu && type != DeviceType::Nic)
        continue;
      socket[adj.device] = socket[v];
      if (type == DeviceType::PcieSwitch) queue.push_back(adj.device);
    }
  }
  return socket;
}

// The server template of a node: a mixed cluster's group that holds it, else the fabric's.
std::string server_name(const Topology& t, int node) {
  int end = 0;
  for (const ServerGroupInfo& g : t.fabric.groups)
    if (node < (end += g.nodes)) return g.server;
  return t.fabric.server.empty() ? t.name : t.fabric.server;
}

// "96 GPUs × H100-SXM", or per model in first-seen order for a mixed cluster:
// "96 GPUs (32 × H200-SXM, 64 × H20)".
std::string gpu_summary(const Topology& t) {
  std::vector<std::pair<std::string, int>> models;
  for (int g : t.gpus()) {
    const std::string& m = t.device(g).model;
    auto it =
        std::find_if(models.begin(), models.end(), [&m](const auto& e) { return e.first == m; });
    if (it == models.end())
      models.emplace_back(m, 1);
    else
      ++it->second;
  }
  std::string text = std::to_string(t.gpus().size()) + " GPUs";
  if (models.size() == 1) return text + " × " + models.front().first;
  for (std::size_t i = 0; i < models.size(); ++i)
    text += (i ? ", " : " (") + std::to_string(models[i].second) + " × " + models[i].first;
  return models.empty() ? text : text + ")";
}

struct Builder {
  const Topology& t;
  const DiagramOptions& o;
  Diagram d;
  std::vector<int> node_of;  // device → diagram node
  std::map<std::string, int> by_key;
  std::vector<int> socket;
  bool collapse_servers = false;
  int sockets_per_server = 0;

  Builder(const Topology& topo, const DiagramOptions& opts) : t(topo), o(opts) {}

  void add_cluster(const std::string& key, const std::string& label, const std::string& parent,
                   const std::string& fill) {
    for (const DiagramCluster& c : d.clusters)
      if (c.key == key) return;
    d.clusters.push_back({key, label, parent, fill});
  }

  int node(const std::string& key, const Device& dev, const std::string& cluster) {
    auto [it, fresh] = by_key.emplace(key, static_cast<int>(d.nodes.size()));
    if (fresh) {
      DiagramNode n;
      n.key = key;
      n.cluster = cluster;
      n.type = dev.type;
      n.fill = device_fill(dev.type);
      n.level = level_of(dev);
      n.devices = 0;
      d.nodes.push_back(n);
    }
    ++d.nodes[it->second].devices;
    return it->second;
  }

  std::string server_cluster(int node_index) {
    const std::string key = "server" + std::to_string(node_index);
    std::string label = server_name(t, node_index);
    if (t.node_count() > 1) label = "n" + std::to_string(node_index) + ": " + label;
    add_cluster(key, label, "", "#fafafa");
    return key;
  }

  std::vector<int> first;  // diagram node → its first device

  // The device a GPU/NIC/PCIe switch hangs from (its PCIe switch or CPU), for the row order.
  int parent_of(int dev) const {
    int best = -1;
    for (const Adjacent& adj : t.neighbours(dev)) {
      const DeviceType type = t.device(adj.device).type;
      if ((type == DeviceType::PcieSwitch || type == DeviceType::Cpu) &&
          level_of(t.device(adj.device)) < level_of(t.device(dev)))
        best = best < 0 ? adj.device : std::min(best, adj.device);
    }
    return best;
  }

  // Node of a device inside a drawn server.
  int server_device(int i, const Device& dev) {
    const std::string server = server_cluster(std::max(dev.node, 0));
    const int s = socket[i];
    const bool fold_sockets = !o.expand && sockets_per_server > o.full_sockets;
    if (s >= kFullSocketsShown && fold_sockets) {
      const std::string key = server + "/more-sockets";
      const int n = node(key, dev, server);
      d.nodes[n].level = 1;
      return n;
    }
    std::string cluster = server;
    if (s >= 0) {
      cluster = server + "/numa" + std::to_string(s);
      add_cluster(cluster, "NUMA " + std::to_string(s), server, "#fffbe6");
      // lstopo draws a PCIe switch as a box around what hangs from it.
      const int sw = dev.type == DeviceType::PcieSwitch ? i : parent_of(i);
      if (sw >= 0 && t.device(sw).type == DeviceType::PcieSwitch) {
        const std::string box = cluster + "/" + local_id(t.device(sw).id);
        add_cluster(box, "PCIe switch " + local_id(t.device(sw).id), cluster, "#eef5fc");
        cluster = box;
      }
    }
    return node(dev.id, dev, cluster);
  }

  // Servers a plan overlay uses, when it uses more than one: each is drawn as one compact box
  // (GPU cells coloured by group) so that every server of the plan appears, in order.
  std::set<int> compact;

  std::set<int> folded;  // servers of the plan beyond compact_max: one "more of the plan" box

  void choose_compact() {
    if (!o.overlay || o.expand) return;
    std::set<int> used;
    for (const auto& entry : o.overlay->fill) used.insert(std::max(t.device(entry.first).node, 0));
    if (used.size() <= 1) return;
    const std::size_t cap = static_cast<std::size_t>(std::max(o.compact_max, 1));
    for (int dev : o.overlay->pp_chain) {
      const int server = std::max(t.device(dev).node, 0);
      if (compact.size() < cap && used.count(server)) compact.insert(server);
    }
    for (int server : used) {
      if (compact.size() < cap)
        compact.insert(server);
      else if (!compact.count(server))
        folded.insert(server);
    }
  }

  bool drawn_server(int node) const {
    return compact.empty() ? node <= 0 : compact.count(std::max(node, 0)) > 0;
  }

  bool adjacent_to_drawn_server(int sw) const {
    for (const Adjacent& adj : t.neighbours(sw)) {
      const Device& other = t.device(adj.device);
      if (other.type != DeviceType::NetSwitch && drawn_server(other.node)) return true;
    }
    return false;
  }

  // Many compact servers: every switch tier collapses to one stack across rails, so the picture
  // keeps one edge per server and tier instead of one per server and rail.
  bool fold_rails() const { return static_cast<int>(compact.size()) > o.full_servers; }

  int compact_server(const Device& dev) {
    const int n = node("compact" + std::to_string(std::max(dev.node, 0)), dev, "");
    d.nodes[n].level = 2;
    d.nodes[n].type = DeviceType::Gpu;
    return n;
  }

  int switch_device(int i, const Device& dev) {
    const std::string prefix = prefix_of(dev.id);
    std::string cluster;
    if (t.fabric.kind == "rail-optimized" && !prefix.empty()) {
      cluster = "rail:" + prefix;
      add_cluster(cluster, "rail " + prefix.substr(4, prefix.size() - 5), "", "#f3f0ff");
    }
    if (fold_rails()) return node(std::string("all:") + tier_name(dev.tier), dev, "");
    if (collapse_servers && !adjacent_to_drawn_server(i))
      return node("more:" + prefix + tier_name(dev.tier), dev, cluster);
    return node(dev.id, dev, cluster);
  }

  void assign_nodes() {
    int cpus_node0 = 0;
    for (std::size_t i = 0; i < t.device_count(); ++i) {
      const Device& dev = t.device(static_cast<int>(i));
      if (dev.type == DeviceType::Cpu && dev.node <= 0) ++cpus_node0;
    }
    sockets_per_server = cpus_node0;
    choose_compact();
    collapse_servers = !o.expand && (t.node_count() > o.full_servers || !compact.empty());
    socket = sockets_of(t);
    node_of.assign(t.device_count(), -1);
    for (std::size_t i = 0; i < t.device_count(); ++i) {
      const int di = static_cast<int>(i);
      const Device& dev = t.device(di);
      if (dev.type == DeviceType::NetSwitch)
        node_of[i] = switch_device(di, dev);
      else if (!compact.empty())
        node_of[i] = drawn_server(dev.node)                ? compact_server(dev)
                     : folded.count(std::max(dev.node, 0)) ? node("more-plan-servers", dev, "")
                                                           : node("more-servers", dev, "");
      else if (collapse_servers && dev.node > 0)
        node_of[i] = node("more-servers", dev, "");
      else
        node_of[i] = server_device(di, dev);
    }
  }

  // Down/up ports of each switch (Σ link counts towards lower / higher tiers).
  std::pair<int, int> ports(int sw) const {
    int down = 0, up = 0;
    const int tier = t.device(sw).tier;
    for (const Adjacent& adj : t.neighbours(sw)) {
      const Device& other = t.device(adj.device);
      const int count = t.link(link_of(adj.out)).count;
      (other.type == DeviceType::NetSwitch && other.tier > tier ? up : down) += count;
    }
    return {down, up};
  }

  std::string port_text(int sw) const {
    const auto [down, up] = ports(sw);
    return std::to_string(down) + " down" + (up > 0 ? ", " + std::to_string(up) + " up" : "") +
           " ports";
  }

  // Rail number of a rail-optimized switch ("rail3/leaf0" → 3), else 0.
  static int rail_of(const std::string& id) {
    return id.rfind("rail", 0) == 0 ? std::atoi(id.c_str() + 4) : 0;
  }

  void order_rows() {
    using Key = std::tuple<int, int, int, int, int>;
    std::map<std::pair<std::string, int>, std::vector<std::pair<Key, std::string>>> rows;
    for (std::size_t n = 0; n < d.nodes.size(); ++n) {
      const DiagramNode& dn = d.nodes[n];
      if (!dn.cells.empty()) continue;  // compact servers: compact_rows()
      const Device& dev = t.device(first[n]);
      const bool stack = dn.devices > 1;
      // CPUs share their server's row (one rank across the NUMA boxes, UPI drawn flat).
      const std::string scope =
          dev.type == DeviceType::Cpu ? dn.cluster.substr(0, dn.cluster.find('/')) : dn.cluster;
      Key key = dev.type == DeviceType::NetSwitch
                    ? Key{stack, rail_of(dev.id), dev.local_index, 0, 0}
                    : Key{stack, socket[first[n]], parent_of(first[n]), static_cast<int>(dev.type),
                          dev.local_index};
      rows[{scope, dn.level}].emplace_back(key, dn.key);
    }
    for (auto& [where, members] : rows) {
      if (members.size() < 2) continue;
      std::sort(members.begin(), members.end());
      std::vector<std::string> row;
      for (const auto& m : members) row.push_back(m.second);
      d.rows.push_back({where.first, std::move(row)});
    }
    compact_rows();
  }

  // Compact servers in server order, `compact_per_row` to a row, rows stacked by invisible edges.
  void compact_rows() {
    std::vector<std::string> keys;
    for (int server : compact) keys.push_back("compact" + std::to_string(server));
    const std::size_t per_row = static_cast<std::size_t>(std::max(o.compact_per_row, 1));
    for (std::size_t begin = 0; begin < keys.size(); begin += per_row) {
      const std::size_t end = std::min(keys.size(), begin + per_row);
      if (end - begin > 1)
        d.rows.push_back({"", std::vector<std::string>(keys.begin() + static_cast<long>(begin),
                                                       keys.begin() + static_cast<long>(end))});
      if (begin > 0) {
        DiagramEdge e;
        e.a = keys[begin - per_row];
        e.b = keys[begin];
        e.invisible = true;
        d.edges.push_back(e);
      }
    }
  }

  void label_nodes() {
    first.assign(d.nodes.size(), -1);
    std::vector<int> gpus(d.nodes.size(), 0), nics(d.nodes.size(), 0), cpus(d.nodes.size(), 0);
    std::vector<std::set<int>> servers(d.nodes.size());
    for (std::size_t i = 0; i < t.device_count(); ++i) {
      const int n = node_of[i];
      const Device& dev = t.device(static_cast<int>(i));
      if (first[n] < 0) first[n] = static_cast<int>(i);
      gpus[n] += dev.type == DeviceType::Gpu;
      nics[n] += dev.type == DeviceType::Nic;
      cpus[n] += dev.type == DeviceType::Cpu;
      servers[n].insert(dev.node);
    }
    for (std::size_t n = 0; n < d.nodes.size(); ++n) {
      DiagramNode& dn = d.nodes[n];
      const Device& dev = t.device(first[n]);
      const std::string hw =
          dev.type == DeviceType::NetSwitch ? port_text(first[n]) : dev.model.str();
      if (dn.key.rfind("compact", 0) == 0) {
        label_compact(dn, static_cast<int>(n), dev);
      } else if (dn.devices == 1) {
        dn.label = local_id(dev.id) + "\n" + hw;
        if (dev.type == DeviceType::NetSwitch) dn.label = dev.id + "\n" + hw;
      } else if (dn.key == "more-plan-servers") {
        dn.label = "× " + std::to_string(servers[n].size()) + " more servers of the plan\n(" +
                   std::to_string(gpus[n]) + " GPUs, groups as drawn)";
        dn.fill = "#d9d9d9";
        d.notes.push_back(std::to_string(compact.size()) + " of the plan's " +
                          std::to_string(compact.size() + folded.size()) +
                          " servers drawn (the first pipeline's first); the rest folded");
      } else if (dn.key == "more-servers") {
        dn.label = "× " + std::to_string(servers[n].size()) + " more servers" +
                   templates_text(servers[n]) + "\n(" + std::to_string(gpus[n]) + " GPUs, " +
                   std::to_string(nics[n]) + " NICs)";
        dn.fill = "#e8e8e8";
        const std::string kinds = templates_text(servers[n]);
        d.notes.push_back("one server drawn in full, " + std::to_string(servers[n].size()) +
                          (kinds == " like this" ? " more like it" : " more" + kinds) +
                          " stacked (--expand draws all)");
      } else if (dev.type == DeviceType::NetSwitch) {
        const std::string tier = tier_name(dev.tier);
        const bool all = dn.key.rfind("all:", 0) == 0;
        dn.label = "× " + std::to_string(dn.devices) + " " + (all ? "" : prefix_of(dev.id)) +
                   (tier == "leaf" ? "leaves" : tier + "s") + (all ? " (all rails)" : "") + "\n" +
                   port_text(first[n]) + " each";
      } else {
        dn.label = "× " + std::to_string(cpus[n]) + " more sockets like these\n(" +
                   std::to_string(gpus[n]) + " GPUs, " + std::to_string(nics[n]) + " NICs)";
        dn.fill = "#e8e8e8";
        d.notes.push_back("sockets from " + std::to_string(kFullSocketsShown) +
                          " on stacked (--expand draws all)");
      }
      if (o.overlay && dn.devices == 1) {
        const int dev_index = first[n];
        if (auto f = o.overlay->fill.find(dev_index); f != o.overlay->fill.end())
          dn.fill = f->second;
        if (auto g = o.overlay->tag.find(dev_index); g != o.overlay->tag.end())
          dn.label += "\n" + g->second;
      }
    }
  }

  // " like this" when the folded servers share one template, else each template's count
  // (a mixed cluster): " (3 × hgx-h200-8, 8 × hgx-h20-8)".
  std::string templates_text(const std::set<int>& servers) const {
    std::vector<std::pair<std::string, int>> count;  // server order
    for (int s : servers) {
      const std::string name = server_name(t, std::max(s, 0));
      if (count.empty() || count.back().first != name)
        count.emplace_back(name, 1);
      else
        ++count.back().second;
    }
    if (count.size() <= 1) return " like this";
    std::string text;
    for (const auto& [name, k] : count)
      text += (text.empty() ? " (" : ", ") + std::to_string(k) + " × " + name;
    return text + ")";
  }

  // A compact server: its name, and one cell per GPU (local order) with the overlay's colour
  // and tag; what lies inside (NVSwitch, PCIe, NICs) is summarized in the header.
  void label_compact(DiagramNode& dn, int n, const Device& dev) {
    const int server = std::max(dev.node, 0);
    dn.label = "n" + std::to_string(server) + ": " + server_name(t, server);
    dn.fill = "#fafafa";
    std::vector<std::pair<int, int>> gpus;  // (local index, device)
    for (int g : t.gpus())
      if (node_of[g] == n) gpus.emplace_back(t.device(g).local_index, g);
    std::sort(gpus.begin(), gpus.end());
    for (const auto& [local, g] : gpus) {
      DiagramNode::Cell c{device_fill(DeviceType::Gpu), "g" + std::to_string(local)};
      if (auto f = o.overlay->fill.find(g); f != o.overlay->fill.end()) c.fill = f->second;
      if (auto tag = o.overlay->tag.find(g); tag != o.overlay->tag.end()) c.text = tag->second;
      dn.cells.push_back(c);
    }
    d.notes.push_back(std::to_string(compact.size()) +
                      " servers of the plan drawn compact: GPU cells coloured by group, in local "
                      "order (--expand draws them in full)");
  }

  // Pipeline arrows: stage i → i + 1 of the first pipeline where they sit on different servers.
  void chain_edges() {
    if (compact.empty()) return;
    const std::vector<int>& chain = o.overlay->pp_chain;
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
      const int a = node_of[chain[i]], b = node_of[chain[i + 1]];
      if (a == b) continue;
      DiagramEdge e;
      e.a = d.nodes[a].key;
      e.b = d.nodes[b].key;
      e.chain = true;
      e.colour = "#333333";
      e.label = "PP" + std::to_string(i) + "→" + std::to_string(i + 1);
      d.edges.push_back(e);
    }
  }

  void merge_edges() {
    std::map<std::tuple<int, int, std::string>, int> merged;
    std::map<int, std::string> highlight;
    if (o.overlay)
      for (const OverlayHighlight& h : o.overlay->highlights) highlight[h.link] = h.label;
    for (std::size_t li = 0; li < t.link_count(); ++li) {
      const Link& l = t.link(static_cast<int>(li));
      int a = node_of[l.a], b = node_of[l.b];
      if (a == b) {  // inside one stack or compact server: its highlight goes into the label
        if (auto h = highlight.find(static_cast<int>(li));
            h != highlight.end() && !d.nodes[a].cells.empty() &&
            d.nodes[a].label.find(h->second) == std::string::npos)
          d.nodes[a].label += "\n" + h->second;
        continue;
      }
      if (d.nodes[a].level > d.nodes[b].level) std::swap(a, b);
      auto [it, fresh] = merged.emplace(std::make_tuple(a, b, l.type), d.edges.size());
      if (fresh) {
        DiagramEdge e;
        e.a = d.nodes[a].key;
        e.b = d.nodes[b].key;
        e.kind = l.kind;
        e.type = l.type;
        d.edges.push_back(e);
      }
      DiagramEdge& e = d.edges[it->second];
      ++e.links;
      e.count += l.count;
      e.bw_GBps = std::max(e.bw_GBps, l.bw_GBps);
      if (auto h = highlight.find(static_cast<int>(li)); h != highlight.end()) {
        e.highlight = true;
        e.label = h->second;
      }
    }
    for (DiagramEdge& e : d.edges) style_edge(e);
    chain_edges();
  }

  void style_edge(DiagramEdge& e) const {
    e.colour = link_colour(e.kind);
    e.penwidth = pen_width(e.bw_GBps);
    if (e.highlight) return;
    const int unit = e.count / std::max(e.links, 1);
    std::string text;
    if (e.kind == LinkKind::PCIe)
      text = (e.links > 1 ? "×" + std::to_string(e.links) + " " : "") + "x" + std::to_string(unit);
    else if (e.count > 1)
      text = "×" + std::to_string(e.count);
    if (o.labels)
      text +=
          (text.empty() ? "" : " ") + fmt("%g", e.bw_GBps) + " GB/s" + (e.links > 1 ? " each" : "");
    e.label = text;
  }

  void finish() {
    std::set<LinkKind> kinds;
    for (const DiagramEdge& e : d.edges)
      if (!e.invisible && !e.chain) kinds.insert(e.kind);
    d.kinds.assign(kinds.begin(), kinds.end());
    d.title = t.name + ": " + gpu_summary(t);
    if (t.node_count() > 1) d.title += ", " + std::to_string(t.node_count()) + " servers";
    if (!t.fabric.kind.empty()) d.title += ", " + t.fabric.kind + " " + t.fabric.link;
    if (o.overlay) {
      d.caption = o.overlay->caption;
      d.fill_legend = o.overlay->fill_legend;
      d.highlight_legend = o.overlay->highlight_legend;
    }
    std::sort(d.notes.begin(), d.notes.end());
    d.notes.erase(std::unique(d.notes.begin(), d.notes.end()), d.notes.end());
  }
};

}  // namespace

Diagram build_diagram(const Topology& t, const DiagramOptions& options) {
  Builder b(t, options);
  b.assign_nodes();
  b.label_nodes();
  b.merge_edges();
  b.order_rows();
  b.finish();
  return std::move(b.d);
}

}  // namespace topoplan::report
