// Catalog choices shared by the importers (import_common.hpp).
#include "io/import_common.hpp"

#include <cmath>
#include <filesystem>

#include "io/json_reader.hpp"
#include "io/utf8.hpp"
#include "topoplan/error.hpp"
#include "topoplan/hardware.hpp"

namespace topoplan::detail {

PcieChoice pcie_for_rate(double GTps, int lanes) {
  PcieChoice c;
  c.lanes = lanes > 0 ? lanes : 16;  // NCCL treats width 0 as x16 (nccl-model.md §1.3)
  struct Gen {
    double GTps;
    const char* type;
    double lane_GBps;  // only for generations the catalog lacks
  };
  // Gen1/Gen2 use 8b/10b coding: 2.5 GT/s → 0.25 GB/s per lane, 5 → 0.5 (PCIe base spec).
  static const Gen kGens[] = {{2.5, "pcie3", 0.25}, {5, "pcie3", 0.5}, {8, "pcie3", 0},
                              {16, "pcie4", 0},     {32, "pcie5", 0},  {64, "pcie6", 0}};
  for (const Gen& g : kGens) {
    if (std::abs(GTps - g.GTps) < 0.05) {
      c.type = g.type;
      c.bw_GBps = g.lane_GBps * c.lanes;
      return c;
    }
  }
  return c;
}

double pcie_rate_of(const std::string& type) {
  if (type == "pcie3") return 8;
  if (type == "pcie4") return 16;
  if (type == "pcie5") return 32;
  if (type == "pcie6") return 64;
  return 0;
}

CpuChoice cpu_for(const std::string& arch, const std::string& vendor, int family, int model) {
  // Thresholds of NCCL topo.h / ncclTopoGetInterCpuBw (nccl-model.md §1.3).
  if (vendor == "GenuineIntel") {
    if (family == 6 && model >= 0xCF) return {"Intel Xeon Emerald Rapids", "upi-emr", 0, ""};
    if (family == 6 && model >= 0x8F) return {"Intel Xeon Sapphire Rapids", "upi", 0, ""};
    if (family == 6 && model >= 0x55) return {"Intel Xeon Skylake", "qpi-skl", 0, ""};
    // BDW_QPI_BW 6 GB/s has no catalog type: qpi-skl with NCCL's figure.
    return {"Intel Xeon Broadwell or older", "qpi-skl", 6.0, ""};
  }
  if (vendor == "AuthenticAMD") {
    const char* name = family == 23   ? "AMD EPYC Zen 2 (Rome)"
                       : family == 25 ? "AMD EPYC Zen 3/4 (Milan/Genoa)"
                                      : "AMD EPYC";
    return {name, "xgmi", 0, ""};
  }
  if (arch == "arm64") return {"NVIDIA Grace / Arm", "", 0, ""};
  if (arch == "ppc64") return {"IBM POWER", "", 0, ""};
  return {"unknown CPU (" + (vendor.empty() ? std::string("no vendor") : vendor) + ")", "upi", 0,
          "CPU vendor/model not given: inter-socket link assumed Intel UPI (upi, 22 GB/s)"};
}

std::string nic_for_speed(double GBps) {
  for (const NicSpec& n : Catalog::builtin().nics())
    if (std::abs(n.GBps - GBps) <= 0.01 * n.GBps) return n.name;
  return "";
}

int add_catalog_link(Topology& t, int a, int b, const std::string& type, int count,
                     double bw_GBps) {
  const LinkSpec& spec = Catalog::builtin().link(type);
  Link l;
  l.a = a;
  l.b = b;
  l.kind = spec.kind;
  l.type = type;
  l.count = count;
  l.bw_GBps = bw_GBps > 0 ? bw_GBps : count * spec.GBps;
  l.efficiency = spec.efficiency;
  l.latency_us = spec.latency_us;
  return t.add_link(std::move(l));
}

int add_server_device(Topology& t, DeviceType type, const std::string& id,
                      const std::string& model) {
  int same = 0;
  for (std::size_t i = 0; i < t.device_count(); ++i)
    same += t.device(static_cast<int>(i)).type == type ? 1 : 0;
  Device d;
  d.id = id;
  d.type = type;
  d.model = model;
  d.node = 0;
  d.local_index = same;
  return t.add_device(std::move(d));
}

void connect_cpus(Topology& t, const std::vector<int>& cpus, const CpuChoice& cpu) {
  if (cpu.link.empty()) return;
  for (std::size_t i = 0; i < cpus.size(); ++i)
    for (std::size_t j = i + 1; j < cpus.size(); ++j)
      add_catalog_link(t, cpus[i], cpus[j], cpu.link, 1, cpu.bw_GBps);
}

std::string imported_name(const std::string& given, const std::string& source) {
  if (!given.empty()) {
    if (!io::is_utf8(given))
      throw FieldError("name", "'" + io::utf8_or_replaced(given) + "' is not UTF-8 text");
    return given;
  }
  const std::string stem = std::filesystem::path(source).stem().string();
  if (!io::is_utf8(stem))
    throw FieldError("name", "not given, and the file name '" + io::utf8_or_replaced(stem) +
                                 "' that would name the topology is not UTF-8 text");
  return stem;
}

std::string imported_description(const std::string& kind, const std::string& source) {
  return "imported from " + kind + " " + io::utf8_or_replaced(source);
}

}  // namespace topoplan::detail
