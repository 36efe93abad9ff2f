// Best path between two devices by NCCL's rule (src/graph/paths.cc): lowest class first, then
// highest bottleneck bandwidth, then fewest hops. Internal to the route module.
#pragma once

#include <span>
#include <vector>

#include "topoplan/route.hpp"

namespace topoplan::route {

// Which devices a search may visit. `members` lists them and `slot_of` maps a device index to
// its position in `members` (-1 outside); both null means every device of the topology.
struct SearchScope {
  // The devices searched (one server's) and each device's position among them; a scope with
  // no slot_of searches the whole topology.
  std::span<const int> members;
  const std::vector<int>* slot_of = nullptr;
  bool allow_network = false;  // may cross NICs and network switches (general fallback)
};

// The class of one hop out of device `from` over `link` into `to` (NCCL's per-hop rules: PCIe
// between two switches is PXB, PCIe touching a CPU is PHB, the CPU interconnect is SYS).
PathClass hop_class(const Link& link, const Device& from, const Device& to);

// Exact lexicographic optimum over (class, -bandwidth, hops), computed in three passes: minimax
// class, then widest path among hops of at most that class, then BFS among hops that are also at
// least that wide. A path may pass through one GPU entering and leaving by NVLink (NVB), or, when
// `dst` is a NIC, leaving by PCIe (PXN). Returns cls == DIS with no hops when unreachable.
Path best_path(const Topology& topology, int src, int dst, const SearchScope& scope);

// best_path's first pass from `src` to every device of `scope` at once, with the moves allowed
// towards a NIC (PXN relays): the class before best_path's final PHB -> P2C relabelling, indexed
// like scope (local index; DIS when unreachable). Lets NIC selection search full paths only to
// the few NICs that can win, instead of to every NIC of a 20,000-NIC server.
std::vector<PathClass> min_classes_to_nics(const Topology& topology, int src,
                                           const SearchScope& scope);

}  // namespace topoplan::route
