// The parallel part of the search: strategies evaluated on SearchOptions::threads threads, each
// with its own Router and Planner (their caches are not shared), results kept in enumeration
// order so the output does not depend on the thread count or on which thread was faster.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "plan/planner_impl.hpp"

namespace topoplan {

namespace {
// glibc keeps an exited thread's malloc arena, with everything the thread freed in it (its
// per-link load arrays, its caches), and the contrast and placements that follow the search
// allocate from the main arena, so the peak counted both. malloc_trim hands free arena pages
// back to the OS: 12.5 MiB off `plan` on 12,500 hgx-h100-8 servers with two threads (issue 32,
// measured with GNU time). Elsewhere this does nothing.
void release_thread_arenas(int threads) {
#if defined(__GLIBC__)
  if (threads > 1) malloc_trim(0);
#else
  (void)threads;
#endif
}
}  // namespace

int Planner::Impl::thread_count(std::size_t strategies) const {
  int t = search.threads > 0 ? search.threads
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(t), std::max<std::size_t>(1, strategies)));
}

std::vector<Planner::Impl::Evaluated> Planner::Impl::evaluate_all(
    const std::vector<Strategy>& strategies, int threads) const {
  std::vector<Evaluated> out(strategies.size());
  // Work units: runs of consecutive strategies with the same tp. They share the TP group set
  // and most pipeline sets, which each thread prepares in its own caches, so handing a thread
  // whole runs keeps it from preparing every set the other threads prepare too.
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < strategies.size(); ++i)
    if (i == 0 || strategies[i].tp != strategies[i - 1].tp) starts.push_back(i);
  starts.push_back(strategies.size());
  const std::size_t units = starts.size() - 1;
  std::atomic<std::size_t> next{0};
  std::mutex progress_mutex;
  int done = 0;
  std::exception_ptr failure;
  auto work = [&](const Impl& impl) {
    try {
      for (std::size_t u; (u = next++) < units;)
        for (std::size_t i = starts[u]; i < starts[u + 1]; ++i) {
          Evaluated& e = out[i];
          e.result = impl.evaluate(strategies[i], req.batch, req.order, &e.points);
          std::lock_guard<std::mutex> lock(progress_mutex);
          ++done;
          if (search.progress) search.progress(done, static_cast<int>(strategies.size()));
        }
    } catch (...) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      if (!failure) failure = std::current_exception();
      next = units;  // the others stop at their next unit
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([&] {
      // Router and Planner caches are not thread-safe: each thread routes on its own copy,
      // which shares the router's immutable indexes.
      Router router_copy = router->worker();
      SearchOptions one = search;
      one.threads = 1;
      one.progress = nullptr;
      Impl worker(model, router_copy, req, one);
      work(worker);
    });
  work(*this);  // this thread too, on the caller's caches
  for (std::thread& t : pool) t.join();
  release_thread_arenas(threads);
  if (failure) std::rethrow_exception(failure);
  return out;
}

}  // namespace topoplan
