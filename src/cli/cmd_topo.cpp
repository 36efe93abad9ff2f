// `topoplan topo list|show|paths|validate`: flags here, figures from route/, text from report/.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/keep_until_exit.hpp"
#include "cli/topology_options.hpp"
#include "report/gpu_report.hpp"
#include "report/topo_nic_report.hpp"
#include "report/topo_report.hpp"
#include "topoplan/cluster_shape.hpp"
#include "topoplan/error.hpp"
#include "topoplan/hardware.hpp"
#include "topoplan/route.hpp"

namespace topoplan::cli {

namespace {

// Past this many GPUs `topo paths` shows the first kDefaultPathGpus unless --gpus says otherwise.
constexpr int kFullMatrixGpus = 72;
constexpr int kDefaultPathGpus = 16;

// Past this many GPUs `topo show --json` of a generated cluster lists one server's devices and
// links instead of every one (130 MB at 100,000 GPUs): 2,048 HGX servers, the largest size whose
// topology JSON issue 32 keeps as it was. --device-list writes them all at any size.
constexpr std::size_t kDeviceListGpus = 16384;

struct TopoArgs {
  TopologyOptions topo;
  bool json = false;
  bool device_list = false;
  int gpus = 0;
};

int run_list(const TopoArgs& a) {
  std::vector<report::TopoListEntry> entries;
  for (const std::string& name : builtin_topology_names()) {
    const Topology t = topoplan::load_topology(name);
    Router router(t);
    const TopologySummary s = summarize(router, false);
    entries.push_back({name, s.gpus, s.nodes, s.gpu_model, s.nvlink_domain, t.description});
  }
  report::print_topo_list(std::cout, entries, a.json);
  return 0;
}

int run_show(const TopoArgs& a) {
  if (a.topo.cluster.nodes > 1) {
    // A generated cluster is summarised from its server and fabric shape (issue 32); it is
    // built only when the JSON is to list every device.
    const ClusterOptions o = cluster_options(a.topo);
    const Topology server = load_cluster_server(a.topo);
    const TopologySummary s = summarize_cluster(server, o);
    const bool lists =
        a.json && (a.device_list || static_cast<std::size_t>(s.gpus) <= kDeviceListGpus);
    if (!lists) {
      report::print_topo_show(
          std::cout, report::show_source(cluster_shape(server, o), server, kDeviceListGpus), s,
          a.json);
      return 0;
    }
    const KeptToExit<Topology> t(std::make_unique<Topology>(load_topology(a.topo)));
    report::print_topo_show(std::cout, report::show_source(*t), s, a.json);
    return 0;
  }
  // Kept to the end of the process (keep_until_exit.hpp).
  const KeptToExit<Topology> t(std::make_unique<Topology>(load_topology(a.topo)));
  const KeptToExit<Router> router(std::make_unique<Router>(*t));
  report::print_topo_show(std::cout, report::show_source(*t), summarize(*router), a.json);
  return 0;
}

int run_paths(const TopoArgs& a) {
  const Topology t = load_topology(a.topo);
  Router router(t);
  std::vector<int> gpus = t.gpus();
  const std::size_t total = gpus.size();
  std::size_t keep = a.gpus > 0                ? static_cast<std::size_t>(a.gpus)
                     : total > kFullMatrixGpus ? kDefaultPathGpus
                                               : total;
  if (keep < total) {
    gpus.resize(keep);
    if (!a.json) std::cout << "(first " << keep << " of " << total << " GPUs; see --gpus)\n";
  }
  std::vector<int> nics;
  for (int g : gpus) nics.push_back(router.nic_of_gpu(g));
  report::print_topo_paths(std::cout, t, gpu_path_matrix(router, gpus), nics, a.json);
  if (!a.json) report::print_smi_matrix(std::cout, router, gpus);
  return 0;
}

int run_validate(const TopoArgs& a) {
  // Not cli::load_topology, which stops at the first problem: validate lists them all. A file
  // that does not load (bad JSON, an unknown type) is one problem; under --json it is reported
  // as such rather than as a bare error, so a script reads the same document either way.
  std::vector<Diagnostic> diagnostics;
  try {
    const Topology t = topoplan::load_topology(a.topo.topology, cluster_options(a.topo));
    diagnostics = t.validate();
  } catch (const topoplan::InputError& e) {
    if (!a.json) throw;
    diagnostics.push_back({e.location(), e.source() == a.topo.topology
                                             ? e.detail()
                                             : e.source() + ": " + e.detail()});
  }
  report::print_topo_validate(std::cout, a.topo.topology, diagnostics, a.json);
  return diagnostics.empty() ? 0 : 2;
}

int run_gpus(const TopoArgs& a) {
  report::print_gpu_list(std::cout, Catalog::builtin(), a.json);
  return 0;
}

CLI::App* add_sub(CLI::App& topo, const char* name, const char* help,
                  std::shared_ptr<TopoArgs> args, int (*run)(const TopoArgs&), Action& action) {
  CLI::App* sub = topo.add_subcommand(name, help);
  add_example(*sub, std::string("topoplan topo ") + name +
                        (std::string(name) == "list" || std::string(name) == "gpus" ? " --json"
                         : std::string(name) == "validate" ? " examples/mini-h20-4.json"
                                                           : " hgx-h100-8 --nodes 2"));
  sub->add_flag("--json", args->json, "print JSON (stable keys, see docs/routing.md)");
  sub->callback([&action, args, run] { action = [args, run] { return run(*args); }; });
  return sub;
}

}  // namespace

void add_topo_command(CLI::App& app, Action& action) {
  CLI::App* topo = app.add_subcommand("topo", "inspect topologies: servers, clusters, paths");
  topo->require_subcommand(1);
  add_example(*topo, "topoplan topo paths hgx-h100-8");
  auto args = std::make_shared<TopoArgs>();
  add_sub(*topo, "list", "built-in topologies with GPU count, GPU model and NVLink domain", args,
          run_list, action);
  add_sub(*topo, "gpus", "the GPU catalog: names for --gpu and topology files, peaks, memory", args,
          run_gpus, action);
  CLI::App* show = add_sub(*topo, "show", "summary: devices, bandwidth per GPU, bisection, fabric",
                           args, run_show, action);
  add_topology_options(*show, args->topo);
  show->add_flag("--device-list", args->device_list,
                 "with --json, list every device and link even past 16,384 GPUs");
  CLI::App* paths =
      add_sub(*topo, "paths", "GPU x GPU path class, GB/s and latency (like nvidia-smi topo -m)",
              args, run_paths, action);
  add_topology_options(*paths, args->topo);
  paths
      ->add_option("--gpus", args->gpus,
                   "show only the first N GPUs (default: all up to 72, else 16)")
      ->check(positive_count());
  CLI::App* validate =
      add_sub(*topo, "validate", "print every problem of a topology (exit 2 if any)", args,
              run_validate, action);
  add_topology_options(*validate, args->topo, "topology JSON file (or built-in name)");
  add_topo_import_subcommands(*topo, action);
  add_topo_render_subcommand(*topo, action);
}

}  // namespace topoplan::cli
