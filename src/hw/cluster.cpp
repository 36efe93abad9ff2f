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
  FabricBuilder(Topology& t, const LinkSpec& link, int down) : t_(t), link_(link), down_(down) {}

  // Builds one plane over `nics` (device indices, in port order); returns its tier count.
  int build_plane(const std::vector<int>& nics, const std::string& prefix, int min_tiers) {
    const auto tiers = plan_tiers(static_cast<int>(nics.size()), down_, min_tiers,
                                  prefix.empty() ? "fat-tree" : prefix);
    const int per_leaf = tiers.size() == 1 ? kRadix : down_;
    // below[b][p]: device of switch position p in block b of the tier below.
    std::vector<std::vector<int>> below(tiers[0].blocks, std::vector<int>(1));
    for (int b = 0; b < tiers[0].blocks; ++b) below[b][0] = add_switch(prefix, 1, b);
    for (std::size_t i = 0; i < nics.size(); ++i)
      connect(nics[i], below[i / static_cast<std::size_t>(per_leaf)][0], 1);
    int counter = 0;
    for (std::size_t t = 1; t < tiers.size(); ++t) {
      const TierShape& s = tiers[t];
      std::vector<std::vector<int>> above(s.blocks);
      counter = 0;
      for (int b = 0; b < s.blocks; ++b) {
        above[b].resize(static_cast<std::size_t>(s.positions));
        for (int p = 0; p < s.positions; ++p)
          above[b][p] = add_switch(prefix, static_cast<int>(t) + 1, counter++);
        const int first = b * s.children;
        const int last = std::min(first + s.children, static_cast<int>(below.size()));
        for (int c = first; c < last; ++c)
          for (std::size_t g = 0; g < below[c].size(); ++g)
            for (int m = 0; m < s.group; ++m)
              connect(below[c][g], above[b][g * s.group + m], s.bundle);
      }
      below = std::move(above);
    }
    return static_cast<int>(tiers.size());
  }

 private:
  int add_switch(const std::string& prefix, int tier, int index) {
    Device d;
    d.id = prefix + kTierName[tier] + std::to_string(index);
    d.type = DeviceType::NetSwitch;
    d.model = "radix-64 " + link_.name + " switch";
    d.tier = tier;
    d.local_index = index;
    return t_.add_device(std::move(d));
  }
  void connect(int a, int b, int count) {
    Link l;
    l.a = a;
    l.b = b;
    l.kind = link_.kind;
    l.type = link_.name;
    l.count = count;
    l.bw_GBps = link_.GBps * count;
    l.efficiency = link_.efficiency;
    l.latency_us = link_.latency_us;
    t_.add_link(std::move(l));
  }

  Topology& t_;
  const LinkSpec& link_;
  int down_;
};

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

void check_options(const Topology& server, const ClusterOptions& o) {
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

// Copies the server `nodes` times; device i of copy k gets index k * S + i.
void copy_servers(const Topology& server, int nodes, Topology& out) {
  const int S = static_cast<int>(server.device_count());
  const int E = static_cast<int>(server.link_count());
  for (int k = 0; k < nodes; ++k) {
    // Appended piecewise: GCC 12 at -O3 flags `"n" + std::to_string(k)` (string::replace inlined
    // into operator+(const char*, string&&)) with a false-positive -Werror=restrict.
    std::string prefix = "n";
    prefix += std::to_string(k);
    prefix += '/';
    for (int i = 0; i < S; ++i) {
      Device d = server.device(i);
      d.id.insert(0, prefix);
      d.node = k;
      out.add_device(std::move(d));
    }
    for (int i = 0; i < E; ++i) {
      Link l = server.link(i);
      l.a += k * S;
      l.b += k * S;
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
  check_options(server, o);
  if (o.nodes == 1) return server;
  std::vector<int> nics;  // server-local NIC indices by local index
  for (int n : server.nics_of_node(0)) nics.push_back(n);
  if (nics.empty())
    throw InputError(server.name, "devices", "a cluster needs servers with at least one NIC");
  const LinkSpec& link = fabric_link(server, nics, o);
  const int S = static_cast<int>(server.device_count());
  const std::size_t ports = static_cast<std::size_t>(o.nodes) * nics.size();
  Topology t;
  t.set_catalog(server.shared_catalog());  // the servers' own hardware kinds, if any
  // Switches are at most ~1.5 per port for these shapes; links ~ server links + 3 per port.
  t.reserve(static_cast<std::size_t>(o.nodes) * S + ports * 2,
            static_cast<std::size_t>(o.nodes) * server.link_count() + ports * 4);
  copy_servers(server, o.nodes, t);
  const int down =
      static_cast<int>(std::lround(kRadix * o.oversubscription / (1.0 + o.oversubscription)));
  FabricBuilder builder(t, link, std::min(down, kRadix - 1));
  int tiers = 0;
  std::vector<int> plane;
  if (o.fabric == FabricKind::RailOptimized) {
    for (std::size_t r = 0; r < nics.size(); ++r) {
      plane.clear();
      for (int k = 0; k < o.nodes; ++k) plane.push_back(k * S + nics[r]);
      tiers =
          std::max(tiers, builder.build_plane(plane, "rail" + std::to_string(r) + "/", o.tiers));
    }
  } else {
    for (int k = 0; k < o.nodes; ++k)
      for (int n : nics) plane.push_back(k * S + n);
    tiers = builder.build_plane(plane, "", o.tiers);
  }
  t.name = server.name + "-x" + std::to_string(o.nodes);
  const std::string kind(to_string(o.fabric));
  t.description =
      std::to_string(o.nodes) + " x " + server.name + ", " + kind + " " + link.name + " fabric";
  t.fabric = FabricInfo{server.name, o.nodes, kind, link.name, tiers, o.oversubscription};
  return t;
}

}  // namespace topoplan
