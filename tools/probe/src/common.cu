// Timing and data helpers of common.hpp.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "common.hpp"

namespace probe {
namespace {

__device__ float uniform(std::size_t i, unsigned seed) {
  // splitmix64 of (i, seed): cheap, stateless, good enough to avoid structured data.
  unsigned long long z = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull + 1;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) / static_cast<float>(1ull << 24) * 2.0f - 1.0f;
}

template <class T>
__global__ void fill_kernel(T* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = T(uniform(i, seed));
}

__global__ void value_kernel(float* p, std::size_t n, float v) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = v;
}

}  // namespace

Timing summarize(std::vector<double> v) {
  Timing t;
  if (v.empty()) return t;
  std::sort(v.begin(), v.end());
  t.median_us = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  t.min_us = v.front();
  t.max_us = v.back();
  return t;
}

Timing time_graph(cudaStream_t s, int calls, const std::function<void(int)>& launch, int replays) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  PROBE_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < calls; ++i) launch(i);
  } catch (...) {
    // Leave the stream usable for the next point: a capture left open fails every later call.
    cudaStreamEndCapture(s, &graph);
    if (graph) cudaGraphDestroy(graph);
    cudaGetLastError();
    throw;
  }
  PROBE_CUDA(cudaStreamEndCapture(s, &graph));
  PROBE_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  cudaEvent_t a, b;
  PROBE_CUDA(cudaEventCreate(&a));
  PROBE_CUDA(cudaEventCreate(&b));
  for (int w = 0; w < 2; ++w) PROBE_CUDA(cudaGraphLaunch(exec, s));
  std::vector<double> per_call;
  for (int r = 0; r < replays; ++r) {
    PROBE_CUDA(cudaEventRecord(a, s));
    PROBE_CUDA(cudaGraphLaunch(exec, s));
    PROBE_CUDA(cudaEventRecord(b, s));
    PROBE_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    PROBE_CUDA(cudaEventElapsedTime(&ms, a, b));
    per_call.push_back(ms * 1e3 / calls);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  PROBE_CUDA(cudaGetLastError());
  return summarize(per_call);
}

void fill_random(void* p, std::size_t n, const std::string& dtype, unsigned seed, cudaStream_t s) {
  const int blocks = 1024, threads = 256;
  if (dtype == "bf16")
    fill_kernel<<<blocks, threads, 0, s>>>(static_cast<__nv_bfloat16*>(p), n, seed);
  else if (dtype == "fp8")
    fill_kernel<<<blocks, threads, 0, s>>>(static_cast<__nv_fp8_e4m3*>(p), n, seed);
  else
    fill_kernel<<<blocks, threads, 0, s>>>(static_cast<float*>(p), n, seed);
  PROBE_CUDA(cudaGetLastError());
}

void fill_value(float* p, std::size_t n, float v, cudaStream_t s) {
  value_kernel<<<1024, 256, 0, s>>>(p, n, v);
  PROBE_CUDA(cudaGetLastError());
}

}  // namespace probe
