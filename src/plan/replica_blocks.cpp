// Translation blocks of a regular cluster (replica_blocks.hpp).
//
// Why a block prices like every other block (the proof the fast path rests on; the tests in
// tests/plan/plan_fast_path_test.cpp hold it against the general engine):
// 1. Every flow of a TP/EP group or pipeline chain joins GPUs of the group, or a GPU and its
//    own NVSwitch or leaf (NVLS, CollNet). With dp outermost (tp-pp-dp, pp-tp-dp) a block of b
//    whole replicas holds every group it prices.
// 2. A path inside one server stays in that server (the router searches inside the server).
//    A path between servers is GPU → NIC → fabric → NIC → GPU with both NICs in one plane.
//    When, inside every block, each plane's NICs all hang off one leaf, the fabric part is
//    NIC → leaf → NIC: two links, each with a NIC of the block at one end, and no ECMP choice.
//    So every link a block's flows load has an end in one of its servers: blocks load disjoint
//    links, and a group's load is the sum over its own block's flows alone.
// 3. Block k is block 0 moved by k·(servers per block) servers: GPU p of the order sits in
//    server p / G at the slot of GPU p mod G, servers are wired alike (Router::servers_alike),
//    and the leaf pattern (one leaf per plane) is the same, so paths translate hop for hop with
//    equal classes, bandwidths and latencies: every GroupInfo and GroupLoad of block k equals
//    block 0's, hence every price. The slowest group over all blocks is the slowest of block 0
//    (block 0's groups come first in group order, so also the same first maximum).
// The same argument holds for one group set alone: the TP set of tp-pp-dp is runs of tp
// consecutive GPUs, so tiles of lcm(tp, G) GPUs hold whole TP groups and whole servers, every
// flow of a TP group stays in its tile's servers and their NIC-leaf links (step 1 with "tile"
// for "block"), and steps 2-3 apply to tiles as they do to blocks. The TP price is then the
// first tile's, whatever pp and dp are: it is shared by every strategy with that tp.
// Anything that breaks a premise (irregular files, a straddling block, the strided dp-pp-tp
// order, a block whose flows would reach a spine) gets no reduction: the general path.
#include "plan/replica_blocks.hpp"

#include <algorithm>
#include <numeric>

namespace topoplan::plan_detail {

namespace {

int find(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x)
    x = parent[static_cast<std::size_t>(x)] =
        parent[static_cast<std::size_t>(parent[static_cast<std::size_t>(x)])];
  return x;
}

bool is_switch(const Topology& t, int d) {
  return t.device(d).type == DeviceType::NetSwitch;
}

// Premises on devices and links: every device is in a server or is a network switch; a link
// joins two devices of one server, a NIC and a switch, or two switches.
bool wiring_regular(const Topology& t) {
  for (std::size_t d = 0; d < t.device_count(); ++d)
    if (t.device(static_cast<int>(d)).node < 0 && !is_switch(t, static_cast<int>(d))) return false;
  for (std::size_t l = 0; l < t.link_count(); ++l) {
    const Link& k = t.link(static_cast<int>(l));
    const Device &a = t.device(k.a), &b = t.device(k.b);
    if (a.node >= 0 && b.node >= 0 && a.node != b.node) return false;
    const bool sa = is_switch(t, k.a), sb = is_switch(t, k.b);
    if (sa != sb && (sa ? b : a).type != DeviceType::Nic) return false;
  }
  return true;
}

}  // namespace

ReplicaBlocks::ReplicaBlocks(const Router& router) : router_(&router) {
  const Topology& t = router.topology();
  const auto& gpus = t.gpus();
  if (gpus.empty() || !router.servers_alike() || !router.structured_fabric() || !wiring_regular(t))
    return;
  const int node0 = t.device(gpus.front()).node;
  for (int g : gpus)
    if (t.device(g).node == node0) ++gpus_per_server_;
  // GPU p of the order in server p / G, at the slot of GPU p mod G.
  for (std::size_t p = 0; p < gpus.size(); ++p) {
    const std::size_t G = static_cast<std::size_t>(gpus_per_server_);
    if (t.device(gpus[p]).node != node0 + static_cast<int>(p / G) ||
        router.server_slot(gpus[p]) != router.server_slot(gpus[p % G]))
      return;
  }
  for (std::size_t p = 0; p < static_cast<std::size_t>(gpus_per_server_); ++p)
    if (router.nic_of_gpu(gpus[p]) < 0) return;  // no NIC: routes would be a general search
  // Planes: switches joined by switch-to-switch links.
  std::vector<int> parent(t.device_count());
  std::iota(parent.begin(), parent.end(), 0);
  for (std::size_t l = 0; l < t.link_count(); ++l) {
    const Link& k = t.link(static_cast<int>(l));
    if (is_switch(t, k.a) && is_switch(t, k.b)) parent[find(parent, k.a)] = find(parent, k.b);
  }
  const int servers = static_cast<int>(gpus.size()) / gpus_per_server_;
  nic_leaves_.resize(static_cast<std::size_t>(servers));
  for (std::size_t d = 0; d < t.device_count(); ++d) {
    const Device& dev = t.device(static_cast<int>(d));
    if (dev.type != DeviceType::Nic) continue;
    const int s = dev.node - node0;
    if (s < 0 || s >= servers) return;
    int leaf = -1;
    for (const Adjacent& a : t.neighbours(static_cast<int>(d))) {
      if (!is_switch(t, a.device)) continue;
      if ((leaf >= 0 && leaf != a.device) || t.device(a.device).tier != 1) return;
      leaf = a.device;
    }
    if (leaf < 0) return;  // a NIC off the fabric: its routes would be a general search
    nic_leaves_[static_cast<std::size_t>(s)].emplace_back(find(parent, leaf), leaf);
  }
  regular_ = true;
}

bool ReplicaBlocks::block_alike(int k, int block_gpus) const {
  const int per = block_gpus / gpus_per_server_;
  std::vector<std::pair<int, int>> leaf_of_plane;  // a block touches a handful of planes
  for (int s = k * per; s < (k + 1) * per; ++s)
    for (const std::pair<int, int>& nic : nic_leaves_[static_cast<std::size_t>(s)]) {
      const int plane = nic.first, leaf = nic.second;  // named: clang 14 cannot capture bindings
      auto it = std::find_if(leaf_of_plane.begin(), leaf_of_plane.end(),
                             [&](const auto& x) { return x.first == plane; });
      if (it == leaf_of_plane.end())
        leaf_of_plane.emplace_back(plane, leaf);
      else if (it->second != leaf)
        return false;  // two leaves of one plane: traffic between them goes up a spine
    }
  return true;
}

int ReplicaBlocks::alike_prefix(int block_gpus) const {
  auto [it, fresh] = prefix_.try_emplace(block_gpus, 0);
  if (!fresh) return it->second;
  const int blocks = static_cast<int>(router_->topology().gpus().size()) / block_gpus;
  int k = 0;
  while (k < blocks && block_alike(k, block_gpus)) ++k;
  return it->second = k * block_gpus;
}

int ReplicaBlocks::replicas(const Strategy& s, PlacementOrder order) const {
  if (!regular_ || (order != PlacementOrder::TpPpDp && order != PlacementOrder::PpTpDp))
    return s.dp;
  const int replica = s.tp * s.pp;
  const int block_gpus = std::lcm(replica, gpus_per_server_);
  const int b = block_gpus / replica;
  if (b >= s.dp || s.dp % b != 0) return s.dp;
  return alike_prefix(block_gpus) >= s.gpus() ? b : s.dp;
}

int ReplicaBlocks::tp_tile_groups(const Strategy& s, PlacementOrder order) const {
  if (!regular_ || order != PlacementOrder::TpPpDp) return 0;
  const int tile = std::lcm(s.tp, gpus_per_server_);
  if (s.gpus() % tile != 0 || tile >= s.gpus()) return 0;
  return alike_prefix(tile) >= s.gpus() ? tile / s.tp : 0;
}

}  // namespace topoplan::plan_detail
