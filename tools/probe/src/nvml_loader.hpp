// NVML through dlopen: the probe must build where the NVML header is absent (the CUDA toolkit
// on pip-based images ships no nvml.h) and run where the driver's libnvidia-ml.so.1 is. Only the
// few entry points the probe reads are declared, with the C ABI of NVML's public API.
#pragma once

#include <string>

namespace probe {

struct NvmlPci {  // nvmlPciInfo_t (NVML API, nvml.h): layout fixed by the ABI
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};

class Nvml {
 public:
  static Nvml& get();  // loads and initialises once; ok() is false when NVML is absent
  bool ok() const { return ok_; }
  std::string driver_version() const;
  void* device_by_bus_id(const std::string& bus_id) const;  // nullptr when not found
  // Each returns -1 when NVML cannot answer.
  int pcie_gen(void* d, bool max) const;
  int pcie_width(void* d, bool max) const;
  int clock_MHz(void* d, int type, bool max) const;  // type: 1 SM, 2 memory
  int power_limit_W(void* d) const;
  // NVLinks from `d` whose far end is the GPU with PCI bus id `peer` (NV# of nvidia-smi).
  int nvlinks_to(void* d, const std::string& peer_bus_id) const;
  int nvlinks_active(void* d) const;
  // nvmlGpuTopologyLevel_t of the pair: 0 internal, 10 single switch (PIX), 20 multiple (PXB),
  // 30 host bridge (PHB), 40 NUMA node (NODE), 50 system (SYS); -1 unknown.
  int common_ancestor(void* a, void* b) const;

 private:
  Nvml();
  bool ok_ = false;
  void* lib_ = nullptr;
};

// Upper-case, domain-padded form NVML uses ("00000000:1B:00.0").
std::string normalize_bus_id(const std::string& id);

}  // namespace probe
