// Link-load engine (see loads.hpp).
#include "comm/loads.hpp"

#include <algorithm>

#include "topoplan/error.hpp"

namespace topoplan::comm {

double achieved_GBps(const Topology& t, DirLink d) {
  const Link& l = t.link(link_of(d));
  return l.bw_GBps * (l.efficiency > 0 ? l.efficiency : 1.0);
}

namespace {
// The widest of the links from `src` to its neighbour `dst`, or -1 when they are not neighbours.
// Scans the end with fewer neighbours: an NVSwitch of a 20,000-GPU domain has 20,000, and every
// switch -> GPU hop scanned them all. Both ends list the pair's links in the same (link index)
// order, so the first widest one is the same link either way.
DirLink widest_link(const Topology& t, int src, int dst) {
  const bool from_dst = t.neighbours(dst).size() < t.neighbours(src).size();
  DirLink best = -1;
  for (const Adjacent& a : t.neighbours(from_dst ? dst : src)) {
    if (a.device != (from_dst ? src : dst)) continue;
    const DirLink out = from_dst ? a.out ^ 1 : a.out;  // the same link, src -> dst
    if (best < 0 || t.bw_GBps(out) > t.bw_GBps(best)) best = out;
  }
  return best;
}

// Hops that need no search: a flow to a direct neighbour takes the widest link to it, and two
// GPUs on the same (single) NVSwitch vertex go GPU → switch → GPU, which is NCCL's best path
// class (NVL) with the fewest hops. Returns false when the Router must decide.
bool direct_hops(const Topology& t, int src, int dst, std::vector<DirLink>& hops) {
  hops.clear();
  if (const DirLink best = widest_link(t, src, dst); best >= 0) {
    hops.push_back(best);
    return true;
  }
  if (t.device(src).type != DeviceType::Gpu || t.device(dst).type != DeviceType::Gpu) return false;
  const int sw = sole_switch(t, src);
  if (sw < 0 || sole_switch(t, dst) != sw) return false;
  // sole_switch() is a neighbour of both GPUs, so both links exist.
  hops.push_back(widest_link(t, src, sw));
  hops.push_back(widest_link(t, sw, dst));
  return true;
}

// Flows with the same endpoints merged (rings and trees repeat most intra-server pairs across
// channels), so each distinct pair is routed once.
std::vector<Flow> merged(const std::vector<Flow>& flows) {
  std::vector<Flow> out(flows);
  std::sort(out.begin(), out.end(), [](const Flow& a, const Flow& b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  });
  std::size_t k = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (k > 0 && out[k - 1].src == out[i].src && out[k - 1].dst == out[i].dst)
      out[k - 1].weight += out[i].weight;
    else
      out[k++] = out[i];
  }
  out.resize(k);
  return out;
}
}  // namespace

std::vector<GroupLoad> evaluate_loads(const Router& router,
                                      const std::vector<std::vector<Flow>>& flows) {
  const Topology& t = router.topology();
  // Dense per-DirLink accumulators, reused between calls on the same thread; `used` lists the
  // entries to clear, so a call costs O(flows × hops), not O(links).
  thread_local std::vector<double> load;
  thread_local std::vector<int> stamp;
  thread_local int generation = 0;
  const std::size_t dirlinks = 2 * t.link_count();
  if (load.size() < dirlinks) load.resize(dirlinks, 0.0), stamp.resize(dirlinks, 0);
  std::vector<std::vector<DirLink>> used(flows.size());
  std::vector<GroupLoad> out(flows.size());
  for (std::size_t g = 0; g < flows.size(); ++g) {
    ++generation;
    std::vector<DirLink> shortcut;
    for (const Flow& f : merged(flows[g])) {
      const std::vector<DirLink>* hops = &shortcut;
      if (direct_hops(t, f.src, f.dst, shortcut)) {
        out[g].worst_class = std::max(out[g].worst_class, PathClass::NVL);
      } else {
        const Path& p = router.transient_path(f.src, f.dst);
        if (p.cls == PathClass::DIS)
          throw InputError("collective: no route from " + t.device(f.src).id + " to " +
                           t.device(f.dst).id);
        out[g].worst_class = std::max(out[g].worst_class, p.cls);
        if (t.device(f.src).node != t.device(f.dst).node)
          out[g].inter_latency_us = std::max(out[g].inter_latency_us, p.latency_us);
        hops = &p.hops;
      }
      for (DirLink d : *hops) {
        const auto i = static_cast<std::size_t>(d);
        if (stamp[i] != generation) {
          stamp[i] = generation;
          used[g].push_back(d);
        }
        load[i] += f.weight;
      }
    }
  }
  for (std::size_t g = 0; g < flows.size(); ++g) {
    for (DirLink d : used[g]) {
      const double bw = achieved_GBps(t, d);
      if (bw <= 0)
        throw InputError("collective: link " + t.device(t.from_device(d)).id + " → " +
                         t.device(t.to_device(d)).id + " has no bandwidth");
      const double us = load[static_cast<std::size_t>(d)] / (bw * 1e3);
      if (us > out[g].us_per_byte) {
        out[g].us_per_byte = us;
        out[g].bottleneck = d;
        out[g].weight = load[static_cast<std::size_t>(d)];
      }
    }
  }
  for (const auto& u : used)
    for (DirLink d : u) load[static_cast<std::size_t>(d)] = 0;
  return out;
}

}  // namespace topoplan::comm
