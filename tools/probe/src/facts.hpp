// Device facts: what the CUDA runtime and NVML say about each GPU and how the GPUs are linked.
#pragma once

#include "common.hpp"

namespace probe {

// "devices": one object per GPU (name, SMs, memory, clocks, L2, PCIe link, NVLinks per peer);
// "topology": the `nvidia-smi topo -m` classes per GPU pair (X, NV#, PIX, PXB, PHB, NODE, SYS)
// from NVML, plus the text `nvidia-smi topo -m` printed, when nvidia-smi is there.
// `versions` receives driver_version (NVML, else nvidia-smi) and cuda_version.
Json device_facts(int ndev, Json& versions);

// Output of a shell command (first 64 KiB), or "" when it cannot run.
std::string shell_output(const std::string& cmd);

}  // namespace probe
