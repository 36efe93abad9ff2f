// Three-pass exact search over a small state graph; see path_search.hpp for the rule.
//
// Class is a "worst hop" metric and bandwidth a "narrowest hop" metric; a single Dijkstra over
// lexicographic (class, -bw, hops) labels is not exact (a wider but longer prefix can lose after
// a narrow hop), so each criterion gets its own pass over the sub-graph the earlier ones allow.
#include "route/path_search.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <queue>

namespace topoplan::route {

PathClass hop_class(const Link& link, const Device& from, const Device& to) {
  switch (link.kind) {
    case LinkKind::NVLink:
      return PathClass::NVL;
    case LinkKind::C2C:
      return PathClass::C2C;
    case LinkKind::CpuLink:
      return PathClass::SYS;
    case LinkKind::Network:
      return PathClass::NET;
    case LinkKind::PCIe:
      break;
  }
  if (from.type == DeviceType::Cpu || to.type == DeviceType::Cpu) return PathClass::PHB;
  if (from.type == DeviceType::PcieSwitch && to.type == DeviceType::PcieSwitch)
    return PathClass::PXB;
  return PathClass::PIX;
}

namespace {

// A state is (local device, mode): kFresh = no GPU passed yet, kRelayed = one GPU passed (NCCL
// allows one NVB/PXN relay), kOnRelay = standing on a relay GPU that was entered by NVLink.
// Towards a NIC, a GPU that reaches a (Grace) CPU over C2C makes that CPU's PCIe P2C instead of
// PHB (paths.cc): kAfterPxnC2c = after a PXN relay and its C2C (NCCL accepts a relay whose own NIC
// path is ≤ P2C with NCCL_PXN_C2C=1, the default, so only PCIe may follow), kAfterOwnC2c = after
// the source GPU's own C2C.
constexpr int kFresh = 0, kRelayed = 1, kOnRelay = 2, kAfterPxnC2c = 3, kAfterOwnC2c = 4;
constexpr int kModes = 5;

struct Step {
  int state;
  DirLink dl;
  PathClass cls;
  double bw;
};

class Search {
 public:
  // dst < 0: no single destination; the moves are those towards a NIC (min_classes()).
  Search(const Topology& t, int src, int dst, const SearchScope& s)
      : t_(t),
        src_(src),
        dst_(dst),
        scope_(s),
        dst_is_nic_(dst < 0 || t.device(dst).type == DeviceType::Nic) {}

  // Pass 1 run to completion: the smallest worst-hop class from src to every device of the
  // scope (by local index; DIS when unreachable), with the moves allowed towards a NIC.
  std::vector<PathClass> min_classes() const {
    const std::vector<int> best = min_class_labels(local(src_) * kModes);
    std::vector<PathClass> out(static_cast<std::size_t>(states() / kModes), PathClass::DIS);
    for (int st = 0; st < states(); ++st) {
      if (st % kModes == kOnRelay || best[static_cast<std::size_t>(st)] == kUnreached) continue;
      auto& c = out[static_cast<std::size_t>(st / kModes)];
      c = std::min(c, static_cast<PathClass>(best[static_cast<std::size_t>(st)]));
    }
    return out;
  }

  Path run() {
    Path p;
    p.src = src_;
    p.dst = dst_;
    const int start = local(src_) * kModes;
    const PathClass cls = min_class(start);
    if (cls == PathClass::DIS) return p;
    const double bw = widest(start, cls);
    fewest_hops(start, cls, bw, p);
    p.cls = cls;
    p.bw_GBps = bw;
    bool c2c = false;
    for (DirLink d : p.hops) {
      p.latency_us += t_.link(link_of(d)).latency_us;
      c2c = c2c || t_.link(link_of(d)).kind == LinkKind::C2C;
    }
    // NCCL: a GPU that reaches its CPU over C2C and a NIC behind that CPU is P2C, not PHB.
    const bool nic_end = dst_is_nic_ || t_.device(src_).type == DeviceType::Nic;
    if (cls == PathClass::PHB && c2c && nic_end) p.cls = PathClass::P2C;
    return p;
  }

 private:
  int local(int dev) const { return scope_.slot_of ? (*scope_.slot_of)[dev] : dev; }
  int device_at(int l) const {
    return scope_.slot_of ? scope_.members[static_cast<std::size_t>(l)] : l;
  }
  int states() const {
    const std::size_t n = scope_.slot_of ? scope_.members.size() : t_.device_count();
    return static_cast<int>(n) * kModes;
  }
  bool is_target(int state) const {
    return dst_ >= 0 && state / kModes == local(dst_) && state % kModes != kOnRelay;
  }

  // Calls f(Step) for every move out of `state`.
  template <class F>
  void for_each_step(int state, F&& f) const {
    const int dev = device_at(state / kModes);
    const int mode = state % kModes;
    const Device& from = t_.device(dev);
    const bool relay = mode == kOnRelay;
    if (dev != src_) {
      if (from.type == DeviceType::Gpu && !relay) return;
      if ((from.type == DeviceType::Nic || from.type == DeviceType::NetSwitch) &&
          !scope_.allow_network)
        return;
    }
    for (const Adjacent& a : t_.neighbours(dev)) {
      const Link& l = t_.link(link_of(a.out));
      if (l.kind == LinkKind::Network && !scope_.allow_network) continue;
      if (a.device == src_) continue;
      const int lv = local(a.device);
      if (lv < 0) continue;
      const Device& to = t_.device(a.device);
      PathClass cls = hop_class(l, from, to);
      int next_mode = relay ? kRelayed : mode;
      const bool c2c_to_cpu = l.kind == LinkKind::C2C && dst_is_nic_ && to.type == DeviceType::Cpu;
      if (relay) {
        if (l.kind == LinkKind::NVLink)
          cls = PathClass::NVB;
        else if (l.kind == LinkKind::PCIe && dst_is_nic_)
          cls = PathClass::PXN;
        else if (c2c_to_cpu) {
          cls = PathClass::PXN;
          next_mode = kAfterPxnC2c;
        } else
          continue;
      } else if (mode == kAfterPxnC2c || mode == kAfterOwnC2c) {
        if (l.kind == LinkKind::PCIe && cls == PathClass::PHB) cls = PathClass::P2C;
        if (l.kind != LinkKind::PCIe) {
          if (mode == kAfterPxnC2c) continue;  // beyond the relay's P2C limit (another CPU: SYS)
          next_mode = kFresh;
        }
      } else if (mode == kFresh && dev == src_ && from.type == DeviceType::Gpu && c2c_to_cpu) {
        next_mode = kAfterOwnC2c;
      }
      f(Step{lv * kModes + next_mode, a.out, cls, l.bw_GBps});
      if (to.type == DeviceType::Gpu && a.device != dst_ && next_mode == kFresh &&
          l.kind == LinkKind::NVLink)
        f(Step{lv * kModes + kOnRelay, a.out, cls, l.bw_GBps});
    }
  }

  static constexpr int kUnreached = std::numeric_limits<int>::max();

  // Pass 1: the smallest achievable worst-hop class (minimax Dijkstra; exact).
  PathClass min_class(int start) const {
    PathClass found = PathClass::DIS;
    min_class_labels(start, &found);
    return found;
  }

  // Minimax Dijkstra from `start`: stops at the target (its class in *found) when there is one,
  // else labels every state. Returns the labels (kUnreached where not reached).
  std::vector<int> min_class_labels(int start, PathClass* found = nullptr) const {
    std::vector<int> best(states(), kUnreached);
    using Item = std::pair<int, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> pq;
    best[start] = static_cast<int>(PathClass::LOC);
    pq.push({best[start], start});
    while (!pq.empty()) {
      const int c = pq.top().first,
                s = pq.top().second;  // not bindings: clang 14 cannot capture those
      pq.pop();
      if (c != best[s]) continue;
      if (is_target(s)) {
        if (found) *found = static_cast<PathClass>(c);
        return best;
      }
      for_each_step(s, [&](const Step& st) {
        const int nc = std::max(c, static_cast<int>(st.cls));
        if (nc < best[st.state]) {
          best[st.state] = nc;
          pq.push({nc, st.state});
        }
      });
    }
    return best;
  }

  // Pass 2: the widest bottleneck using only hops of class <= cls (maximin Dijkstra; exact).
  double widest(int start, PathClass cls) const {
    std::vector<double> best(states(), -1.0);
    std::priority_queue<std::pair<double, int>> pq;
    best[start] = std::numeric_limits<double>::infinity();
    pq.push({best[start], start});
    while (!pq.empty()) {
      const double bw = pq.top().first;
      const int s = pq.top().second;
      pq.pop();
      if (bw != best[s]) continue;
      if (is_target(s)) return bw;
      for_each_step(s, [&](const Step& st) {
        if (st.cls > cls) return;
        const double nb = std::min(bw, st.bw);
        if (nb > best[st.state]) {
          best[st.state] = nb;
          pq.push({nb, st.state});
        }
      });
    }
    return 0;
  }

  // Pass 3: fewest hops among hops of class <= cls and bandwidth >= bw (BFS, first found wins).
  void fewest_hops(int start, PathClass cls, double bw, Path& p) const {
    std::vector<std::pair<int, DirLink>> parent(states(), {-1, -1});
    std::vector<char> seen(states(), 0);
    std::deque<int> queue{start};
    seen[start] = 1;
    int found = -1;
    while (!queue.empty() && found < 0) {
      const int s = queue.front();
      queue.pop_front();
      if (is_target(s)) {
        found = s;
        break;
      }
      for_each_step(s, [&](const Step& st) {
        if (st.cls > cls || st.bw < bw || seen[st.state]) return;
        seen[st.state] = 1;
        parent[st.state] = {s, st.dl};
        queue.push_back(st.state);
      });
    }
    for (int s = found; s >= 0 && s != start; s = parent[s].first)
      p.hops.push_back(parent[s].second);
    std::reverse(p.hops.begin(), p.hops.end());
  }

  const Topology& t_;
  int src_, dst_;
  SearchScope scope_;
  bool dst_is_nic_;
};

}  // namespace

std::vector<PathClass> min_classes_to_nics(const Topology& topology, int src,
                                           const SearchScope& scope) {
  return Search(topology, src, -1, scope).min_classes();
}

Path best_path(const Topology& topology, int src, int dst, const SearchScope& scope) {
  if (src == dst) return Path{src, dst, {}, PathClass::LOC, 0, 0};
  return Search(topology, src, dst, scope).run();
}

}  // namespace topoplan::route
