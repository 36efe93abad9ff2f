#include "report/gpu_report.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "report/json_number.hpp"
#include "report/table.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

// "-" for a format the GPU has no tensor cores for (a 0 in the catalog).
std::string tflops(double v) {
  return v > 0 ? fmt("%.0f", v) : "-";
}

nlohmann::ordered_json or_null(double v) {
  return v > 0 ? nlohmann::ordered_json(json_number(v)) : nlohmann::ordered_json(nullptr);
}

}  // namespace

void print_gpu_list(std::ostream& os, const Catalog& catalog, bool json) {
  if (json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const GpuSpec& g : catalog.gpus()) {
      arr.push_back({{"name", g.name},
                     {"vendor_name", g.vendor_name},
                     {"sm_version", g.sm_version},
                     {"memory_bytes", json_number(g.memory_bytes)},
                     {"hbm_GBps", json_number(g.hbm_GBps)},
                     {"bf16_TFLOPS", json_number(g.bf16_TFLOPS)},
                     {"fp8_TFLOPS", or_null(g.fp8_TFLOPS)},
                     {"fp4_TFLOPS", or_null(g.fp4_TFLOPS)},
                     {"nvlink_GBps", or_null(g.nvlink_GBps)}});
      if (!g.assumed.empty()) arr.back()["assumed"] = g.assumed;  // figures not public
    }
    os << nlohmann::ordered_json{{"gpus", arr}}.dump(2) << "\n";
    return;
  }
  Table t({"name", "vendor name", "SM", "memory", "usable", "HBM GB/s", "bf16 TF", "fp8 TF",
           "fp4 TF", "NVLink GB/s"},
          {Align::Left, Align::Left, Align::Right, Align::Right, Align::Right, Align::Right,
           Align::Right, Align::Right, Align::Right, Align::Right});
  // sm_version is a CUDA compute capability on NVIDIA parts only; elsewhere it picks the NCCL
  // tuning rows that stand in for RCCL/HCCL (gpus.json says so per part), so it is not shown.
  bool stand_in = false;
  auto sm_cell = [&stand_in](const GpuSpec& g) {
    if (g.vendor_name.rfind("NVIDIA", 0) == 0) return std::to_string(g.sm_version);
    stand_in = true;
    return std::string("-*");
  };
  for (const GpuSpec& g : catalog.gpus())
    t.add_row({g.name, g.vendor_name, sm_cell(g), format_GiB(g.memory_bytes),
               format_GiB(g.usable_memory_bytes()), fmt("%.0f", g.hbm_GBps), tflops(g.bf16_TFLOPS),
               tflops(g.fp8_TFLOPS), tflops(g.fp4_TFLOPS), tflops(g.nvlink_GBps)});
  t.print(os);
  os << "TFLOPS are dense peaks; '-': no tensor cores for that format (--precision prices it "
        "weight-only). Memory in GiB (2^30 B): the datasheet capacity and the usable one the "
        "planner uses (nvidia-smi's total where known). Sources: docs/hardware-catalog.md.\n";
  if (stand_in)
    os << "SM: CUDA compute capability; -*: not a CUDA GPU (its sm_version in --json only picks "
          "the NCCL tuning rows that stand in for RCCL/HCCL).\n";
  for (const GpuSpec& g : catalog.gpus())
    if (std::string note = assumed_figures_note(g); !note.empty()) os << "Note: " << note << ".\n";
}

}  // namespace topoplan::report
