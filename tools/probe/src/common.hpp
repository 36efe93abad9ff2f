// Error checks and the timing method every section of the probe shares.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "json.hpp"

namespace probe {

constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

// A failed CUDA call throws: the section catches it, records the error in the result and the
// probe goes on with the next section (a sticky error ends the run with what was written so far).
inline void check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e) + " at " + file +
                             ":" + std::to_string(line));
}
#define PROBE_CUDA(x) ::probe::check((x), #x, __FILE__, __LINE__)

struct Timing {
  double median_us = 0, min_us = 0, max_us = 0;
};

// Captures `calls` launches (launch(i) enqueues call i on `s`) into one CUDA graph, replays it
// `replays` times after two warm-up replays, and returns the per-call time (replay time ÷ calls;
// median, min, max). Graph replay is how serving engines run decode steps and removes host
// launch gaps from the GPU time (docs/probe.md, "Timing").
Timing time_graph(cudaStream_t s, int calls, const std::function<void(int)>& launch,
                  int replays = 7);

// Median/min/max of samples in µs.
Timing summarize(std::vector<double> samples_us);

// Fills n elements of bf16 (dtype "bf16") or fp8 e4m3 ("fp8") or fp32 ("fp32") with uniform
// random values in [-1, 1) from a counter hash: never zeros (METHOD.md: zeros run faster).
void fill_random(void* p, std::size_t n, const std::string& dtype, unsigned seed, cudaStream_t s);
void fill_value(float* p, std::size_t n, float v, cudaStream_t s);

// Result of one section: its JSON and, for sections that did not run, why.
struct Section {
  std::string name;
  Json value = Json::object();
};

}  // namespace probe
