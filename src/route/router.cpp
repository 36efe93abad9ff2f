// Router: cached NCCL-rule paths inside servers, structural routes between servers.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "route/fabric_index.hpp"
#include "route/path_search.hpp"
#include "route/server_index.hpp"
#include "topoplan/hardware.hpp"

namespace topoplan {

namespace {
std::uint64_t pair_key(int a, int b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
         static_cast<std::uint32_t>(b);
}
// a then b (a.dst == b.src) as one path of class `cls`: bottleneck and latency of both pieces.
Path joined(const Path& a, const Path& b, PathClass cls) {
  Path r{a.src, b.dst, a.hops, cls, std::min(a.bw_GBps, b.bw_GBps), a.latency_us + b.latency_us};
  r.hops.insert(r.hops.end(), b.hops.begin(), b.hops.end());
  return r;
}
// Better by NCCL's order: lower class, then higher bandwidth.
bool closer(const Path& x, const Path& y) {
  return x.cls != y.cls ? x.cls < y.cls : x.bw_GBps > y.bw_GBps;
}
}  // namespace

struct Router::Impl {
  explicit Impl(const Topology& t)
      : Impl(t, std::make_shared<const route::ServerIndex>(t),
             std::make_shared<const route::FabricIndex>(t)) {}
  // Router::worker(): the indexes shared, every cache below empty.
  Impl(const Topology& t, std::shared_ptr<const route::ServerIndex> s,
       std::shared_ptr<const route::FabricIndex> f)
      : topo(t),
        shared_servers(std::move(s)),
        shared_fabric(std::move(f)),
        servers(*shared_servers),
        fabric(*shared_fabric) {}

  const Topology& topo;
  std::shared_ptr<const route::ServerIndex> shared_servers;
  std::shared_ptr<const route::FabricIndex> shared_fabric;
  const route::ServerIndex& servers;
  const route::FabricIndex& fabric;
  // Paths inside a template server, by (server, src, dst); references stay valid (node map).
  mutable std::unordered_map<std::uint64_t, Path> template_paths;
  mutable std::unordered_map<std::uint64_t, Path> paths;  // every path handed out, by (src, dst)
  mutable std::unordered_map<std::uint64_t, int> template_nic;  // (server, gpu) → nic, template
  mutable std::unordered_map<int, bool> amd_cpu;                // node → amd_cpu_server()
  // amd_cpu_server()'s visited marks, one per device, cleared after each search: a fresh
  // device-sized vector per node cost 12,500 x 375 KB of memset at 100,000 GPUs.
  mutable std::vector<char> amd_seen;

  const Path& in_template(int src, int dst) const {  // src, dst inside one template server
    auto [it, fresh] = template_paths.try_emplace(pair_key(src, dst));
    if (fresh) {
      if (auto p = via_one_switch(src, dst)) {
        it->second = std::move(*p);
      } else {
        const int g = servers.group(src);
        route::SearchScope scope{servers.members(g), &servers.slot_of(), false};
        it->second = route::best_path(topo, src, dst, scope);
      }
    }
    return it->second;
  }

  // A per-device cache's entry for `device`, the cache sized on first use; -2 = not looked at.
  int& cache_entry(std::vector<int>& cache, int device) const {
    if (cache.empty()) cache.assign(topo.device_count(), -2);
    return cache[static_cast<std::size_t>(device)];
  }

  // The directed link from `gpu` to its NVSwitch when that one link is all its NVLink (HGX,
  // NVL72), else -1. Cached per device.
  mutable std::vector<DirLink> switch_link;
  DirLink sole_switch_link(int gpu) const {
    DirLink& cached = cache_entry(switch_link, gpu);
    if (cached != -2) return cached;
    cached = -1;
    if (topo.device(gpu).type != DeviceType::Gpu) return cached;
    DirLink out = -1;
    for (const Adjacent& a : topo.neighbours(gpu)) {
      if (topo.link(link_of(a.out)).kind != LinkKind::NVLink) continue;
      if (out >= 0 || topo.device(a.device).type != DeviceType::NvSwitch) return cached;
      out = a.out;
    }
    return cached = out;
  }

  // The one NVSwitch among a device's neighbours (-1: none, or several), whatever its other
  // links: comm's direct GPU -> switch -> GPU hop. Cached per device (-2 = not looked at): the
  // collective engine asks twice per flow, 3.3 million flows for an all-reduce over 100,000
  // GPUs, and scanning neighbours' device records was an eighth of that (issue 32).
  mutable std::vector<int> nvswitch_of;
  int sole_nvswitch(int device) const {
    int& cached = cache_entry(nvswitch_of, device);
    if (cached != -2) return cached;
    int sw = -1;
    for (const Adjacent& a : topo.neighbours(device)) {
      if (topo.device(a.device).type != DeviceType::NvSwitch) continue;
      if (sw >= 0 && sw != a.device) return cached = -1;
      sw = a.device;
    }
    return cached = sw;
  }

  // GPU -> NVSwitch -> GPU when both GPUs' only NVLink goes to the same switch: then every
  // NVL-class path starts and ends with those two links, so this one is best_path's answer
  // (class NVL, their narrower bandwidth, two hops) without a search that is linear in the
  // server's size (a 20,000-GPU NVLink domain made every pair cost 100,000 states).
  std::optional<Path> via_one_switch(int src, int dst) const {
    if (src == dst) return std::nullopt;
    const DirLink a = sole_switch_link(src), b = sole_switch_link(dst);
    if (a < 0 || b < 0 || topo.to_device(a) != topo.to_device(b)) return std::nullopt;
    const DirLink in = b ^ 1;  // the same link, switch -> dst
    return Path{src,
                dst,
                {a, in},
                PathClass::NVL,
                std::min(topo.bw_GBps(a), topo.bw_GBps(in)),
                topo.properties(link_of(a)).latency_us + topo.properties(link_of(in)).latency_us};
  }

  // Path inside one server, computed on its template and translated.
  Path intra(int src, int dst) const {
    const int g = servers.group(src);
    const int tg = servers.template_of(g);
    const Path& p = in_template(servers.same_slot(src, tg), servers.same_slot(dst, tg));
    if (p.cls == PathClass::PXN) return servers.translate(pxn_in_template(p, tg), tg, g);
    return servers.translate(p, tg, g);
  }

  // The GPU whose own NIC is `nic` (template server tg), -1 when none. NCCL's PXN relays a GPU's
  // traffic for NIC n through n's local GPU (ncclTopoGetLocalGpu, used by the PXN step of
  // ncclTopoComputePaths), not through whichever NVLink peer the search meets first: with two
  // GPUs and two NICs per PCIe switch, the first-found relay would carry both NICs' traffic.
  int owner_of_nic(int nic, int tg) const {
    for (int d : servers.members(tg))
      if (topo.device(d).type == DeviceType::Gpu && nic_of_gpu(d) == nic) return d;
    return -1;
  }

  // A PXN path (GPU → NVLink → relay GPU → PCIe → NIC) rerouted through the NIC's own GPU, when
  // that GPU is reachable by NVLink and its own path to the NIC is PCIe-only.
  Path pxn_via_owner(const Path& p, int tg) const {
    const int owner = owner_of_nic(p.dst, tg);
    if (owner < 0 || owner == p.src) return p;
    const Path& a = in_template(p.src, owner);
    const Path& b = in_template(owner, p.dst);
    if (a.cls != PathClass::NVL || b.cls > PathClass::PXB) return p;
    return joined(a, b, PathClass::PXN);
  }

  // pxn_via_owner of a template path, cached by its (src, dst): every structural route that
  // leaves a GPU by PXN built (and allocated) the same relayed path again.
  mutable std::unordered_map<std::uint64_t, Path> template_pxn;
  const Path& pxn_in_template(const Path& p, int tg) const {
    auto [it, fresh] = template_pxn.try_emplace(pair_key(p.src, p.dst));
    if (fresh) it->second = pxn_via_owner(p, tg);
    return it->second;
  }

  // Per device (-2: not looked at): send/recv pairs ask for both ends' NICs, 2.7 million pairs
  // in a 100,000-GPU plan search, and the template lookup behind it was a twentieth of that.
  mutable std::vector<int> nic_of;
  int nic_of_gpu(int gpu) const {
    int& cached = cache_entry(nic_of, gpu);
    if (cached != -2) return cached;
    const int g = servers.group(gpu);
    if (g < 0) return cached = -1;
    const int tg = servers.template_of(g);
    const int tgpu = servers.same_slot(gpu, tg);
    auto [it, fresh] = template_nic.try_emplace(pair_key(tg, tgpu), -1);
    if (fresh) it->second = pick_nic(tgpu, tg, -1);
    return cached = it->second < 0 ? -1 : servers.same_slot(it->second, g);
  }

  // The NICs of server `g` (of `plane`, when >= 0) that can be closest to `gpu`, by server slot.
  // A full path search per NIC is linear in the server's size, so picking among 20,000 NICs
  // was quadratic; one multi-target first pass gives every NIC's class, and only NICs at the
  // best class (or at PHB, which best_path may relabel P2C) go on to the full search.
  std::vector<char> nic_candidates(int gpu, int g, int plane) const {
    const std::span<const int> members = servers.members(g);
    route::SearchScope scope{members, &servers.slot_of(), false};
    const std::vector<PathClass> cls = route::min_classes_to_nics(topo, gpu, scope);
    auto eligible = [&](std::size_t i) {
      const int d = members[i];
      return topo.device(d).type == DeviceType::Nic && (plane < 0 || fabric.plane(d) == plane) &&
             cls[i] != PathClass::DIS;
    };
    PathClass lowest = PathClass::DIS;
    for (std::size_t i = 0; i < members.size(); ++i)
      if (eligible(i)) lowest = std::min(lowest, cls[i]);
    std::vector<char> out(members.size(), 0);
    for (std::size_t i = 0; i < members.size(); ++i)
      out[i] = eligible(i) &&
               (cls[i] == lowest || (cls[i] == PathClass::PHB && lowest >= PathClass::P2C));
    return out;
  }

  // Closest NIC of server `g` to `gpu` (optionally only NICs of fabric plane `plane`). Ties go
  // to the NIC with the GPU's local index, else the (local index mod ties)-th: the same rail on
  // every server.
  int pick_nic(int gpu, int g, int plane) const {
    if (auto local = pick_local_nic(gpu, g, plane)) return *local;
    std::vector<std::pair<const Path*, int>> best;
    const std::vector<char> may_win = nic_candidates(gpu, g, plane);
    for (int d : servers.members(g)) {
      if (!may_win[static_cast<std::size_t>(servers.slot(d))]) continue;
      keep_closest(best, in_template(gpu, d), d);
    }
    return rail_choice(best, gpu);
  }

  // Keeps in `best` the NICs whose path is closest by NCCL's order (ties all kept).
  static void keep_closest(std::vector<std::pair<const Path*, int>>& best, const Path& p, int d) {
    if (p.cls == PathClass::DIS) return;
    if (best.empty() || closer(p, *best.front().first)) best.clear();
    if (best.empty() || !closer(*best.front().first, p)) best.push_back({&p, d});
  }

  // Among equally close NICs: the GPU's own rail, else the (local index mod ties)-th.
  int rail_choice(std::vector<std::pair<const Path*, int>>& best, int gpu) const {
    if (best.empty()) return -1;
    std::sort(best.begin(), best.end(), [&](const auto& x, const auto& y) {
      return topo.device(x.second).local_index < topo.device(y.second).local_index;
    });
    const int li = std::max(0, topo.device(gpu).local_index);
    for (const auto& [p, d] : best)
      if (topo.device(d).local_index == li) return d;  // GPU i and NIC i: the same rail
    return best[static_cast<std::size_t>(li) % best.size()].second;
  }

  // The closest NIC when one is reachable without NVLink at a class better than PXN: every path
  // towards a NIC that uses NVLink relays through a GPU (class >= PXN) as long as NVSwitches
  // carry only NVLink, so the search can stay in the GPU's PCIe/C2C/CPU neighbourhood (a few
  // devices) instead of the whole server: NIC choice for every GPU of a 20,000-GPU NVLink
  // domain was quadratic. The paths found are exact and cached. nullopt: search the server.
  std::optional<int> pick_local_nic(int gpu, int g, int plane) const {
    if (!nvswitches_pure()) return std::nullopt;
    if (local_slot.empty()) local_slot.assign(topo.device_count(), -1);
    std::vector<int> comp{gpu};  // the non-NVLink, non-network component of gpu in server g
    local_slot[static_cast<std::size_t>(gpu)] = 0;
    for (std::size_t i = 0; i < comp.size(); ++i)
      for (const Adjacent& a : topo.neighbours(comp[i])) {
        const LinkKind k = topo.link(link_of(a.out)).kind;
        if (k == LinkKind::NVLink || k == LinkKind::Network || servers.group(a.device) != g ||
            local_slot[static_cast<std::size_t>(a.device)] >= 0)
          continue;
        local_slot[static_cast<std::size_t>(a.device)] = static_cast<int>(comp.size());
        comp.push_back(a.device);
      }
    std::vector<std::pair<Path, int>> found;
    const route::SearchScope scope{comp, &local_slot, false};
    for (int d : comp)
      if (topo.device(d).type == DeviceType::Nic && (plane < 0 || fabric.plane(d) == plane))
        found.emplace_back(route::best_path(topo, gpu, d, scope), d);
    for (int d : comp) local_slot[static_cast<std::size_t>(d)] = -1;
    std::vector<std::pair<const Path*, int>> best;
    for (const auto& [p, d] : found) keep_closest(best, p, d);
    if (best.empty() || best.front().first->cls >= PathClass::PXN) return std::nullopt;
    // Only paths better than PXN are the server-wide answer; a local PHB path to another rail's
    // NIC may lose to a PXN relay, so it is not cached.
    for (const auto& [p, d] : found)
      if (p.cls < PathClass::PXN) template_paths.try_emplace(pair_key(gpu, d), p);
    return rail_choice(best, gpu);
  }

  // Whether every NVSwitch's links are NVLink (a switch with a PCIe uplink could reach a NIC
  // without a relay GPU, and pick_local_nic's argument would not hold).
  mutable int pure_switches = -1;  // -1: not looked at yet
  mutable std::vector<int> local_slot;
  bool nvswitches_pure() const {
    if (pure_switches < 0) {
      pure_switches = 1;
      for (std::size_t l = 0; l < topo.link_count(); ++l) {
        const Link& link = topo.link(static_cast<int>(l));
        const bool touches = topo.device(link.a).type == DeviceType::NvSwitch ||
                             topo.device(link.b).type == DeviceType::NvSwitch;
        if (touches && link.kind != LinkKind::NVLink) pure_switches = 0;
      }
    }
    return pure_switches == 1;
  }

  // src and dst in different servers (or an intra-server pair without P2P): GPU → NIC → fabric
  // → NIC → GPU. The source NIC must share the destination NIC's plane (rail); when the GPU's
  // own NIC does not, it relays to a NIC that does, as NCCL's PXN does.
  std::optional<Path> structural(int src, int dst) const {
    Path p;
    if (!structural_into(src, dst, p)) return std::nullopt;
    return p;
  }

  // The intra-server piece src → dst (both in group g) appended to `out`; false when there is
  // no path inside the server.
  bool append_intra(int src, int dst, Path& out) const {
    const int g = servers.group(src), tg = servers.template_of(g);
    const Path& t = in_template(servers.same_slot(src, tg), servers.same_slot(dst, tg));
    if (t.cls == PathClass::DIS) return false;
    auto add = [&](const Path& piece) {
      servers.append_translated(piece, tg, g, out.hops);
      out.bw_GBps = std::min(out.bw_GBps, piece.bw_GBps);
      out.latency_us += piece.latency_us;
      out.cls = std::max(out.cls, piece.cls);
    };
    if (t.cls == PathClass::PXN)
      add(pxn_in_template(t, tg));
    else
      add(t);
    return true;
  }

  // An empty path src → dst that the pieces appended to it narrow (hop buffer kept).
  static void reset(Path& p, int src, int dst) {
    p.src = src;
    p.dst = dst;
    p.hops.clear();
    p.cls = PathClass::LOC;
    p.bw_GBps = 1e300;
    p.latency_us = 0;
  }

  // structural() written into `p` (its hop buffer reused); false when there is no such route.
  // The NICs the structural route src → dst leaves and enters the fabric by: the destination's
  // own, and the source's own or, in another plane, the NIC of its server in that plane (PXN).
  bool route_nics(int src, int dst, int& ns, int& nd) const {
    if (!fabric.usable()) return false;
    const bool src_nic = topo.device(src).type == DeviceType::Nic;
    const bool dst_nic = topo.device(dst).type == DeviceType::Nic;
    nd = dst_nic ? dst : nic_of_gpu(dst);
    if (nd < 0 || fabric.plane(nd) < 0) return false;
    ns = src_nic ? src : nic_of_gpu(src);
    if (ns < 0) return false;
    if (fabric.plane(ns) != fabric.plane(nd)) {
      if (src_nic) return false;
      const int g = servers.group(src);
      const int tg = servers.template_of(g);
      const int t = plane_nic(servers.same_slot(src, tg), tg, fabric.plane(nd));
      if (t < 0) return false;
      ns = servers.same_slot(t, g);
      if (fabric.plane(ns) != fabric.plane(nd)) return false;
    }
    return true;
  }

  bool structural_into(int src, int dst, Path& p) const {
    int ns = -1, nd = -1;
    if (!route_nics(src, dst, ns, nd)) return false;
    reset(p, src, dst);
    if (src != ns && !append_intra(src, ns, p)) return false;
    const std::size_t first = p.hops.size();
    if (!fabric.route(ns, nd, route::mix_hash(pair_key(src, dst)), p.hops)) return false;
    for (std::size_t i = first; i < p.hops.size(); ++i) {
      p.bw_GBps = std::min(p.bw_GBps, topo.bw_GBps(p.hops[i]));
      p.latency_us += topo.properties(link_of(p.hops[i])).latency_us;
    }
    if (dst != nd && !append_intra(nd, dst, p)) return false;
    p.cls = PathClass::NET;
    return true;
  }

  // pick_nic restricted to `plane`, cached per (template GPU, plane): every flow that crosses
  // rails asks it (PXN), and the search is linear in the server's size.
  mutable std::map<std::pair<int, int>, int> plane_nics;
  int plane_nic(int tgpu, int tg, int plane) const {
    auto [it, fresh] = plane_nics.try_emplace({tgpu, plane}, -1);
    if (fresh) it->second = pick_nic(tgpu, tg, plane);
    return it->second;
  }

  // transient_path(): the cached path unless it can be built in `scratch` without a search.
  mutable Path scratch;
  const Path* transient(int src, int dst) const {
    const int gs = servers.group(src), gd = servers.group(dst);
    if (src == dst || gs < 0 || gd < 0) return nullptr;
    if (gs == gd) {
      if (!p2p_between(src, dst)) return nullptr;
      reset(scratch, src, dst);
      if (!append_intra(src, dst, scratch)) return nullptr;
      return &scratch;
    }
    return structural_into(src, dst, scratch) ? &scratch : nullptr;
  }

  // Whether the driver lets src and dst talk peer-to-peer (both GPUs: their catalog `p2p`).
  bool p2p_between(int src, int dst) const {
    const Device &a = topo.device(src), &b = topo.device(dst);
    if (a.type != DeviceType::Gpu || b.type != DeviceType::Gpu) return true;
    return topo.gpu_spec(src).p2p && topo.gpu_spec(dst).p2p;
  }

  // GPU → host memory → GPU, NCCL's SHM transport when P2P is off (GeForce): the sender writes
  // into pinned memory of its own CPU (the closest one) and the receiver reads it from there.
  std::optional<Path> via_host(int src, int dst) const {
    const int g = servers.group(src), tg = servers.template_of(g);
    const int tsrc = servers.same_slot(src, tg), tdst = servers.same_slot(dst, tg);
    const Path* best = nullptr;
    int cpu = -1;
    for (int d : servers.members(tg)) {
      if (topo.device(d).type != DeviceType::Cpu) continue;
      const Path& p = in_template(tsrc, d);
      if (p.cls != PathClass::DIS && (!best || closer(p, *best))) best = &p, cpu = d;
    }
    if (!best) return std::nullopt;
    const Path& b = in_template(cpu, tdst);
    if (b.cls == PathClass::DIS) return std::nullopt;
    return servers.translate(joined(*best, b, std::max({best->cls, b.cls, PathClass::PHB})), tg, g);
  }

  Path compute(int src, int dst) const {
    if (src == dst) return Path{src, dst, {}, PathClass::LOC, 0, 0};
    const int gs = servers.group(src), gd = servers.group(dst);
    if (gs >= 0 && gs == gd && !p2p_between(src, dst)) {
      if (auto p = via_host(src, dst)) return *p;
    }
    if (gs >= 0 && gs == gd) {
      Path p = intra(src, dst);
      if (p.cls != PathClass::DIS) return p;  // the network only when there is no P2P path
    }
    if (gs >= 0 && gd >= 0) {
      if (auto p = structural(src, dst)) return *p;
    }
    return route::best_path(topo, src, dst, route::SearchScope{{}, nullptr, true});
  }
};

Router::Router(const Topology& topology) : impl_(std::make_unique<Impl>(topology)) {}

Router::Router(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Router Router::worker() const {
  return Router(std::make_unique<Impl>(impl_->topo, impl_->shared_servers, impl_->shared_fabric));
}
Router::~Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;

const Topology& Router::topology() const {
  return impl_->topo;
}

int Router::sole_nvswitch(int device) const {
  return impl_->sole_nvswitch(device);
}

const Path& Router::path(int src, int dst) const {
  auto [it, fresh] = impl_->paths.try_emplace(pair_key(src, dst));
  if (fresh) it->second = impl_->compute(src, dst);
  return it->second;
}

const Path& Router::transient_path(int src, int dst) const {
  if (const Path* p = impl_->transient(src, dst)) return *p;
  return path(src, dst);
}

int Router::nic_of_gpu(int gpu) const {
  return impl_->nic_of_gpu(gpu);
}

bool Router::servers_alike() const {
  const auto& s = impl_->servers;
  int first = -1;
  for (int d : impl_->topo.gpus()) {
    const int g = s.group(d);
    if (g < 0) return false;
    const int t = s.template_of(g);
    if (first < 0) first = t;
    if (t != first) return false;
  }
  return true;
}

bool Router::amd_cpu_server(int gpu) const {
  const Topology& t = impl_->topo;
  const int node = t.device(gpu).node;
  auto [it, fresh] = impl_->amd_cpu.try_emplace(node, false);
  if (!fresh) return it->second;
  std::vector<char>& seen = impl_->amd_seen;
  if (seen.size() < t.device_count()) seen.assign(t.device_count(), 0);
  std::vector<int> stack{gpu}, marked{gpu};  // marked: the entries of `seen` to clear
  seen[static_cast<std::size_t>(gpu)] = 1;
  bool amd = false;
  while (!stack.empty()) {
    const int d = stack.back();
    stack.pop_back();
    const Device& dev = t.device(d);
    if (dev.type == DeviceType::Cpu && dev.model.str().find("AMD") != std::string::npos) {
      amd = true;
      break;
    }
    for (const Adjacent& a : t.neighbours(d)) {
      if (t.link(link_of(a.out)).kind == LinkKind::Network || t.device(a.device).node != node)
        continue;
      if (!seen[static_cast<std::size_t>(a.device)]) {
        seen[static_cast<std::size_t>(a.device)] = 1;
        marked.push_back(a.device);
        stack.push_back(a.device);
      }
    }
  }
  for (int d : marked) seen[static_cast<std::size_t>(d)] = 0;
  return it->second = amd;
}

int Router::fabric_climb(int src, int dst) const {
  const int gs = impl_->servers.group(src), gd = impl_->servers.group(dst);
  if (!impl_->fabric.uniform() || gs < 0 || gd < 0 || gs == gd) return -1;
  int ns = -1, nd = -1;
  if (!impl_->route_nics(src, dst, ns, nd)) return -1;
  return impl_->fabric.climb(ns, nd);
}

bool Router::structured_fabric() const {
  return impl_->fabric.usable();
}

int Router::server_slot(int device) const {
  return impl_->servers.group(device) < 0 ? -1 : impl_->servers.slot(device);
}

double Router::nvlink_domain_GBps(int gpu) const {
  double sum = 0;
  for (const Adjacent& a : impl_->topo.neighbours(gpu))
    if (impl_->topo.link(link_of(a.out)).kind == LinkKind::NVLink)
      sum += impl_->topo.bw_GBps(a.out);
  return sum;
}

double Router::nic_GBps(int nic) const {
  const double port = impl_->fabric.nic_port_GBps(nic);
  if (port > 0) return port;
  const NicSpec* spec = impl_->topo.catalog().find_nic(impl_->topo.device(nic).model);
  return spec ? spec->GBps : 0;
}

double Router::network_GBps(int gpu) const {
  const int nic = nic_of_gpu(gpu);
  return nic < 0 ? 0 : std::min(nic_GBps(nic), path(gpu, nic).bw_GBps);
}

}  // namespace topoplan
