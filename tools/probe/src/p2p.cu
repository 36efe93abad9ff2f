// GPU<->GPU peer copies (memory.hpp, probe_p2p).
#include <chrono>
#include <cstdio>

#include "memory.hpp"

namespace probe {
namespace {

struct Peer {
  void* buf = nullptr;   // bandwidth buffer (p2p_bytes)
  void* buf2 = nullptr;  // second buffer: incoming copies land apart from outgoing reads
  cudaStream_t s = nullptr;
};

double since_us(const std::chrono::steady_clock::time_point& t0) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

void sync_all(const std::vector<Peer>& p) {
  for (std::size_t d = 0; d < p.size(); ++d) {
    PROBE_CUDA(cudaSetDevice(static_cast<int>(d)));
    PROBE_CUDA(cudaStreamSynchronize(p[d].s));
  }
}

// Median host wall time of `reps` rounds of enqueue() (after one warm-up round), every stream
// synchronized before and after: a round's time is its slowest transfer.
double round_us(const std::vector<Peer>& p, int reps, const std::function<void()>& enqueue) {
  std::vector<double> v;
  for (int r = 0; r <= reps; ++r) {
    sync_all(p);
    const auto t0 = std::chrono::steady_clock::now();
    enqueue();
    sync_all(p);
    if (r > 0) v.push_back(since_us(t0));
  }
  return summarize(v).median_us;
}

}  // namespace

Json probe_p2p(int ndev, const MemoryOptions& o) {
  Json out = Json::object();
  if (ndev < 2) {
    out["skipped"] = "one GPU visible: no peer links to measure";
    return out;
  }
  const std::size_t bytes = static_cast<std::size_t>(o.p2p_bytes);
  std::vector<Peer> p(ndev);
  Json access = Json::array();
  for (int a = 0; a < ndev; ++a) {
    PROBE_CUDA(cudaSetDevice(a));
    PROBE_CUDA(cudaMalloc(&p[a].buf, bytes));
    PROBE_CUDA(cudaMalloc(&p[a].buf2, bytes));
    PROBE_CUDA(cudaStreamCreateWithFlags(&p[a].s, cudaStreamNonBlocking));
    Json row = Json::array();
    for (int b = 0; b < ndev; ++b) {
      int can = 0;
      if (a != b) PROBE_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
      if (can) {
        const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) PROBE_CUDA(e);
        cudaGetLastError();
      }
      row.push(a == b ? true : can != 0);
    }
    access.push(row);
  }
  out["peer_access"] = access;
  out["bytes_per_transfer"] = static_cast<double>(bytes);
  out["method"] =
      "cudaMemcpyPeerAsync on the source GPU's stream (copy engines; peer access enabled where "
      "cudaDeviceCanAccessPeer allows, else staged by the driver); host wall time of a round "
      "with every stream synchronized, median of 3 (bandwidth) or of 5 rounds of 100 copies of "
      "4 B (latency)";
  Json uni = Json::array(), bidi = Json::array(), lat = Json::array();
  for (int a = 0; a < ndev; ++a) {
    Json ru = Json::array(), rb = Json::array(), rl = Json::array();
    for (int b = 0; b < ndev; ++b) {
      if (a == b) {
        ru.push(Json());
        rb.push(Json());
        rl.push(Json());
        continue;
      }
      const double tu = round_us(p, 3, [&] {
        PROBE_CUDA(cudaSetDevice(a));
        PROBE_CUDA(cudaMemcpyPeerAsync(p[b].buf2, b, p[a].buf, a, bytes, p[a].s));
      });
      const double tb = round_us(p, 3, [&] {
        PROBE_CUDA(cudaSetDevice(a));
        PROBE_CUDA(cudaMemcpyPeerAsync(p[b].buf2, b, p[a].buf, a, bytes, p[a].s));
        PROBE_CUDA(cudaSetDevice(b));
        PROBE_CUDA(cudaMemcpyPeerAsync(p[a].buf2, a, p[b].buf, b, bytes, p[b].s));
      });
      const double tl = round_us(p, 5, [&] {
        PROBE_CUDA(cudaSetDevice(a));
        for (int i = 0; i < 100; ++i)
          PROBE_CUDA(cudaMemcpyPeerAsync(p[b].buf2, b, p[a].buf, a, 4, p[a].s));
      });
      ru.push(bytes / tu / 1e3);
      rb.push(2.0 * bytes / tb / 1e3);
      rl.push(tl / 100);
    }
    uni.push(ru);
    bidi.push(rb);
    lat.push(rl);
  }
  out["unidirectional_GBps"] = uni;
  out["bidirectional_GBps"] = bidi;
  out["latency_us"] = lat;
  // Every ordered pair at once: each GPU sends to every other GPU and receives from all of them.
  const std::size_t share = bytes / static_cast<std::size_t>(ndev);
  const double t_all = round_us(p, 3, [&] {
    for (int a = 0; a < ndev; ++a) {
      PROBE_CUDA(cudaSetDevice(a));
      for (int b = 0; b < ndev; ++b)
        if (a != b)
          PROBE_CUDA(cudaMemcpyPeerAsync(static_cast<char*>(p[b].buf2) + a * share, b, p[a].buf, a,
                                         share, p[a].s));
    }
  });
  Json busy = Json::object();
  busy["bytes_per_pair"] = static_cast<double>(share);
  busy["per_gpu_send_GBps"] = (ndev - 1) * static_cast<double>(share) / t_all / 1e3;
  busy["aggregate_GBps"] = ndev * (ndev - 1) * static_cast<double>(share) / t_all / 1e3;
  busy["wall_us"] = t_all;
  out["all_pairs_busy"] = busy;
  std::printf("p2p all pairs busy: %.1f GB/s sent per GPU\n",
              (ndev - 1) * static_cast<double>(share) / t_all / 1e3);
  for (int a = 0; a < ndev; ++a) {
    PROBE_CUDA(cudaSetDevice(a));
    cudaFree(p[a].buf);
    cudaFree(p[a].buf2);
    cudaStreamDestroy(p[a].s);
  }
  return out;
}

}  // namespace probe
