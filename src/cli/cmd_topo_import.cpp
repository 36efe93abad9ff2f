// `topoplan topo import nccl-xml|nvidia-smi FILE|-` and `topoplan topo export nccl-xml TOPO`:
// flags here, the formats in src/io (docs/importers.md).
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/topology_options.hpp"
#include "io/output_file.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology_import.hpp"

namespace topoplan::cli {
namespace {

struct ImportArgs {
  std::string format;  // nccl-xml | nvidia-smi
  std::string input;   // file or "-"
  std::string output;  // empty: stdout
  ImportOptions options;
  TopologyOptions topo;  // export
  int nodes = 1;         // export: refused above 1 (NCCL's XML is one server's)
};

// stdin has the same 256 MiB bound as a file (`yes | topoplan topo import nvidia-smi -` ends).
std::string read_input(const std::string& path) {
  if (path != "-") return read_text_file(path);
  return read_text_stream(std::cin, "<stdin>");
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  topoplan::detail::write_output_file(path, text);
  // As `topo render` says what it wrote (stdout stays the file's when there is no -o).
  std::cout << "wrote " << path << " (" << text.size() << " bytes)\n";
}

int run_import(const ImportArgs& a) {
  const std::string source = a.input == "-" ? "<stdin>" : a.input;
  const std::string text = read_input(a.input);
  ImportOptions opt = a.options;
  if (opt.name.empty() && a.input == "-") opt.name = "imported";
  const ImportedTopology imp = a.format == "nccl-xml" ? import_nccl_topology_xml(text, source, opt)
                                                      : import_nvidia_smi_topo(text, source, opt);
  for (const std::string& n : imp.notes) std::cerr << "topoplan: note: " << n << "\n";
  // A graph the planner would refuse is not written (it would be a file topoplan then refuses,
  // and `-o` may name the input itself): every problem is named, exit 2, the target untouched.
  const std::vector<Diagnostic> problems = imp.topology.validate();
  for (const Diagnostic& d : problems)
    std::cerr << "topoplan: " << source << ": " << d.location << ": " << d.message << "\n";
  if (!problems.empty()) {
    std::cerr << "topoplan: " << source << ": not written: the imported topology is not valid\n";
    return 2;
  }
  write_output(a.output, write_topology_json(imp.topology));
  return 0;
}

int run_export(const ImportArgs& a) {
  if (a.nodes != 1)
    throw InputError("--nodes", "",
                     "NCCL's topology XML describes one server (each node reads its own "
                     "NCCL_TOPO_FILE): export the server, `topoplan topo export nccl-xml " +
                         a.topo.topology + "`, and give every node that file");
  write_output(a.output, export_nccl_topology_xml(load_topology(a.topo)));
  return 0;
}

}  // namespace

void add_topo_import_subcommands(CLI::App& topo, Action& action) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* imp = topo.add_subcommand(
      "import", "read NCCL topology XML or `nvidia-smi topo -m` output into topology JSON");
  imp->add_option("FORMAT", args->format, "nccl-xml | nvidia-smi")
      ->required()
      ->check(CLI::IsMember({"nccl-xml", "nvidia-smi"}));
  imp->add_option("FILE", args->input, "input file, or - for stdin")->required();
  imp->add_option("-o,--output", args->output, "topology JSON to write (default: stdout)");
  imp->add_option("--gpu", args->options.gpu_model,
                  "GPU model of every GPU (catalog name or alias, e.g. H100 or 'NVIDIA H20')");
  imp->add_option("--nic", args->options.nic_model, "NIC model of every NIC (e.g. ConnectX-7)");
  imp->add_option("--name", args->options.name, "topology name (default: the file name)");
  add_example(*imp,
              "topoplan topo import nccl-xml topologies/samples/nccl-xml/hgx-h100-8.xml "
              "-o my-server.json");
  imp->callback([&action, args] { action = [args] { return run_import(*args); }; });

  CLI::App* exp = topo.add_subcommand("export", "write a topology as NCCL topology XML");
  exp->add_option("FORMAT", args->format, "nccl-xml")
      ->required()
      ->check(CLI::IsMember({"nccl-xml"}));
  exp->add_option("TOPO", args->topo.topology, "built-in topology name or JSON file")->required();
  exp->add_option("-o,--output", args->output, "XML file to write (default: stdout)");
  exp->add_option("--nodes", args->nodes,
                  "servers: NCCL's XML is one server's, so only 1 (the default) is accepted");
  add_example(*exp, "topoplan topo export nccl-xml hgx-h100-8 -o hgx-h100-8.xml");
  exp->callback([&action, args] { action = [args] { return run_export(*args); }; });
}

}  // namespace topoplan::cli
