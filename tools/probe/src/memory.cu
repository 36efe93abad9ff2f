// Floor, copy, host-link and peer-link measurements (memory.hpp).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "memory.hpp"

namespace probe {
namespace {

__global__ void tiny_kernel(float* x) {
  x[0] += 1.0f;
}

Json point(const std::string& op, double bytes, const Timing& t) {
  Json p = Json::object();
  p["op"] = op;
  p["dtype"] = "bf16";
  p["m"] = 0;
  p["n"] = 0;
  p["k"] = 0;
  p["bytes"] = bytes;
  p["flops"] = 0;
  p["median_us"] = t.median_us;
  p["min_us"] = t.min_us;
  p["max_us"] = t.max_us;
  p["GBps"] = bytes / t.median_us / 1e3;
  return p;
}

double wall_us(const std::chrono::steady_clock::time_point& a) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count();
}

// Median time (µs) of `reps` runs of enqueue() on `s`, timed with events.
Timing time_events(cudaStream_t s, int reps, const std::function<void()>& enqueue) {
  cudaEvent_t a, b;
  PROBE_CUDA(cudaEventCreate(&a));
  PROBE_CUDA(cudaEventCreate(&b));
  enqueue();  // warm-up: first-touch mappings, copy-engine setup
  std::vector<double> v;
  for (int r = 0; r < reps; ++r) {
    PROBE_CUDA(cudaEventRecord(a, s));
    enqueue();
    PROBE_CUDA(cudaEventRecord(b, s));
    PROBE_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    PROBE_CUDA(cudaEventElapsedTime(&ms, a, b));
    v.push_back(ms * 1e3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return summarize(v);
}

struct HostBuffers {
  void* host = nullptr;
  void* dev = nullptr;
  void* dev2 = nullptr;  // second device buffer: h2d and d2h at once touch different memory
  void* host2 = nullptr;
  cudaStream_t up = nullptr, down = nullptr;
};

}  // namespace

void probe_floor_and_copy(Json& points, const MemoryOptions& o) {
  cudaStream_t s;
  PROBE_CUDA(cudaSetDevice(0));
  PROBE_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* x = nullptr;
  PROBE_CUDA(cudaMalloc(&x, 4));
  PROBE_CUDA(cudaMemsetAsync(x, 0, 4, s));
  points.push(
      point("floor_graph", 8, time_graph(s, 1000, [&](int) { tiny_kernel<<<1, 1, 0, s>>>(x); })));
  // Host-bound launch rate of the same kernel without a graph (C++ cudaLaunchKernel; PyTorch's
  // eager dispatch adds its own cost on top, probe_compute.py's floor_eager).
  points.push(point("launch_eager_cuda", 8, time_events(s, 7, [&] {
                      for (int i = 0; i < 1000; ++i) tiny_kernel<<<1, 1, 0, s>>>(x);
                    })));
  PROBE_CUDA(cudaFree(x));
  // Copies: a pool of 2 x copy_max_bytes; each graph walks slots of the pool so that a graph
  // touches more than the L2 (60 MB on the H200) and the copy reads HBM, not the cache.
  const std::size_t pool = static_cast<std::size_t>(o.copy_max_bytes);
  char *src = nullptr, *dst = nullptr;
  PROBE_CUDA(cudaMalloc(&src, pool));
  PROBE_CUDA(cudaMalloc(&dst, pool));
  fill_random(src, pool / 2, "bf16", 1, s);
  for (std::size_t size = 64 * 1024; size <= pool; size *= 2) {
    const std::size_t slots = pool / size;
    const int calls = static_cast<int>(std::min<double>(
        512, std::max<double>({4, std::ceil(256 * kMiB / size), std::ceil(4e3 / (size / 3e6))})));
    const Timing t = time_graph(
        s, calls,
        [&](int i) {
          const std::size_t off = (static_cast<std::size_t>(i) % slots) * size;
          PROBE_CUDA(cudaMemcpyAsync(dst + off, src + off, size, cudaMemcpyDeviceToDevice, s));
        },
        size >= kGiB ? 5 : 7);
    Json p = point("copy", 2.0 * size, t);
    p["size_bytes"] = static_cast<double>(size);
    points.push(p);
    std::printf("copy %10.3f MiB %10.2f us %8.1f GB/s\n", size / kMiB, t.median_us,
                2.0 * size / t.median_us / 1e3);
  }
  PROBE_CUDA(cudaFree(src));
  PROBE_CUDA(cudaFree(dst));
  PROBE_CUDA(cudaStreamDestroy(s));
}

Json probe_host_links(int ndev, const MemoryOptions& o) {
  const std::size_t bytes = static_cast<std::size_t>(o.host_bytes);
  std::vector<HostBuffers> b(ndev);
  for (int d = 0; d < ndev; ++d) {
    PROBE_CUDA(cudaSetDevice(d));
    PROBE_CUDA(cudaHostAlloc(&b[d].host, bytes, cudaHostAllocPortable));
    PROBE_CUDA(cudaHostAlloc(&b[d].host2, bytes, cudaHostAllocPortable));
    PROBE_CUDA(cudaMalloc(&b[d].dev, bytes));
    PROBE_CUDA(cudaMalloc(&b[d].dev2, bytes));
    PROBE_CUDA(cudaStreamCreateWithFlags(&b[d].up, cudaStreamNonBlocking));
    PROBE_CUDA(cudaStreamCreateWithFlags(&b[d].down, cudaStreamNonBlocking));
    std::memset(b[d].host, 0x3c, bytes);  // pinned pages touched: no first-touch in the timing
    std::memset(b[d].host2, 0x3c, bytes);
  }
  Json out = Json::object();
  out["bytes_per_transfer"] = static_cast<double>(bytes);
  out["method"] =
      "cudaMemcpyAsync between cudaHostAlloc'ed (pinned) memory and device memory; alone: CUDA "
      "events, median of 5; all at once: every GPU's transfer issued together, host wall time "
      "to the last completion, median of 5";
  Json alone = Json::array();
  for (int d = 0; d < ndev; ++d) {
    PROBE_CUDA(cudaSetDevice(d));
    HostBuffers& h = b[d];
    const Timing up = time_events(h.up, 5, [&] {
      PROBE_CUDA(cudaMemcpyAsync(h.dev, h.host, bytes, cudaMemcpyHostToDevice, h.up));
    });
    const Timing down = time_events(h.up, 5, [&] {
      PROBE_CUDA(cudaMemcpyAsync(h.host, h.dev, bytes, cudaMemcpyDeviceToHost, h.up));
    });
    // Both directions at once: the second stream waits on an event of the first so the two
    // copies start together and the pair is timed on the first stream.
    cudaEvent_t go, done;
    PROBE_CUDA(cudaEventCreateWithFlags(&go, cudaEventDisableTiming));
    PROBE_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    const Timing both = time_events(h.up, 5, [&] {
      PROBE_CUDA(cudaEventRecord(go, h.up));
      PROBE_CUDA(cudaStreamWaitEvent(h.down, go));
      PROBE_CUDA(cudaMemcpyAsync(h.dev, h.host, bytes, cudaMemcpyHostToDevice, h.up));
      PROBE_CUDA(cudaMemcpyAsync(h.host2, h.dev2, bytes, cudaMemcpyDeviceToHost, h.down));
      PROBE_CUDA(cudaEventRecord(done, h.down));
      PROBE_CUDA(cudaStreamWaitEvent(h.up, done));
    });
    cudaEventDestroy(go);
    cudaEventDestroy(done);
    Json g = Json::object();
    g["gpu"] = d;
    g["h2d_GBps"] = bytes / up.median_us / 1e3;
    g["d2h_GBps"] = bytes / down.median_us / 1e3;
    g["bidirectional_GBps"] = 2.0 * bytes / both.median_us / 1e3;
    g["h2d_us"] = up.median_us;
    g["d2h_us"] = down.median_us;
    g["bidirectional_us"] = both.median_us;
    alone.push(g);
    std::printf("host link gpu %d: h2d %.1f GB/s d2h %.1f GB/s both %.1f GB/s\n", d,
                bytes / up.median_us / 1e3, bytes / down.median_us / 1e3,
                2.0 * bytes / both.median_us / 1e3);
  }
  out["alone"] = alone;
  // All GPUs at once, one direction at a time: shared PCIe switches and root ports show here.
  auto all_at_once = [&](cudaMemcpyKind kind) {
    std::vector<double> v;
    for (int r = 0; r < 6; ++r) {
      for (int d = 0; d < ndev; ++d) {
        PROBE_CUDA(cudaSetDevice(d));
        PROBE_CUDA(cudaStreamSynchronize(b[d].up));
      }
      const auto t0 = std::chrono::steady_clock::now();
      for (int d = 0; d < ndev; ++d) {
        PROBE_CUDA(cudaSetDevice(d));
        void* dst = kind == cudaMemcpyHostToDevice ? b[d].dev : b[d].host;
        const void* src = kind == cudaMemcpyHostToDevice ? b[d].host : b[d].dev;
        PROBE_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, b[d].up));
      }
      for (int d = 0; d < ndev; ++d) {
        PROBE_CUDA(cudaSetDevice(d));
        PROBE_CUDA(cudaStreamSynchronize(b[d].up));
      }
      if (r > 0) v.push_back(wall_us(t0));  // the first round is a warm-up
    }
    const Timing t = summarize(v);
    Json j = Json::object();
    j["gpus"] = ndev;
    j["aggregate_GBps"] = ndev * static_cast<double>(bytes) / t.median_us / 1e3;
    j["per_gpu_GBps"] = static_cast<double>(bytes) / t.median_us / 1e3;
    j["wall_us"] = t.median_us;
    return j;
  };
  Json all = Json::object();
  all["h2d"] = all_at_once(cudaMemcpyHostToDevice);
  all["d2h"] = all_at_once(cudaMemcpyDeviceToHost);
  out["all_at_once"] = all;
  for (int d = 0; d < ndev; ++d) {
    PROBE_CUDA(cudaSetDevice(d));
    cudaFreeHost(b[d].host);
    cudaFreeHost(b[d].host2);
    cudaFree(b[d].dev);
    cudaFree(b[d].dev2);
    cudaStreamDestroy(b[d].up);
    cudaStreamDestroy(b[d].down);
  }
  return out;
}

}  // namespace probe
