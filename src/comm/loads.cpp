// Link-load engine (see loads.hpp).
#include "comm/loads.hpp"

#include <algorithm>

#include "topoplan/error.hpp"

namespace topoplan::comm {

double achieved_GBps(const Topology& t, DirLink d) {
  const Link& l = t.link(link_of(d));
  return l.bw_GBps * (l.efficiency > 0 ? l.efficiency : 1.0);
}

std::vector<GroupLoad> evaluate_loads(const Router& router,
                                      const std::vector<std::vector<Flow>>& flows) {
  const Topology& t = router.topology();
  // Dense per-DirLink accumulators, reused between calls on the same thread; `touched` lists the
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
    for (const Flow& f : flows[g]) {
      const Path& p = router.path(f.src, f.dst);
      if (p.cls == PathClass::DIS)
        throw InputError("collective: no route from " + t.device(f.src).id + " to " +
                         t.device(f.dst).id);
      out[g].worst_class = std::max(out[g].worst_class, p.cls);
      if (t.device(f.src).node != t.device(f.dst).node)
        out[g].inter_latency_us = std::max(out[g].inter_latency_us, p.latency_us);
      for (DirLink d : p.hops) {
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
