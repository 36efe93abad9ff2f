// Device facts and the nvidia-smi topo -m equivalent (facts.hpp).
#include <cstdio>

#include "facts.hpp"
#include "nvml_loader.hpp"

namespace probe {
namespace {

std::string bus_id_of(int dev) {
  char buf[32] = {};
  PROBE_CUDA(cudaDeviceGetPCIBusId(buf, sizeof buf, dev));
  return buf;
}

int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  PROBE_CUDA(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

Json one_device(int dev, const std::string& bus) {
  cudaDeviceProp p{};
  PROBE_CUDA(cudaGetDeviceProperties(&p, dev));
  Json d = Json::object();
  d["index"] = dev;
  d["name"] = p.name;
  d["pci_bus_id"] = bus;
  d["compute_capability"] = std::to_string(p.major) + "." + std::to_string(p.minor);
  d["sm_count"] = p.multiProcessorCount;
  d["memory_bytes"] = static_cast<double>(p.totalGlobalMem);
  d["l2_bytes"] = p.l2CacheSize;
  d["memory_bus_width_bits"] = attr(cudaDevAttrGlobalMemoryBusWidth, dev);
  // Clock attributes are in kHz (CUDA runtime API, cudaDevAttrClockRate).
  d["sm_clock_max_MHz_cuda"] = attr(cudaDevAttrClockRate, dev) / 1000;
  d["memory_clock_max_MHz_cuda"] = attr(cudaDevAttrMemoryClockRate, dev) / 1000;
  d["shared_memory_per_sm_bytes"] = static_cast<double>(p.sharedMemPerMultiprocessor);
  const Nvml& nv = Nvml::get();
  void* h = nv.device_by_bus_id(bus);
  d["nvml"] = h != nullptr;
  if (h) {
    d["sm_clock_MHz"] = nv.clock_MHz(h, 1, false);
    d["sm_clock_max_MHz"] = nv.clock_MHz(h, 1, true);
    d["memory_clock_MHz"] = nv.clock_MHz(h, 2, false);
    d["memory_clock_max_MHz"] = nv.clock_MHz(h, 2, true);
    d["power_limit_W"] = nv.power_limit_W(h);
    d["pcie_gen"] = nv.pcie_gen(h, false);
    d["pcie_gen_max"] = nv.pcie_gen(h, true);
    d["pcie_width"] = nv.pcie_width(h, false);
    d["pcie_width_max"] = nv.pcie_width(h, true);
    d["nvlinks_active"] = nv.nvlinks_active(h);
  }
  return d;
}

// nvidia-smi topo -m's legend: the narrowest PCIe element two GPUs share, or NV# for NVLinks.
std::string topo_class(const Nvml& nv, void* a, void* b, const std::string& b_bus) {
  const int links = nv.nvlinks_to(a, b_bus);
  if (links > 0) return "NV" + std::to_string(links);
  switch (nv.common_ancestor(a, b)) {
    case 0:
      return "X";
    case 10:
      return "PIX";
    case 20:
      return "PXB";
    case 30:
      return "PHB";
    case 40:
      return "NODE";
    case 50:
      return "SYS";
    default:
      return "unknown";
  }
}

}  // namespace

std::string shell_output(const std::string& cmd) {
  std::string out;
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return out;
  char buf[4096];
  while (out.size() < 65536 && fgets(buf, sizeof buf, f)) out += buf;
  pclose(f);
  return out;
}

Json device_facts(int ndev, Json& versions) {
  Json facts = Json::object();
  const Nvml& nv = Nvml::get();
  std::string driver = nv.driver_version();
  if (driver.empty()) {
    driver = shell_output("nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1");
    while (!driver.empty() && (driver.back() == '\n' || driver.back() == ' ')) driver.pop_back();
  }
  versions["driver_version"] = driver.empty() ? "unknown" : driver;
  int rt = 0, drv = 0;
  PROBE_CUDA(cudaRuntimeGetVersion(&rt));
  PROBE_CUDA(cudaDriverGetVersion(&drv));
  auto ver = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  versions["cuda_version"] = ver(rt);
  versions["cuda_driver_api_version"] = ver(drv);
  facts["nvml_available"] = nv.ok();
  std::vector<std::string> bus(ndev);
  Json devices = Json::array();
  for (int d = 0; d < ndev; ++d) {
    bus[d] = bus_id_of(d);
    devices.push(one_device(d, bus[d]));
  }
  facts["devices"] = devices;
  Json matrix = Json::array();
  for (int a = 0; a < ndev; ++a) {
    Json row = Json::array();
    for (int b = 0; b < ndev; ++b) {
      void* ha = nv.device_by_bus_id(bus[a]);
      void* hb = nv.device_by_bus_id(bus[b]);
      row.push(a == b ? std::string("X") : nv.ok() ? topo_class(nv, ha, hb, bus[b]) : "unknown");
    }
    matrix.push(row);
  }
  facts["topology_matrix"] = matrix;
  facts["topology_matrix_note"] =
      "GPU x GPU classes of nvidia-smi topo -m from NVML (NV# = NVLinks between the pair; "
      "PIX/PXB/PHB/NODE/SYS = nvmlDeviceGetTopologyCommonAncestor)";
  facts["nvidia_smi_topo_m"] = shell_output("nvidia-smi topo -m");
  return facts;
}

}  // namespace probe
