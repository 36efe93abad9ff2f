// Pair routing for the load engine (see pair_hops.hpp).
#include "comm/pair_hops.hpp"

#include <algorithm>

#include "topoplan/error.hpp"

namespace topoplan::comm {

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
bool direct_hops(const Router& router, int src, int dst, std::vector<DirLink>& hops) {
  const Topology& t = router.topology();
  hops.clear();
  if (const DirLink best = widest_link(t, src, dst); best >= 0) {
    hops.push_back(best);
    return true;
  }
  if (t.device(src).type != DeviceType::Gpu || t.device(dst).type != DeviceType::Gpu) return false;
  const int sw = router.sole_nvswitch(src);
  if (sw < 0 || router.sole_nvswitch(dst) != sw) return false;
  // sole_nvswitch() is a neighbour of both GPUs, so both links exist.
  hops.push_back(widest_link(t, src, sw));
  hops.push_back(widest_link(t, sw, dst));
  return true;
}
}  // namespace

const std::vector<DirLink>& flow_hops(const Router& router, int src, int dst, GroupLoad& g,
                                      std::vector<DirLink>& shortcut) {
  const Topology& t = router.topology();
  if (direct_hops(router, src, dst, shortcut)) {
    g.worst_class = std::max(g.worst_class, PathClass::NVL);
    return shortcut;
  }
  const Path& p = router.transient_path(src, dst);
  if (p.cls == PathClass::DIS)
    throw InputError("collective: no route from " + t.device(src).id + " to " + t.device(dst).id);
  g.worst_class = std::max(g.worst_class, p.cls);
  if (t.device(src).node != t.device(dst).node)
    g.inter_latency_us = std::max(g.inter_latency_us, p.latency_us);
  return p.hops;
}

PairRouter::PairRouter(const Router& router)
    : router_(router.worker()), thread_([this] { loop(); }) {}

PairRouter::~PairRouter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void PairRouter::start(const Flow* pairs, std::size_t count) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (started_ - waited_ >= 2) throw InternalError("PairRouter: more than two jobs queued");
    Job& job = jobs_[started_ % 2];
    job.pairs = pairs;
    job.count = count;
    ++started_;
  }
  cv_.notify_all();
}

const PairRouter::Routed& PairRouter::wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (waited_ == started_) throw InternalError("PairRouter: wait() without a job");
  cv_.wait(lock, [this] { return done_ > waited_; });
  return jobs_[waited_++ % 2].routed;
}

void PairRouter::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [this] { return done_ == started_; });
  waited_ = started_;
}

void PairRouter::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    cv_.wait(lock, [this] { return started_ > done_ || stop_; });
    if (stop_) return;
    Job& job = jobs_[done_ % 2];
    lock.unlock();
    route(job);
    lock.lock();
    ++done_;
    cv_.notify_all();
  }
}

void PairRouter::route(Job& job) {
  Routed& r = job.routed;
  r.hops.clear();
  r.ends.clear();
  r.classes = {};
  r.error = nullptr;
  try {
    for (std::size_t i = 0; i < job.count; ++i) {
      const Flow& f = job.pairs[i];
      const std::vector<DirLink>& hops = flow_hops(router_, f.src, f.dst, r.classes, shortcut_);
      r.hops.insert(r.hops.end(), hops.begin(), hops.end());
      r.ends.push_back(static_cast<std::uint32_t>(r.hops.size()));
    }
  } catch (...) {
    r.error = std::current_exception();
  }
}

}  // namespace topoplan::comm
