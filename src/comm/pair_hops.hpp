// The hops of one (src, dst) pair as the load engine routes it, and a helper thread that routes
// a share of a large set's pairs beside the calling thread (issue 32).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "comm/loads.hpp"

namespace topoplan::comm {

// The hops of flow src → dst (a direct hop, one NVSwitch, or the Router's path), folded into
// `g`'s worst class and inter-server latency. `shortcut` is the buffer direct hops go to. The
// returned hops live until the next call on the same router or shortcut.
const std::vector<DirLink>& flow_hops(const Router& router, int src, int dst, GroupLoad& g,
                                      std::vector<DirLink>& shortcut);

// Routes pairs on its own thread and its own Router (a Router's caches are not thread-safe)
// into a hop buffer, while the calling thread routes others; the caller then adds these hops
// in pair order, so every link's load is summed in the order one thread sums it and the
// answer does not depend on the thread count. Two jobs may be outstanding, so the helper
// routes the next chunk while the caller adds the hops of the last one.
class PairRouter {
 public:
  explicit PairRouter(const Router& router);
  ~PairRouter();
  PairRouter(const PairRouter&) = delete;
  PairRouter& operator=(const PairRouter&) = delete;

  // What a job routed. Pair i's hops are hops[ends[i - 1], ends[i]) (from 0 for i = 0), for
  // i < ends.size(); when a pair failed, ends stops before it and `error` is its exception.
  // `classes` holds their worst class and largest inter-server latency.
  struct Routed {
    std::vector<DirLink> hops;
    std::vector<std::uint32_t> ends;
    GroupLoad classes;
    std::exception_ptr error;
  };
  // Queues routing pairs[0, count); the pairs must stay valid until its wait() returns, and at
  // most two jobs may be started and not waited for.
  void start(const Flow* pairs, std::size_t count);
  // Waits for the oldest job not waited for yet; its result stays valid until start() has been
  // called twice more.
  const Routed& wait();
  // Waits until every started job is done and counts them as waited for.
  void drain();

 private:
  struct Job {
    const Flow* pairs = nullptr;
    std::size_t count = 0;
    Routed routed;
  };
  void loop();
  void route(Job& job);

  Router router_;
  std::vector<DirLink> shortcut_;
  Job jobs_[2];
  std::size_t started_ = 0, done_ = 0, waited_ = 0;
  bool stop_ = false;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace topoplan::comm
