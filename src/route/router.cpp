// Router: cached NCCL-rule paths inside servers, structural routes between servers.
#include <algorithm>
#include <cstdint>
#include <unordered_map>

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
  explicit Impl(const Topology& t) : topo(t), servers(t), fabric(t) {}

  const Topology& topo;
  route::ServerIndex servers;
  route::FabricIndex fabric;
  // Paths inside a template server, by (server, src, dst); references stay valid (node map).
  mutable std::unordered_map<std::uint64_t, Path> template_paths;
  mutable std::unordered_map<std::uint64_t, Path> paths;  // every path handed out, by (src, dst)
  mutable std::unordered_map<std::uint64_t, int> template_nic;  // (server, gpu) → nic, template

  const Path& in_template(int src, int dst) const {  // src, dst inside one template server
    auto [it, fresh] = template_paths.try_emplace(pair_key(src, dst));
    if (fresh) {
      const int g = servers.group(src);
      route::SearchScope scope{&servers.members(g), &servers.slot_of(), false};
      it->second = route::best_path(topo, src, dst, scope);
    }
    return it->second;
  }

  // Path inside one server, computed on its template and translated.
  Path intra(int src, int dst) const {
    const int g = servers.group(src);
    const int tg = servers.template_of(g);
    const Path& p = in_template(servers.same_slot(src, tg), servers.same_slot(dst, tg));
    if (p.cls == PathClass::PXN) return servers.translate(pxn_via_owner(p, tg), tg, g);
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

  int nic_of_gpu(int gpu) const {
    const int g = servers.group(gpu);
    if (g < 0) return -1;
    const int tg = servers.template_of(g);
    const int tgpu = servers.same_slot(gpu, tg);
    auto [it, fresh] = template_nic.try_emplace(pair_key(tg, tgpu), -1);
    if (fresh) it->second = pick_nic(tgpu, tg, -1);
    return it->second < 0 ? -1 : servers.same_slot(it->second, g);
  }

  // Closest NIC of server `g` to `gpu` (optionally only NICs of fabric plane `plane`). Ties go
  // to the NIC with the GPU's local index, else the (local index mod ties)-th: the same rail on
  // every server.
  int pick_nic(int gpu, int g, int plane) const {
    std::vector<std::pair<const Path*, int>> best;
    for (int d : servers.members(g)) {
      if (topo.device(d).type != DeviceType::Nic) continue;
      if (plane >= 0 && fabric.plane(d) != plane) continue;
      const Path& p = in_template(gpu, d);
      if (p.cls == PathClass::DIS) continue;
      if (best.empty() || closer(p, *best.front().first)) best.clear();
      if (best.empty() || !closer(*best.front().first, p)) best.push_back({&p, d});
    }
    if (best.empty()) return -1;
    std::sort(best.begin(), best.end(), [&](const auto& x, const auto& y) {
      return topo.device(x.second).local_index < topo.device(y.second).local_index;
    });
    const int li = std::max(0, topo.device(gpu).local_index);
    for (const auto& [p, d] : best)
      if (topo.device(d).local_index == li) return d;  // GPU i and NIC i: the same rail
    return best[static_cast<std::size_t>(li) % best.size()].second;
  }

  // src and dst in different servers (or an intra-server pair without P2P): GPU → NIC → fabric
  // → NIC → GPU. The source NIC must share the destination NIC's plane (rail); when the GPU's
  // own NIC does not, it relays to a NIC that does, as NCCL's PXN does.
  std::optional<Path> structural(int src, int dst) const {
    if (!fabric.usable()) return std::nullopt;
    const bool src_nic = topo.device(src).type == DeviceType::Nic;
    const bool dst_nic = topo.device(dst).type == DeviceType::Nic;
    const int nd = dst_nic ? dst : nic_of_gpu(dst);
    if (nd < 0 || fabric.plane(nd) < 0) return std::nullopt;
    int ns = src_nic ? src : nic_of_gpu(src);
    if (ns < 0) return std::nullopt;
    if (fabric.plane(ns) != fabric.plane(nd)) {
      if (src_nic) return std::nullopt;
      const int g = servers.group(src);
      const int tg = servers.template_of(g);
      const int t = pick_nic(servers.same_slot(src, tg), tg, fabric.plane(nd));
      if (t < 0) return std::nullopt;
      ns = servers.same_slot(t, g);
      if (fabric.plane(ns) != fabric.plane(nd)) return std::nullopt;
    }
    auto mid = fabric.route(ns, nd, route::mix_hash(pair_key(src, dst)));
    if (!mid) return std::nullopt;
    Path p{src, dst, {}, PathClass::NET, 1e300, 0};
    auto append = [&](const Path& piece) {
      p.hops.insert(p.hops.end(), piece.hops.begin(), piece.hops.end());
      p.bw_GBps = std::min(p.bw_GBps, piece.bw_GBps);
      p.latency_us += piece.latency_us;
    };
    if (src != ns) {
      Path a = intra(src, ns);
      if (a.cls == PathClass::DIS) return std::nullopt;
      append(a);
    }
    for (DirLink d : *mid) {
      p.hops.push_back(d);
      p.bw_GBps = std::min(p.bw_GBps, topo.bw_GBps(d));
      p.latency_us += topo.link(link_of(d)).latency_us;
    }
    if (dst != nd) {
      Path b = intra(nd, dst);
      if (b.cls == PathClass::DIS) return std::nullopt;
      append(b);
    }
    return p;
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
    return route::best_path(topo, src, dst, route::SearchScope{nullptr, nullptr, true});
  }
};

Router::Router(const Topology& topology) : impl_(std::make_unique<Impl>(topology)) {}
Router::~Router() = default;
Router::Router(Router&&) noexcept = default;
Router& Router::operator=(Router&&) noexcept = default;

const Topology& Router::topology() const {
  return impl_->topo;
}

const Path& Router::path(int src, int dst) const {
  auto [it, fresh] = impl_->paths.try_emplace(pair_key(src, dst));
  if (fresh) it->second = impl_->compute(src, dst);
  return it->second;
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
