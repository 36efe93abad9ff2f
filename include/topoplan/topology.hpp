// Topology: a graph of devices joined by typed links (Boost.Graph behind a pimpl).
//
// Links are full duplex: a link joins devices a and b and has bw_GBps in EACH direction. A
// directed use of a link is a DirLink = 2 * link_index + (0 for a→b, 1 for b→a); collective cost
// models add load per DirLink.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "topoplan/device_id.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/name.hpp"

namespace topoplan {

enum class DeviceType { Gpu, NvSwitch, PcieSwitch, Cpu, Nic, NetSwitch };
std::string_view to_string(DeviceType type);

// Fields are ordered to pack (40 bytes): a 100,000-GPU cluster holds 300,000 of them.
struct Device {
  DeviceId id;  // unique: "gpu3" in a server, "n12/gpu3" in a cluster, "leaf4", "spine0"
  Name model;   // catalog name for GPUs and NICs ("H20", "ConnectX-7"); free text otherwise
  DeviceType type = DeviceType::Gpu;
  int node = -1;         // server index 0..N-1; -1 for devices outside servers (fabric switches)
  int local_index = -1;  // index among devices of the same type in its node (gpu3 → 3)
  int tier = 0;          // network switches: 1 leaf, 2 spine, 3 core; 0 otherwise
};

// A link as callers read it (48 bytes). The topology stores each link as its ends and the index
// of its properties in a table of distinct {kind, count, type, bandwidth, efficiency, latency}
// (detail::LinkRecord below) and Topology::link() assembles this value from the two.
struct Link {
  int a = -1, b = -1;  // device indices
  LinkKind kind = LinkKind::PCIe;
  int count = 1;            // bundled links or PCIe lanes
  Name type;                // catalog link type ("nvlink4", "pcie5", "upi", "ib-ndr400")
  double bw_GBps = 0;       // nominal per direction for the whole bundle (= count × per-unit GBps)
  double efficiency = 1.0;  // achieved fraction of bw_GBps for bulk data (from the catalog)
  double latency_us = 0;
};

namespace detail {
// How a topology stores a link (12 bytes): its ends and the index of its properties in the
// topology's table of distinct ones. A generated 100,000-GPU cluster's 589,220 links share a
// few dozen property sets, so storing each link whole (48 bytes) was 21 MB of repetition
// (issue 32).
struct LinkRecord {
  int a = -1, b = -1;
  int properties = 0;
};
}  // namespace detail

using DirLink = int;
inline int link_of(DirLink d) {
  return d >> 1;
}
inline bool is_reverse(DirLink d) {
  return (d & 1) != 0;
}

struct Adjacent {
  DirLink out;  // the directed link leaving the vertex
  int device;   // the device at its other end
};

namespace detail {
// The adjacency index's arrays (src/hw/topology_impl.hpp builds them on first use, under a
// lock): visible here so that neighbours() reads them inline once `fresh` is set.
struct AdjacencyView {
  std::vector<int> offsets;       // device d's entries are [offsets[d], offsets[d + 1])
  std::vector<Adjacent> entries;  // 2 per link (1 for a self link)
  std::atomic<bool> fresh{false};
};
}  // namespace detail

struct Diagnostic {
  std::string location;  // JSON pointer or device id
  std::string message;
};

// How a multi-server topology was generated (empty for a single server or a hand-written file).
// One kind of server in a mixed cluster: `nodes` copies of `server`, numbered after the groups
// before it.
struct ServerGroupInfo {
  std::string server;
  int nodes = 0;
};

struct FabricInfo {
  std::string server;  // server template name (a mixed cluster: the first group's)
  int nodes = 1;
  // A mixed cluster's server groups in node order (docs/topology-format.md, "Mixed clusters");
  // empty when every server is `server`.
  std::vector<ServerGroupInfo> groups;
  std::string kind;  // "rail-optimized", "fat-tree", "" for none
  std::string link;  // catalog link type of the fabric ("ib-ndr400")
  int tiers = 0;     // switch tiers
  double oversubscription = 1.0;
};

class Topology {
 public:
  Topology();
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  Topology(const Topology&);
  Topology& operator=(const Topology&);

  std::string name;
  std::string description;
  FabricInfo fabric;

  int add_device(Device d);  // returns the new device index
  int add_link(Link l);      // returns the new link index
  void reserve(std::size_t devices, std::size_t links);

  // Inline: routing and the load engine call these per hop (an out-of-line call was 6% of a
  // collective over 100,000 GPUs, issue 32). They read views of the Impl's vectors that every
  // mutation refreshes.
  std::size_t device_count() const { return device_count_; }
  std::size_t link_count() const { return link_count_; }
  const Device& device(int index) const {
    if (index < 0 || static_cast<std::size_t>(index) >= device_count_)
      out_of_range("device", index);
    return devices_[index];
  }
  // By value: assembled from the link's record and its property set (a `const Link&` bound to
  // it keeps the value alive as before).
  Link link(int index) const {
    const detail::LinkRecord& r = record(index);
    Link l = link_properties_[r.properties];
    l.a = r.a;
    l.b = r.b;
    return l;
  }
  // A link's properties without its ends (the shared set; its a and b are -1): the per-hop
  // readers of a field or two (latency, efficiency, kind) skip assembling a whole Link.
  const Link& properties(int link) const { return link_properties_[record(link).properties]; }
  std::optional<int> find(const std::string& id) const;

  // GPU device indices, node-major then local_index (rank order of a default launch).
  const std::vector<int>& gpus() const;
  int node_count() const;  // servers (max node + 1), at least 1 if any GPU
  std::vector<int> gpus_of_node(int node) const;
  std::vector<int> nics_of_node(int node) const;

  // Outgoing directed links of a device, in link-index order (valid until the topology changes).
  // Inline: the load engine asks it twice per routed pair (out of line, with its range check,
  // it was 7% of a collective over 100,000 GPUs, issue 32).
  std::span<const Adjacent> neighbours(int device) const {
    if (device < 0 || static_cast<std::size_t>(device) >= device_count_)
      out_of_range("device", device);
    if (!adjacency_->fresh.load(std::memory_order_acquire)) build_adjacency();
    const int* at = adjacency_->offsets.data() + device;
    return {adjacency_->entries.data() + at[0], static_cast<std::size_t>(at[1] - at[0])};
  }
  double bw_GBps(DirLink d) const {
    return link_properties_[record(link_of(d)).properties].bw_GBps;
  }
  int from_device(DirLink d) const {
    const detail::LinkRecord& r = record(link_of(d));
    return is_reverse(d) ? r.b : r.a;
  }
  int to_device(DirLink d) const {
    const detail::LinkRecord& r = record(link_of(d));
    return is_reverse(d) ? r.a : r.b;
  }

  // The catalog the model and link names refer to: the built-in one, or the built-in one
  // extended by hardware the topology file defines (its "catalog" key). Copies share it.
  const Catalog& catalog() const;
  std::shared_ptr<const Catalog> shared_catalog() const;  // nullptr: the built-in catalog
  void set_catalog(std::shared_ptr<const Catalog> catalog);

  // Catalog spec of a GPU device (throws UnknownNameError if its model is unknown).
  const GpuSpec& gpu_spec(int device) const;
  // GPU models and their counts, in order of first appearance ("H100-SXM" x 4, "H20" x 4).
  std::vector<std::pair<std::string, int>> gpu_models() const;
  // "8 x H100-SXM", or "4 x H100-SXM + 4 x H20" when the GPUs differ.
  std::string gpu_models_text() const;
  // The one GPU spec a planner prices every GPU with. A plan, a training plan or a compare
  // design prices all its GPUs as one kind, so a topology whose GPUs differ is refused here
  // (InputError naming the topology and the kinds) rather than priced as its first GPU.
  // `what` names the caller in the message ("a serving plan").
  const GpuSpec& uniform_gpu_spec(std::string_view what) const;

  // Every structural problem at once (disconnected GPUs, self links, zero bandwidth, GPUs with no
  // path to a NIC when the topology has NICs, ...). Empty means valid.
  std::vector<Diagnostic> validate() const;

 private:
  [[noreturn]] static void out_of_range(const char* what, int index);
  void refresh_views();  // after the Impl's vectors change
  void build_adjacency() const;
  const detail::LinkRecord& record(int index) const {
    if (index < 0 || static_cast<std::size_t>(index) >= link_count_) out_of_range("link", index);
    return links_[index];
  }

  struct Impl;
  std::unique_ptr<Impl> impl_;
  const Device* devices_ = nullptr;
  const detail::LinkRecord* links_ = nullptr;
  const Link* link_properties_ = nullptr;             // property sets; their ends are unused (-1)
  const detail::AdjacencyView* adjacency_ = nullptr;  // the Impl's, built on first use
  std::size_t device_count_ = 0, link_count_ = 0;
};

// "8 x H100-SXM", or "4 x H100-SXM + 4 x H20": GPU models and their counts as text.
std::string gpu_models_text(const std::vector<std::pair<std::string, int>>& models);

}  // namespace topoplan
