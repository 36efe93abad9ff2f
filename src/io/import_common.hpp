// Helpers shared by the NCCL XML and nvidia-smi importers: catalog choices made from what the
// tools report (PCIe rate, NIC speed, CPU identity). Private to src/io.
#pragma once

#include <string>
#include <vector>

#include "topoplan/topology.hpp"

namespace topoplan::detail {

// A PCIe link of `lanes` lanes at `GTps` GT/s per lane: the catalog type of that generation
// (8 → pcie3, 16 → pcie4, 32 → pcie5, 64 → pcie6) and, for Gen1/Gen2 which the catalog lacks,
// pcie3 with bw_GBps set to the slower rate (2.5 GT/s → 0.25 GB/s per lane, 5 → 0.5; 8b/10b).
struct PcieChoice {
  std::string type;
  int lanes = 16;
  double bw_GBps = 0;  // 0: count × catalog GBps
};
// Returns nullopt-like empty type for a rate that is no PCIe generation.
PcieChoice pcie_for_rate(double GTps, int lanes);
// The PCIe generation's GT/s of a catalog type ("pcie5" → 32); 0 if not PCIe.
double pcie_rate_of(const std::string& type);

// CPU identity → display model and the catalog inter-socket link (docs/importers.md table):
// Intel family 6 model ≥ 0xCF Emerald Rapids (upi-emr), ≥ 0x8F Sapphire Rapids (upi),
// ≥ 0x55 Skylake..Ice Lake (qpi-skl); AMD (xgmi); NCCL's topo.h thresholds.
struct CpuChoice {
  std::string model;
  std::string link;    // empty: no catalog link (ARM, POWER)
  double bw_GBps = 0;  // override where the catalog figure is not NCCL's (Broadwell 6 GB/s)
  std::string note;    // non-empty when something was assumed
};
CpuChoice cpu_for(const std::string& arch, const std::string& vendor, int family, int model);

// The catalog NIC whose line rate is `GBps` (first in catalog order), or "" when none.
std::string nic_for_speed(double GBps);

// Adds a link of catalog `type` × count between devices a and b, bandwidth from the catalog
// unless bw_GBps > 0. Throws UnknownNameError for an unknown type.
int add_catalog_link(Topology& t, int a, int b, const std::string& type, int count,
                     double bw_GBps = 0);

// Adds a device with local_index = its order among devices of its type (node 0).
int add_server_device(Topology& t, DeviceType type, const std::string& id,
                      const std::string& model);

// The imported topology's name: `given` (--name) or the stem of `source`. Either must be UTF-8
// text (it is written into topology JSON, whose writer throws on other bytes): FieldError
// "name" otherwise, so a file name that is not UTF-8 asks for --name.
std::string imported_name(const std::string& given, const std::string& source);
// "imported from KIND SOURCE", the path's bytes that are not UTF-8 shown as '?'.
std::string imported_description(const std::string& kind, const std::string& source);

// Connects every pair of CPU devices with the inter-socket link of `cpu`.
void connect_cpus(Topology& t, const std::vector<int>& cpus, const CpuChoice& cpu);

}  // namespace topoplan::detail
