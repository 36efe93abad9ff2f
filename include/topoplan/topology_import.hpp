// Importers and exporters of the formats other tools write (docs/importers.md):
//   - NCCL topology XML (NCCL_TOPO_DUMP_FILE writes it, NCCL_TOPO_FILE reads it);
//   - `nvidia-smi topo -m` text;
//   - topology JSON out (docs/topology-format.md), so an imported machine can be saved.
#pragma once

#include <string>
#include <vector>

#include "topoplan/topology.hpp"

namespace topoplan {

struct ImportOptions {
  std::string name;       // topology name; empty: derived from the source file name
  std::string gpu_model;  // catalog GPU name or alias for every GPU; empty: from the file
  std::string nic_model;  // catalog NIC name for every NIC; empty: from the link speed
};

// An imported topology and what the importer had to assume (one line each, for stderr).
struct ImportedTopology {
  Topology topology;
  std::vector<std::string> notes;
};

// Parses NCCL topology XML (system / cpu / pci / gpu / nvlink / c2c / nic / net). PCIe bridges
// become PCIe switches (the ports of one switch, nested bridges with the same vendor and device
// id, are merged), NVLinks to NVSwitches one bundle to a single NVSwitch vertex, NVLinks between
// GPUs direct links, NIC speeds pick the catalog NIC, CPU vendor/family/model the inter-socket
// link. Throws InputError(source, "line N", ...) for malformed XML or a GPU whose model cannot
// be told (pass ImportOptions::gpu_model).
ImportedTopology import_nccl_topology_xml(const std::string& text, const std::string& source,
                                          const ImportOptions& options = {});

// Writes one server as NCCL topology XML (version 1) that NCCL_TOPO_FILE accepts. Bus ids are
// synthetic and stable. Throws InputError for a multi-server topology (NCCL_TOPO_FILE describes
// one node).
std::string export_nccl_topology_xml(const Topology& topology);

// Parses `nvidia-smi topo -m` output (GPU/NIC matrix, CPU/NUMA affinity, NIC legend). PIX and
// PXB pairs share PCIe switches, NODE/PHB a CPU, SYS crosses CPUs, NV# are NVLink bundles.
// Throws InputError(source, "line N", ...) on a malformed matrix.
ImportedTopology import_nvidia_smi_topo(const std::string& text, const std::string& source,
                                        const ImportOptions& options = {});

// Topology JSON that parse_topology_json() reads back to the same graph (one entry per device
// and per link; bw_GBps/efficiency/latency_us only where they differ from the catalog).
std::string write_topology_json(const Topology& topology);

}  // namespace topoplan
