// Memory sections: kernel floor, device-to-device copy curve, pinned host links, GPU peer links.
#pragma once

#include "common.hpp"

namespace probe {

struct MemoryOptions {
  double copy_max_bytes = 4 * kGiB;  // largest d2d copy (per direction)
  double host_bytes = 256 * kMiB;    // one pinned host transfer
  double p2p_bytes = 256 * kMiB;     // one peer transfer (bandwidth)
};

// Appends "floor_graph" (a tiny kernel in a CUDA graph), "launch_eager_cuda" and "copy" points
// (op, dtype, bytes = read + written, median_us, ...) to `points`, in the format of
// tools/measure/probe_compute.py so that parse_probe_results() reads them.
void probe_floor_and_copy(Json& points, const MemoryOptions& o);

// Pinned host<->device bandwidth per GPU alone (h2d, d2h, both at once) and every GPU at once.
Json probe_host_links(int ndev, const MemoryOptions& o);

// P2P bandwidth (unidirectional, bidirectional) and latency per GPU pair, alone and with every
// pair busy. With one GPU: {"skipped": reason}.
Json probe_p2p(int ndev, const MemoryOptions& o);

}  // namespace probe
