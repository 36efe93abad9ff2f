// nccl-tests output (all_reduce_perf, all_gather_perf, ...) as measurements: the text a run prints
// and the file `-J` writes. Sizes, times and bandwidths keep nccl-tests' meaning
// (shared/reference/nccl-model.md §4): size = the whole buffer, time = average µs per iteration,
// algbw = size / time in GB/s, busbw = algbw × busbw_factor(op, ranks).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "topoplan/collective.hpp"

namespace topoplan {

struct CollectiveMeasurement {
  double size_bytes = 0;
  double count = 0;   // elements
  std::string dtype;  // "float", "bfloat16", ...
  bool in_place = false;
  double time_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  int line = 0;  // text: the row's line; JSON: the index in "results"
};

struct NcclTestsLog {
  std::string source;
  std::string program;  // "all_reduce_perf" ("" when the log does not say)
  CollOp op = CollOp::AllReduce;
  int ranks = 0;         // "#  Rank N ..." lines (JSON: "devices"), else nThread × nGpus
  int nodes = 1;         // distinct host names of the ranks
  std::string gpu_name;  // device name of rank 0 ("NVIDIA H100 80GB HBM3"), "" if not printed
  std::vector<CollectiveMeasurement> rows;  // out-of-place and in-place, in file order
};

// Parses nccl-tests text output or its -J JSON (detected by a leading '{'). The operation comes
// from "# Collective test starting: X_perf" (JSON: args[0]), else from `op` if given, else from the
// file name (all_gather_perf.log), else it is an error. Throws InputError(source, "line N" or a
// JSON pointer, ...) on a malformed row, no rows, or rows whose busbw/algbw ratio contradicts the
// operation and rank count (a log of another test or GPU count).
NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& source,
                                  std::optional<CollOp> op = std::nullopt);

}  // namespace topoplan

namespace topoplan {

// One measured row against the model's prediction on the first `ranks` GPUs of the topology.
struct ValidationRow {
  CollOp op = CollOp::AllReduce;
  double size_bytes = 0;
  bool in_place = false;
  double measured_us = 0;
  double predicted_us = 0;
  double rel_error = 0;  // (predicted − measured) / measured
  double measured_busbw_GBps = 0, predicted_busbw_GBps = 0;
  Algorithm algorithm = Algorithm::Ring;  // the model's choice at this size
  Protocol protocol = Protocol::Simple;
  std::string bottleneck_type;  // catalog link type of the model's most loaded link
  double predicted_latency_us = 0;
  std::string source;
  int line = 0;
};

// The GPUs a log ran on: log.ranks / log.nodes GPUs on each of the first log.nodes servers, in
// rank order (mpirun fills hosts in order; a log of 8 ranks on 2 hosts is 4 + 4, not one server's
// 8). Throws InputError when the topology has fewer GPUs or servers than the log, or the ranks
// do not split evenly over the hosts.
std::vector<int> log_group(const Topology& topology, const NcclTestsLog& log);

// Why the log's GPU ("NVIDIA A100-SXM4-80GB") is not the topology's ("H100-SXM"): the catalog
// name's first part ("A100", "H100", "H20") must appear in the log's name as a whole word (H20 is
// not H200). "" when they agree or the log does not name its GPU.
std::string log_gpu_mismatch(const Topology& topology, const NcclTestsLog& log);

// Prices every row of `log` (in-place rows only when `in_place`, else out-of-place ones).
std::vector<ValidationRow> validate_log(const CollectiveModel& model, const NcclTestsLog& log,
                                        const CollectiveOptions& options, bool in_place = false);

// The relative errors' median and worst by magnitude (0 for none).
struct ErrorSummary {
  int rows = 0;
  double median_abs = 0;
  double worst_abs = 0;
  double worst_signed = 0;
};
ErrorSummary summarize_errors(const std::vector<ValidationRow>& rows);

// What calibrate fitted for one (operation, algorithm, protocol) regime of one log:
// measured time = latency_us + size / GBps by least squares (docs/calibration.md).
struct RegimeFit {
  CollOp op = CollOp::AllReduce;
  Algorithm algorithm = Algorithm::Ring;
  Protocol protocol = Protocol::Simple;
  std::string source;
  int rows = 0;
  bool latency_fitted = false;      // false: one size only (or all on the bandwidth plateau)
  double latency_us = 0, GBps = 0;  // the fit
  double model_latency_us = 0, model_GBps = 0;  // the model before calibration
  std::string constant;  // what it adjusts: "link_efficiency/nvlink4", "nvls_efficiency", ...
  double factor = 1;     // model per-byte time ÷ measured per-byte time
};

// One constant calibrate proposed, and whether it was kept: a change is applied only when the
// fitted rows' worst and median |error| do not grow with it (else the old value stays).
struct CalibrationChange {
  std::string constant;  // "link_efficiency/nvlink4", "base_latency_us/ring/Simple", ...
  double before = 0, after = 0;
  bool accepted = false;
  double worst_before = 0, worst_after = 0;  // fitted rows' worst |error| without / with it
  double median_before = 0, median_after = 0;
};

// One measured row priced before and after calibration. Every 4th size of a log with 4 or more
// sizes (sorted, the 4th, 8th, ...) is held out of the fit: its error is on a size not fitted.
struct CalibrationCheck {
  std::string source;
  int line = 0;
  double size_bytes = 0;
  bool held_out = false;
  double measured_us = 0, before_us = 0, after_us = 0;
  Algorithm before_algorithm = Algorithm::Ring, after_algorithm = Algorithm::Ring;
  Protocol before_protocol = Protocol::Simple, after_protocol = Protocol::Simple;
};

// The calibrated constants: a copy of `base` with efficiencies and base latencies refitted, and
// the link-type efficiencies to apply to the topology. `fits` says what each came from,
// `changes` which were kept, `check` every row before and after, with the summaries of the
// fitted and held-out rows.
struct CommCalibration {
  NcclTuning tuning;
  std::vector<std::pair<std::string, double>> link_efficiency;  // catalog link type → fraction
  std::vector<RegimeFit> fits;
  std::vector<CalibrationChange> changes;
  std::vector<CalibrationCheck> check;
  ErrorSummary fitted_before, fitted_after, held_out_before, held_out_after;
};
CommCalibration calibrate_comm(const CollectiveModel& model, const std::vector<NcclTestsLog>& logs,
                               const CollectiveOptions& options);

// The calibration file (the schema of topologies/tuning/nccl.json, read by NcclTuning::parse, plus
// "link_efficiency" and the "fits" it came from). `provenance` goes into its "source".
std::string write_comm_calibration(const CommCalibration& calibration,
                                   const std::string& provenance);

// `topology` with the efficiency of every link of a listed type replaced.
Topology with_link_efficiency(const Topology& topology,
                              const std::vector<std::pair<std::string, double>>& efficiency);

}  // namespace topoplan
