// NVML entry points resolved at run time (nvml_loader.hpp says why).
#include "nvml_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace probe {
namespace {

constexpr unsigned kMaxNvLinks = 18;  // NVML_NVLINK_MAX_LINKS: 18 on Hopper (H100/H200 SXM)

template <class F>
F sym(void* lib, const char* name) {
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}

}  // namespace

std::string normalize_bus_id(const std::string& id) {
  std::string s = id;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  // cudaDeviceGetPCIBusId gives "0000:1B:00.0"; NVML's v2 form has an 8-digit domain.
  const auto colon = s.find(':');
  if (colon != std::string::npos && colon < 8) s = std::string(8 - colon, '0') + s;
  return s;
}

Nvml::Nvml() {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  auto init = sym<int (*)()>(lib_, "nvmlInit_v2");
  ok_ = init && init() == 0;
}

Nvml& Nvml::get() {
  static Nvml n;
  return n;
}

std::string Nvml::driver_version() const {
  auto f = sym<int (*)(char*, unsigned)>(lib_, "nvmlSystemGetDriverVersion");
  char buf[96] = {};
  return ok_ && f && f(buf, sizeof buf) == 0 ? std::string(buf) : std::string();
}

void* Nvml::device_by_bus_id(const std::string& bus_id) const {
  auto f = sym<int (*)(const char*, void**)>(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
  void* d = nullptr;
  return ok_ && f && f(normalize_bus_id(bus_id).c_str(), &d) == 0 ? d : nullptr;
}

int Nvml::pcie_gen(void* d, bool max) const {
  auto f = sym<int (*)(void*, unsigned*)>(
      lib_, max ? "nvmlDeviceGetMaxPcieLinkGeneration" : "nvmlDeviceGetCurrPcieLinkGeneration");
  unsigned v = 0;
  return d && f && f(d, &v) == 0 ? static_cast<int>(v) : -1;
}

int Nvml::pcie_width(void* d, bool max) const {
  auto f = sym<int (*)(void*, unsigned*)>(
      lib_, max ? "nvmlDeviceGetMaxPcieLinkWidth" : "nvmlDeviceGetCurrPcieLinkWidth");
  unsigned v = 0;
  return d && f && f(d, &v) == 0 ? static_cast<int>(v) : -1;
}

int Nvml::clock_MHz(void* d, int type, bool max) const {
  auto f = sym<int (*)(void*, int, unsigned*)>(
      lib_, max ? "nvmlDeviceGetMaxClockInfo" : "nvmlDeviceGetClockInfo");
  unsigned v = 0;
  return d && f && f(d, type, &v) == 0 ? static_cast<int>(v) : -1;
}

int Nvml::power_limit_W(void* d) const {
  auto f = sym<int (*)(void*, unsigned*)>(lib_, "nvmlDeviceGetPowerManagementLimit");
  unsigned mw = 0;
  return d && f && f(d, &mw) == 0 ? static_cast<int>(mw / 1000) : -1;
}

int Nvml::nvlinks_to(void* d, const std::string& peer_bus_id) const {
  auto state = sym<int (*)(void*, unsigned, int*)>(lib_, "nvmlDeviceGetNvLinkState");
  auto remote =
      sym<int (*)(void*, unsigned, NvmlPci*)>(lib_, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  if (!d || !state || !remote) return -1;
  const std::string want = normalize_bus_id(peer_bus_id);
  int n = 0;
  for (unsigned l = 0; l < kMaxNvLinks; ++l) {
    int active = 0;
    NvmlPci pci{};
    if (state(d, l, &active) != 0 || !active || remote(d, l, &pci) != 0) continue;
    if (normalize_bus_id(pci.bus_id) == want) ++n;
  }
  return n;
}

int Nvml::nvlinks_active(void* d) const {
  auto state = sym<int (*)(void*, unsigned, int*)>(lib_, "nvmlDeviceGetNvLinkState");
  if (!d || !state) return -1;
  int n = 0;
  for (unsigned l = 0; l < kMaxNvLinks; ++l) {
    int active = 0;
    if (state(d, l, &active) == 0 && active) ++n;
  }
  return n;
}

int Nvml::common_ancestor(void* a, void* b) const {
  auto f = sym<int (*)(void*, void*, int*)>(lib_, "nvmlDeviceGetTopologyCommonAncestor");
  int level = -1;
  return a && b && f && f(a, b, &level) == 0 ? level : -1;
}

}  // namespace probe
