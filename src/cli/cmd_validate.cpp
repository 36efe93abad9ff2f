// `topoplan validate` and `topoplan calibrate`: measurements in (nccl-tests logs; topoplan-probe
// results through --probe, cmd_validate_probe.cpp), model comparison and fitted constants out
// (docs/calibration.md, docs/probe.md).
#include <cctype>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/calibration_option.hpp"
#include "cli/cmd_validate_probe.hpp"
#include "cli/commands.hpp"
#include "cli/topology_options.hpp"
#include "io/output_file.hpp"
#include "report/validate_report.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/nccl_tests.hpp"
#include "topoplan/probe.hpp"

namespace topoplan::cli {
namespace {

struct ValidateArgs {
  TopologyOptions topo;
  std::vector<std::string> nccl_tests;  // input kind 1: nccl-tests text or -J JSON
  ProbeOptions probe;                   // input kind 2: topoplan-probe results (validate only)
  std::string calibration;
  std::string op, algo = "auto", proto = "auto";
  std::string output;
  bool in_place = false;
  bool no_nvls = false;
  bool json = false;
};

// nccl-tests logs from --nccl-tests files and from the nccl section of --probe results (the
// probe writes each NCCL sweep as an nccl-tests text log inside its JSON, docs/probe.md).
std::vector<NcclTestsLog> read_logs(const ValidateArgs& a) {
  std::optional<CollOp> op;
  if (!a.op.empty()) op = parse_coll_op(a.op);
  std::vector<NcclTestsLog> logs;
  for (const std::string& path : a.nccl_tests)
    logs.push_back(parse_nccl_tests_log(read_text_file(path), path, op));
  for (const std::string& path : a.probe.files)
    for (const auto& [source, text] : parse_probe_file(read_text_file(path), path).nccl_logs) {
      NcclTestsLog log = parse_nccl_tests_log(text, source, op);
      // A one-rank run (--nccl-min-ranks 1 on a one-GPU machine) only exercises the probe's
      // code: nothing crosses a link, so there is nothing to compare.
      if (log.ranks >= 2)
        logs.push_back(std::move(log));
      else
        std::cerr << "topoplan: " << source << ": one rank, skipped (nothing crosses a link)\n";
    }
  if (logs.empty() && a.probe.files.empty())
    throw InputError("--nccl-tests", "",
                     "give at least one nccl-tests log (text or -J JSON) or, for validate, "
                     "--probe FILE");
  if (logs.empty())
    throw InputError(a.probe.files.front(), "",
                     "the probe result has no NCCL runs over 2 or more GPUs (a probe of one GPU "
                     "has none)");
  if (a.topo.topology.empty())
    throw InputError("--topology", "", "required with --nccl-tests (the machine of the logs)");
  return logs;
}

// The runs' NCCL settings: the flags, else what a probe recorded of its environment (issue 28: a
// probe run with NCCL_NVLS_ENABLE=0 fitted NVLS's efficiency from ring rows).
CollectiveOptions options_of(const ValidateArgs& a) {
  CollectiveOptions o;
  std::string algo = a.algo;
  bool no_nvls = a.no_nvls;
  for (const std::string& path : a.probe.files) {
    const ProbeResult p = parse_probe_file(read_text_file(path), path);
    if (p.nccl_logs.empty()) continue;
    if (!no_nvls && p.nccl_nvls_enable == "0") {
      no_nvls = true;
      std::cerr << "topoplan: " << path << ": the runs had NCCL_NVLS_ENABLE=0: NVLS left out\n";
    }
    if (algo == "auto" && !p.nccl_algo.empty()) {
      algo = p.nccl_algo;
      for (char& c : algo) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::cerr << "topoplan: " << path << ": the runs had NCCL_ALGO=" << p.nccl_algo
                << ": priced as --algo " << algo << "\n";
    }
  }
  o.algorithm = parse_algorithm(algo);
  o.protocol = parse_protocol(a.proto);
  o.allow_nvls = !no_nvls;
  return o;
}

int run_validate(const ValidateArgs& a) {
  if (!a.probe.files.empty()) {
    const int rc = run_validate_probe(a.probe, a.json);
    // Kernels and host links need no topology; the probe's NCCL runs are checked against one.
    if (a.nccl_tests.empty() && a.topo.topology.empty()) return rc;
  }
  const std::vector<NcclTestsLog> logs = read_logs(a);
  const std::unique_ptr<CommSetup> owned = comm_setup(a.topo, a.calibration);
  const CommSetup& setup = *owned;
  std::vector<ValidationRow> rows;
  for (const NcclTestsLog& log : logs) {
    if (const std::string why = log_gpu_mismatch(setup.topology, log); !why.empty())
      std::cerr << "topoplan: note: " << log.source << ": " << why
                << ": the errors below compare different GPUs\n";
    const auto r = validate_log(setup.model(), log, options_of(a), a.in_place);
    rows.insert(rows.end(), r.begin(), r.end());
  }
  report::print_validate(std::cout,
                         {setup.topology.name, a.calibration.empty() ? "built-in" : a.calibration},
                         rows, a.json);
  return 0;
}

int run_calibrate(const ValidateArgs& a) {
  const std::vector<NcclTestsLog> logs = read_logs(a);
  const std::unique_ptr<CommSetup> owned = comm_setup(a.topo, a.calibration);
  const CommSetup& setup = *owned;
  // Constants fitted to another GPU's log would be written for this one.
  for (const NcclTestsLog& log : logs)
    if (const std::string why = log_gpu_mismatch(setup.topology, log); !why.empty())
      throw InputError(log.source, "", why + ": calibrate on a topology of the GPU it ran on");
  const CommCalibration c = calibrate_comm(setup.model(), logs, options_of(a));
  std::string logs_text;
  for (const auto* files : {&a.nccl_tests, &a.probe.files})
    for (const std::string& l : *files) logs_text += (logs_text.empty() ? "" : ", ") + l;
  const std::string text = write_comm_calibration(
      c, "fitted by topoplan calibrate on topology " + setup.topology.name + " from " + logs_text);
  if (a.output.empty()) {
    std::cout << text;
    return 0;
  }
  topoplan::detail::write_output_file(a.output, text);
  report::print_calibrate(std::cout, c, a.output);
  return 0;
}

CLI::App* add_common(CLI::App& app, const char* name, const char* help,
                     std::shared_ptr<ValidateArgs> a) {
  CLI::App* cmd = app.add_subcommand(name, help);
  cmd->add_option("--topology", a->topo.topology,
                  "built-in topology or JSON file (required with --nccl-tests)");
  add_cluster_flags(*cmd, a->topo);
  cmd->add_option("--nccl-tests", a->nccl_tests, "nccl-tests output files (text or -J JSON)")
      ->expected(1, -1);
  add_calibration_option(*cmd, a->calibration);
  cmd->add_option("--op", a->op, "collective of every log when the log does not say");
  cmd->add_option("--algo", a->algo, "algorithm the run was forced to (NCCL_ALGO), default auto");
  cmd->add_option("--proto", a->proto, "protocol the run was forced to (NCCL_PROTO)");
  cmd->add_flag("--no-nvls", a->no_nvls, "the run had NCCL_NVLS_ENABLE=0");
  return cmd;
}

}  // namespace

void add_validate_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<ValidateArgs>();
  CLI::App* v = add_common(
      app, "validate", "measured (nccl-tests) vs predicted time per op and size, with errors", a);
  v->add_flag("--in-place", a->in_place, "compare the in-place columns (default out-of-place)");
  v->add_flag("--json", a->json, "print JSON");
  add_probe_options(*v, a->probe);
  add_example(*v,
              "topoplan validate --topology hgx-h100-8 --nccl-tests "
              "topologies/samples/nccl-tests/h100-8-all_reduce_ring.log --algo ring");
  v->callback([&action, a] { action = [a] { return run_validate(*a); }; });
  auto c = std::make_shared<ValidateArgs>();
  CLI::App* cal =
      add_common(app, "calibrate", "fit efficiency and latency constants to nccl-tests logs", c);
  cal->add_option("--probe", c->probe.files,
                  "topoplan-probe results: their NCCL runs are fitted like nccl-tests logs")
      ->expected(1, -1);
  cal->add_option("-o,--output", c->output, "calibration file to write (default: stdout)");
  add_example(*cal,
              "topoplan calibrate --topology hgx-h100-8 --nccl-tests "
              "topologies/samples/nccl-tests/h100-8-all_reduce_ring.log --algo ring -o h100.json");
  cal->callback([&action, c] { action = [c] { return run_calibrate(*c); }; });
}

}  // namespace topoplan::cli
