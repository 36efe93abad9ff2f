// Hardware catalog: GPUs, link types and NICs with their datasheet figures. The data lives in
// topologies/catalog/*.json (embedded); every number there carries a "source" field.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace topoplan {

// What a link physically is. Maps to NCCL's link types NVL, PCI, C2C, SYS and NET.
enum class LinkKind { NVLink, PCIe, C2C, CpuLink, Network };
std::string_view to_string(LinkKind kind);

struct GpuSpec {
  std::string name;         // catalog key, e.g. "H20"
  std::string vendor_name;  // e.g. "NVIDIA H20 96GB"
  // Other names that resolve to this entry: short names ("H100") and the names tools print
  // (nvidia-smi, NCCL XML, torch: "NVIDIA H100 80GB HBM3"). Matched ignoring case and spacing.
  std::vector<std::string> aliases;
  // PCI device ids (vendor 0x10de) of this part, as NCCL's topology XML records them ("device").
  std::vector<int> pci_device_ids;
  int sm_version = 0;  // compute capability × 10 (80 Ampere, 89 Ada, 90 Hopper, 100 Blackwell)
  double memory_bytes = 0;  // HBM/GDDR capacity (GB = 1e9 unless the datasheet says GiB)
  // Capacity the driver exposes (nvidia-smi "Total"); 0 when no reading is known. Marketing
  // "80 GB"/"96 GB" parts expose more than 80e9/96e9 bytes (H100: 81,559 MiB = 85.5e9 B).
  double memory_usable_bytes = 0;
  double hbm_GBps = 0;     // peak memory bandwidth
  double bf16_TFLOPS = 0;  // dense peak, no sparsity
  double fp16_TFLOPS = 0;  // dense peak (fp32 accumulate)
  double fp8_TFLOPS = 0;   // 0 when the GPU has no FP8 tensor cores
  double int8_TOPS = 0;
  double fp4_TFLOPS = 0;    // 0 when unsupported
  std::string nvlink_type;  // catalog link type of one NVLink ("nvlink4"), empty when none
  int nvlink_count = 0;     // NVLinks per GPU
  double nvlink_GBps = 0;   // total NVLink bandwidth per direction per GPU
  std::string pcie_type;    // catalog link type per lane ("pcie5")
  int pcie_lanes = 16;
  double power_W = 0;
  // Streaming multiprocessors (catalog "sm_count"; 0 when not given). An overlapped NCCL kernel
  // holds one SM per channel for its whole run (training: docs/training.md, "SM share").
  int sm_count = 0;
  // The driver allows GPU peer-to-peer (CUDA P2P over NVLink or PCIe). False for GeForce cards:
  // GPU-to-GPU traffic then goes through host memory (NCCL's SHM transport). Source in the
  // catalog's "p2p_source".
  bool p2p = true;
  std::string source;  // where the figures come from
  // Catalog fields ("power_W", "hbm_GBps", ...) whose value is not public: an assumption that
  // `source` explains. Outputs that rest on them say so (assumed_figures_note).
  std::vector<std::string> assumed;

  // The capacity a framework can allocate from: the driver's total when known, else the datasheet.
  double usable_memory_bytes() const {
    return memory_usable_bytes > 0 ? memory_usable_bytes : memory_bytes;
  }
};

// "Ascend-910C: power_W, pcie_type not public (assumed; the catalog source says why)", or "" when
// every figure of `gpu` is published. One line for topo show, topo gpus and plan notes.
std::string assumed_figures_note(const GpuSpec& gpu);

struct LinkSpec {
  std::string name;  // catalog key, e.g. "nvlink4", "pcie5", "ib-ndr400", "upi"
  LinkKind kind = LinkKind::PCIe;
  double GBps = 0;  // nominal per direction for ONE unit (one NVLink, one PCIe lane, one port)
  // Achieved fraction of GBps for bulk transfers (1.0 when no source gives one).
  double efficiency = 1.0;
  // One traversal of this link (including the switch behind it where stated).
  double latency_us = 0;
  std::string source;
};

struct NicSpec {
  std::string name;       // "ConnectX-7"
  double GBps = 0;        // line rate per direction (400 Gb/s → 50 GB/s)
  std::string port_link;  // catalog link type of its network port ("ib-ndr400")
  std::string pcie_type;  // host interface ("pcie5")
  int pcie_lanes = 16;
  std::string source;
};

// The built-in catalog, parsed once from the embedded topologies/catalog/*.json.
class Catalog {
 public:
  static const Catalog& builtin();

  // Lookups throw UnknownNameError with "did you mean" suggestions on a miss. A GPU is found by
  // its catalog name, or else by a name or alias compared ignoring case and repeated spaces.
  const GpuSpec& gpu(const std::string& name) const;
  const LinkSpec& link(const std::string& name) const;
  const NicSpec& nic(const std::string& name) const;
  const GpuSpec* find_gpu(const std::string& name) const;  // nullptr on a miss
  const LinkSpec* find_link(const std::string& name) const;
  const NicSpec* find_nic(const std::string& name) const;
  const GpuSpec* find_gpu_by_pci_id(int device_id) const;  // nullptr when no entry lists it

  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  const std::vector<LinkSpec>& links() const { return links_; }
  const std::vector<NicSpec>& nics() const { return nics_; }

  // Builds a catalog from JSON texts (used by builtin() and by tests). Throws InputError naming
  // `source` and the JSON pointer of a bad field.
  static Catalog parse(const std::string& gpus_json, const std::string& links_json,
                       const std::string& nics_json, const std::string& source);

  // This catalog plus the GPUs, links and NICs of `catalog_json`, an object {"gpus": [...],
  // "links": [...], "nics": [...]} (each optional) whose entries have the fields of
  // topologies/catalog/*.json (a topology file's own hardware, docs/topology-format.md). A name
  // this catalog already has is an error. Errors name `source` and the JSON pointer below
  // `pointer` ("/catalog/gpus/0/hbm_GBps").
  Catalog extended(const std::string& catalog_json, const std::string& source,
                   const std::string& pointer) const;
  // The JSON text that extended() added (so a writer can save it again); "" for the built-in.
  const std::string& extension_json() const { return extension_json_; }

 private:
  void check_references(std::size_t first_gpu, std::size_t first_nic, const std::string& gfile,
                        const std::string& gptr, const std::string& nfile,
                        const std::string& nptr) const;

  std::vector<GpuSpec> gpus_;
  std::vector<LinkSpec> links_;
  std::vector<NicSpec> nics_;
  std::string extension_json_;
};

}  // namespace topoplan
