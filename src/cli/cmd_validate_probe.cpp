// validate --probe (cmd_validate_probe.hpp): prices every measured kernel with the compute model
// of the probe's GPU and the host link with the catalog's PCIe figures.
#include "cli/cmd_validate_probe.hpp"

#include <iostream>

#include "report/probe_report.hpp"
#include "report/table.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/probe.hpp"

namespace topoplan::cli {
namespace {

const GpuSpec& gpu_of(const ProbeOptions& o, const ProbeResult& r) {
  const Catalog& c = Catalog::builtin();
  if (!o.gpu.empty()) return c.gpu(o.gpu);
  if (const GpuSpec* g = c.find_gpu(r.gpu_name)) return *g;
  throw InputError(r.source, "/facts/devices/0/name",
                   "GPU '" + r.gpu_name + "' is not in the catalog; name it with --gpu");
}

// Pinned copies cross the GPU's PCIe link: per-lane rate x lanes x the catalog's achieved
// fraction (topologies/catalog/links.json cites the measurement behind it).
report::ProbeHostRow host_row(const GpuSpec& gpu, const ProbeHostLink& h) {
  const LinkSpec& l = Catalog::builtin().link(gpu.pcie_type);
  report::ProbeHostRow row{h.gpu, h.h2d_GBps, h.d2h_GBps, l.GBps * gpu.pcie_lanes * l.efficiency,
                           ""};
  row.link =
      l.name + " x" + std::to_string(gpu.pcie_lanes) + " x " + report::fmt("%.4g", l.efficiency);
  return row;
}

report::ProbeValidation validate_one(const ProbeOptions& o, const std::string& path) {
  const ProbeResult r = parse_probe_file(read_text_file(path), path);
  const GpuSpec& gpu = gpu_of(o, r);
  const ComputeModel cm = ComputeModel::for_gpu(gpu);
  // DeepGEMM points are priced as a plan's `--fp8-block-gemm auto` prices the dense linears.
  const ComputeModel deepgemm = cm.with_fp8_block_gemm(Fp8BlockGemm::Auto);
  report::ProbeValidation v{path,
                            r.gpu_name,
                            gpu.name,
                            cm.provenance(),
                            r.date,
                            r.driver_version,
                            r.cuda_version,
                            r.nccl_version,
                            {},
                            {}};
  for (const MeasuredKernel& k : r.kernels) {
    const ComputeModel& model = k.variant == "fp8_block_deepgemm" ? deepgemm : cm;
    v.rows.push_back({k.op + "/" + k.variant, k.label, k.kernel.m, k.kernel.n, k.kernel.k,
                      k.kernel.groups, k.kernel.bytes, k.measured_us,
                      model.kernel_time_us(k.kernel)});
  }
  if (!gpu.pcie_type.empty())
    for (const ProbeHostLink& h : r.host_links) v.host.push_back(host_row(gpu, h));
  return v;
}

}  // namespace

void add_probe_options(CLI::App& validate, ProbeOptions& o) {
  validate
      .add_option("--probe", o.files, "topoplan-probe result files (tools/probe, docs/probe.md)")
      ->expected(1, -1);
  validate.add_option("--gpu", o.gpu, "catalog GPU of the probe (default: its device name)");
  validate.add_flag("--points", o.points, "with --probe: every measured point, not only summaries");
}

int run_validate_probe(const ProbeOptions& o, bool json) {
  for (const std::string& path : o.files)
    report::print_probe_validation(std::cout, validate_one(o, path), o.points, json);
  return 0;
}

}  // namespace topoplan::cli
