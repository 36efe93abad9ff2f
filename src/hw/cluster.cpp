// make_cluster: N copies of a server joined by a generated folded-Clos fabric.
//
// Every fabric is a stack of tiers over "planes": rail-optimized has one plane per rail (NIC
// local index r of every server), fat-tree one plane holding every NIC in server order. A plane
// whose ports fit one switch is a single leaf; otherwise leaves take `down` ports and send
// `radix - down` uplinks up. Tier t (t ≥ 2) groups child blocks (h = radix/2 of them below the
// top, all of them at the top); for each switch position g of a child block there is a group of
// C_t switches, and switch g of every child connects to each member with U/C_t bundled links.
// This is a k-ary fat tree when the sizes are powers of the half radix, and it keeps the
// leaves under any switch a contiguous range, which structural routing relies on.
#include <array>
#include <cmath>
#include <functional>
#include <string>

#include "core/name_table.hpp"
#include "hw/fabric_builder.hpp"
#include "topoplan/error.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/topology_io.hpp"

namespace topoplan {

namespace {

// NVIDIA Quantum-2 QM9700 (NDR): 64 ports of 400 Gb/s, the building block of the DGX H100
// SuperPOD reference architecture (docs.nvidia.com, "DGX SuperPOD ... Network Fabrics").
constexpr int kRadix = 64;
constexpr int kMaxTiers = 4;
const char* const kTierName[] = {"", "leaf", "spine", "core", "supercore"};

constexpr std::array<NameEntry<FabricKind>, 2> kFabricNames{{
    {FabricKind::RailOptimized, "rail-optimized"},
    {FabricKind::FatTree, "fat-tree"},
}};
static_assert(names_every_value(kFabricNames));

struct TierShape {
  int children = 0;   // child blocks per block (last tier: all)
  int group = 1;      // switches per position group (C_t)
  int bundle = 1;     // links between a child switch and one group member
  int blocks = 0;     // blocks at this tier
  int positions = 1;  // switch positions per block
};

// Tier shapes for a plane of `ports` NIC ports.
std::vector<TierShape> plan_tiers(int ports, int down, int min_tiers, const std::string& what) {
  const int h = kRadix / 2;
  std::vector<TierShape> tiers(1);
  const bool single = ports <= kRadix && min_tiers <= 1;
  tiers[0].blocks = single ? 1 : (ports + down - 1) / down;
  if (single) return tiers;
  int up = kRadix - down;  // uplinks of a switch of the tier below
  for (int t = 2;; ++t) {
    if (t > kMaxTiers)
      throw InputError("cluster", "fabric",
                       what + ": " + std::to_string(ports) + " ports need more than " +
                           std::to_string(kMaxTiers) + " tiers of radix-64 switches");
    const TierShape& below = tiers.back();
    const bool top = below.blocks <= kRadix && t >= min_tiers;
    TierShape s;
    s.children = top ? below.blocks : std::min(h, below.blocks);
    const int cap = top ? kRadix : h;
    s.group = up;  // smallest divisor of `up` whose bundles still fit the switch's down ports
    for (int c = 1; c <= up; ++c)
      if (up % c == 0 && s.children * (up / c) <= cap) {
        s.group = c;
        break;
      }
    s.bundle = up / s.group;
    s.blocks = (below.blocks + s.children - 1) / s.children;
    s.positions = below.positions * s.group;
    tiers.push_back(s);
    if (top) break;
    up = h;
  }
  if (min_tiers > 0 && static_cast<int>(tiers.size()) > min_tiers)
    throw InputError("cluster", "fabric.tiers",
                     what + ": " + std::to_string(ports) + " ports need " +
                         std::to_string(tiers.size()) + " tiers of radix-64 switches, not " +
                         std::to_string(min_tiers));
  return tiers;
}

class FabricBuilder {
 public:
  FabricBuilder(detail::FabricSink& sink, int down) : sink_(sink), down_(down) {}

  // Builds one plane over `nics` (device indices, in port order); returns its tier count.
  int build_plane(const std::vector<int>& nics, const std::string& prefix, int min_tiers) {
    const auto tiers = plan_tiers(static_cast<int>(nics.size()), down_, min_tiers,
                                  prefix.empty() ? "fat-tree" : prefix);
    const int per_leaf = tiers.size() == 1 ? kRadix : down_;
    // below[b][p]: device of switch position p in block b of the tier below.
    std::vector<std::vector<int>> below(tiers[0].blocks, std::vector<int>(1));
    for (int b = 0; b < tiers[0].blocks; ++b) below[b][0] = sink_.add_switch(prefix, 1, b);
    for (std::size_t i = 0; i < nics.size(); ++i)
      sink_.connect(nics[i], below[i / static_cast<std::size_t>(per_leaf)][0], 1);
    int counter = 0;
    for (std::size_t t = 1; t < tiers.size(); ++t) {
      const TierShape& s = tiers[t];
      std::vector<std::vector<int>> above(s.blocks);
      counter = 0;
      for (int b = 0; b < s.blocks; ++b) {
        above[b].resize(static_cast<std::size_t>(s.positions));
        for (int p = 0; p < s.positions; ++p)
          above[b][p] = sink_.add_switch(prefix, static_cast<int>(t) + 1, counter++);
        const int first = b * s.children;
        const int last = std::min(first + s.children, static_cast<int>(below.size()));
        for (int c = first; c < last; ++c)
          for (std::size_t g = 0; g < below[c].size(); ++g)
            for (int m = 0; m < s.group; ++m)
              sink_.connect(below[c][g], above[b][g * s.group + m], s.bundle);
      }
      below = std::move(above);
    }
    return static_cast<int>(tiers.size());
  }

 private:
  detail::FabricSink& sink_;
  int down_;
};

// make_cluster's sink: real switches and links in the topology.
class TopologySink : public detail::FabricSink {
 public:
  // The names are interned once here: per switch and per link they were hashed each time.
  TopologySink(Topology& t, const LinkSpec& link)
      : t_(t), link_(link), type_(link.name), model_("radix-64 " + link.name + " switch") {}
  int add_switch(const std::string& prefix, int tier, int index) override {
    Device d;
    d.id = prefix + detail::tier_name(tier) + std::to_string(index);
    d.type = DeviceType::NetSwitch;
    d.model = model_;
    d.tier = tier;
    d.local_index = index;
    return t_.add_device(std::move(d));
  }
  void connect(int a, int b, int count) override {
    Link l;
    l.a = a;
    l.b = b;
    l.kind = link_.kind;
    l.type = type_;
    l.count = count;
    l.bw_GBps = link_.GBps * count;
    l.efficiency = link_.efficiency;
    l.latency_us = link_.latency_us;
    t_.add_link(std::move(l));
  }

 private:
  Topology& t_;
  const LinkSpec& link_;
  Name type_, model_;
};

}  // namespace

namespace detail {

const char* tier_name(int tier) {
  return kTierName[tier];
}

const LinkSpec& fabric_link(const Topology& server, const std::vector<int>& nics,
                            const ClusterOptions& o) {
  const Catalog& cat = server.catalog();
  std::string name = o.link;
  if (name.empty()) {
    // The fabric's link is the first NIC's port link: a NIC without a model has none, and
    // cat.nic("") was "unknown NIC model ''" with no file named.
    const Device& nic = server.device(nics.front());
    if (nic.model.empty())
      throw InputError("cluster", "fabric.link",
                       "the server's NIC '" + nic.id +
                           "' has no model to take the fabric link from; name the link");
    name = cat.nic(nic.model).port_link;
  }
  const LinkSpec& spec = cat.link(name);
  if (spec.kind != LinkKind::Network)
    throw InputError("cluster", "fabric.link", "'" + name + "' is not a network link type");
  return spec;
}

void check_cluster_options(const Topology& server, const ClusterOptions& o) {
  if (o.nodes < 1)
    throw InputError("cluster", "nodes", "must be at least 1, got " + std::to_string(o.nodes));
  // Before any copy is reserved: --nodes 10000000 would otherwise end in std::bad_alloc.
  const auto nodes = static_cast<std::size_t>(o.nodes);
  const std::size_t gpus = server.gpus().size(), devices = server.device_count();
  if ((gpus > 0 && nodes > limits::kMaxGpus / gpus) ||
      (devices > 0 && nodes > limits::kMaxDevices / devices))
    throw InputError("cluster", "nodes",
                     std::to_string(o.nodes) + " servers of " + std::to_string(gpus) +
                         " GPUs and " + std::to_string(devices) + " devices are more than " +
                         std::to_string(limits::kMaxGpus) + " GPUs or " +
                         std::to_string(limits::kMaxDevices) +
                         " devices in one topology (docs/limits.md)");
  if (!(o.oversubscription >= 1.0) || !std::isfinite(o.oversubscription))
    throw InputError(
        "cluster", "fabric.oversubscription",
        "must be a finite ratio >= 1 (leaf down:up), got " + std::to_string(o.oversubscription));
  if (o.tiers != 0 && (o.tiers < 1 || o.tiers > kMaxTiers))
    throw InputError("cluster", "fabric.tiers", "must be 1 to 4, got " + std::to_string(o.tiers));
  for (std::size_t d = 0; d < server.device_count(); ++d)
    if (server.device(static_cast<int>(d)).type == DeviceType::NetSwitch)
      throw InputError(server.name, "devices",
                       "a cluster's server must not contain network switches");
}

// Server-local NIC device indices of a server, by local index.
std::vector<int> server_nics(const Topology& server) {
  std::vector<int> nics;
  for (int n : server.nics_of_node(0)) nics.push_back(n);
  if (nics.empty())
    throw InputError(server.name, "devices", "a cluster needs servers with at least one NIC");
  return nics;
}

int build_fabric(FabricSink& sink, const std::vector<std::vector<int>>& server_nic,
                 const ClusterOptions& o) {
  const int down =
      static_cast<int>(std::lround(kRadix * o.oversubscription / (1.0 + o.oversubscription)));
  FabricBuilder builder(sink, std::min(down, kRadix - 1));
  int tiers = 0;
  std::vector<int> plane;
  if (o.fabric == FabricKind::RailOptimized) {
    std::size_t rails = 0;
    for (const auto& n : server_nic) rails = std::max(rails, n.size());
    for (std::size_t r = 0; r < rails; ++r) {
      plane.clear();
      for (const auto& n : server_nic)
        if (r < n.size()) plane.push_back(n[r]);
      tiers =
          std::max(tiers, builder.build_plane(plane, "rail" + std::to_string(r) + "/", o.tiers));
    }
  } else {
    for (const auto& n : server_nic) plane.insert(plane.end(), n.begin(), n.end());
    tiers = builder.build_plane(plane, "", o.tiers);
  }
  return tiers;
}

ClusterNames cluster_names(const std::vector<ServerGroup>& groups, const ClusterOptions& o,
                           const std::string& link, int tiers) {
  const std::string kind(to_string(o.fabric));
  ClusterNames out;
  std::string counts;
  int nodes = 0;
  for (const ServerGroup& g : groups) {
    out.name += (out.name.empty() ? "" : "+") + g.server->name + "-x" + std::to_string(g.nodes);
    counts += (counts.empty() ? "" : " + ") + std::to_string(g.nodes) + " x " + g.server->name;
    nodes += g.nodes;
  }
  out.description = counts + ", " + kind + " " + link + " fabric";
  out.fabric =
      FabricInfo{groups.front().server->name, nodes, {}, kind, link, tiers, o.oversubscription};
  if (groups.size() > 1)
    for (const ServerGroup& g : groups) out.fabric.groups.push_back({g.server->name, g.nodes});
  return out;
}

}  // namespace detail

namespace {

// Appends `nodes` copies of `server` as servers first_node, first_node + 1, ..., each one's
// devices after the previous one's.
void copy_servers(const Topology& server, int first_node, int nodes, Topology& out) {
  const int E = static_cast<int>(server.link_count());
  for (int k = first_node; k < first_node + nodes; ++k) {
    const int base = static_cast<int>(out.device_count());
    for (std::size_t i = 0; i < server.device_count(); ++i) {
      Device d = server.device(static_cast<int>(i));
      d.id = DeviceId::in_server(k, d.id);  // "n<k>/" + the template's id, no string made
      d.node = k;
      out.add_device(std::move(d));
    }
    for (int i = 0; i < E; ++i) {
      Link l = server.link(i);
      l.a += base;
      l.b += base;
      out.add_link(std::move(l));
    }
  }
}

}  // namespace

std::string_view to_string(FabricKind k) {
  return name_of(kFabricNames, k);
}

FabricKind parse_fabric_kind(std::string_view text) {
  return value_of(kFabricNames, text, "fabric", std::equal_to<>());
}

Topology make_cluster(const Topology& server, const ClusterOptions& o) {
  detail::check_cluster_options(server, o);
  if (o.nodes == 1) return server;
  return make_mixed_cluster({{&server, o.nodes}}, o);
}

Topology make_mixed_cluster(const std::vector<ServerGroup>& groups, const ClusterOptions& o) {
  if (groups.empty()) throw InputError("cluster", "servers", "no server groups");
  long long total = 0;
  std::size_t devices = 0, links = 0;
  std::vector<std::vector<int>> nics;  // per group
  for (const ServerGroup& g : groups) {
    ClusterOptions one = o;
    one.nodes = g.nodes;
    detail::check_cluster_options(*g.server, one);
    total += g.nodes;
    nics.push_back(detail::server_nics(*g.server));
    devices += static_cast<std::size_t>(g.nodes) * g.server->device_count();
    links += static_cast<std::size_t>(g.nodes) * g.server->link_count();
  }
  ClusterOptions all = o;
  all.nodes = static_cast<int>(std::min<long long>(total, limits::kMaxGpus));
  if (groups.size() > 1)
    detail::check_cluster_options(*groups.front().server, all);  // the whole cluster's size
  const Topology& first = *groups.front().server;
  const LinkSpec& link = detail::fabric_link(first, nics.front(), o);
  Topology t;
  t.set_catalog(first.shared_catalog());  // the servers' own hardware kinds, if any
  // Global NIC device index of every server, by local NIC index: servers are copied back to
  // back, so each one's first device index is known before any is added.
  std::vector<std::vector<int>> server_nic;
  int base = 0;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int k = 0; k < groups[g].nodes; ++k) {
      server_nic.emplace_back();
      for (int n : nics[g]) server_nic.back().push_back(base + n);
      base += static_cast<int>(groups[g].server->device_count());
    }
  // Exactly what will be added (a counting pass over the fabric costs a few percent of building
  // it): an estimate left a third of the device and link vectors unused at 100,000 GPUs.
  const detail::FabricCount fabric = detail::count_fabric(server_nic, o);
  t.reserve(devices + fabric.switches, links + fabric.links);
  int node = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    copy_servers(*groups[g].server, node, groups[g].nodes, t);
    node += groups[g].nodes;
  }
  TopologySink sink(t, link);
  const int tiers = detail::build_fabric(sink, server_nic, o);
  detail::ClusterNames names = detail::cluster_names(groups, o, link.name, tiers);
  t.name = std::move(names.name);
  t.description = std::move(names.description);
  t.fabric = std::move(names.fabric);
  return t;
}

namespace {

// Server `node` of a cluster as a server topology of its own (node 0, ids without "n<k>/").
Topology server_of_node(const Topology& cluster, int node) {
  Topology server;
  server.set_catalog(cluster.shared_catalog());
  std::vector<int> index(cluster.device_count(), -1);
  for (std::size_t i = 0; i < cluster.device_count(); ++i) {
    Device d = cluster.device(static_cast<int>(i));
    if (d.node != node) continue;
    if (d.id.server() == node) d.id = d.id.local();
    d.node = 0;
    index[i] = server.add_device(std::move(d));
  }
  for (std::size_t i = 0; i < cluster.link_count(); ++i) {
    Link l = cluster.link(static_cast<int>(i));
    if (index[static_cast<std::size_t>(l.a)] < 0 || index[static_cast<std::size_t>(l.b)] < 0)
      continue;
    l.a = index[static_cast<std::size_t>(l.a)];
    l.b = index[static_cast<std::size_t>(l.b)];
    server.add_link(std::move(l));
  }
  server.name = cluster.fabric.server;
  int first = 0;
  for (const ServerGroupInfo& g : cluster.fabric.groups) {
    if (node < first + g.nodes) {
      server.name = g.server;
      break;
    }
    first += g.nodes;
  }
  return server;
}

}  // namespace

Topology pool_cluster(const Topology& cluster, int first_node, int nodes) {
  if (cluster.fabric.kind.empty() || first_node < 0 || nodes < 1 ||
      first_node + nodes > cluster.node_count())
    throw InputError(cluster.name, "",
                     "no servers " + std::to_string(first_node) + " to " +
                         std::to_string(first_node + nodes - 1) + " in this cluster");
  ClusterOptions o;
  o.nodes = nodes;
  o.fabric = parse_fabric_kind(cluster.fabric.kind);
  o.link = cluster.fabric.link;
  o.oversubscription = cluster.fabric.oversubscription;
  return make_cluster(server_of_node(cluster, first_node), o);
}

}  // namespace topoplan
