// nccl-tests text and -J JSON output → NcclTestsLog (include/topoplan/nccl_tests.hpp). Formats
// from nccl-tests src/util.cu (writeResultHeader, writeBenchmarkLine*, the JSON writer): a row is
// size, count, type, redop, root, then time/algbw/busbw/#wrong out-of-place and in-place (with
// -I 1, four per-iteration columns follow each half).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "io/json_reader.hpp"
#include "io/quantity_ranges.hpp"
#include "topoplan/error.hpp"
#include "topoplan/limits.hpp"
#include "topoplan/nccl_tests.hpp"

namespace topoplan {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// nThread × nGpus as a rank count, 0 (unknown) unless both are whole numbers and the product
// is a plausible rank count (fuzzing found "nThread 1e300" overflowing the int conversion).
int rank_count(double threads, double gpus) {
  const double n = threads * gpus;
  if (!(threads >= 1 && gpus >= 1 && n <= 1 << 20) || threads != std::floor(threads) ||
      gpus != std::floor(gpus))
    return 0;
  return static_cast<int>(n);
}

bool number(const std::string& text, double& out) {
  std::size_t used = 0;
  try {
    out = std::stod(text, &used);
  } catch (const std::exception&) {
    return false;
  }
  return used == text.size() && std::isfinite(out);
}

// "all_reduce_perf" / "/path/all_reduce_perf_mpi" / "all_gather_perf.log" → the collective.
std::optional<CollOp> op_of_program(std::string name) {
  name = std::filesystem::path(name).filename().string();
  const std::size_t perf = name.find("_perf");
  if (perf == std::string::npos) return std::nullopt;
  try {
    return parse_coll_op(name.substr(0, perf));
  } catch (const UnknownNameError&) {
    return std::nullopt;  // hypercube, scatter, gather: no topoplan collective
  }
}

// Why a measured half is implausible ("" when it is not): size 0 or 1e300 made `calibrate`
// write "ll_factor": null, a negative size was priced as a collective.
std::string problem_of(const CollectiveMeasurement& m) {
  namespace rg = io::ranges;
  auto check = [](double x, const io::QuantityRange& r, const char* what) {
    const std::string p = io::out_of_range(x, r);
    return p.empty() ? p : what + (" " + p);
  };
  const char* half = m.in_place ? "in-place " : "out-of-place ";
  for (std::string p : {check(m.size_bytes, rg::kMeasuredBytes, "size"),
                        check(m.time_us, rg::kCollectiveTime_us, "time"),
                        check(m.algbw_GBps, rg::kMeasuredGBps, "algbw"),
                        check(m.busbw_GBps, rg::kMeasuredGBps, "busbw")})
    if (!p.empty()) return p.rfind("size", 0) == 0 ? p : half + p;
  return "";
}

// Keeps a measured half; a half the test did not run (time 0) is skipped, an implausible one
// refused at `where` (the text line or the JSON result).
void keep(NcclTestsLog& log, const CollectiveMeasurement& m, const std::string& where) {
  if (m.time_us == 0) return;
  if (const std::string p = problem_of(m); !p.empty()) throw InputError(log.source, where, p);
  log.rows.push_back(m);
}

void add_half(NcclTestsLog& log, const std::vector<std::string>& w, std::size_t at, bool in_place,
              int line) {
  CollectiveMeasurement m;
  double size = 0, count = 0;
  number(w[0], size);
  number(w[1], count);
  m.size_bytes = size;
  m.count = count;
  m.dtype = w[2];
  m.in_place = in_place;
  m.line = line;
  // A half the test did not run prints blanks or N/A: keep only complete numbers.
  if (at + 2 < w.size() && number(w[at], m.time_us) && number(w[at + 1], m.algbw_GBps) &&
      number(w[at + 2], m.busbw_GBps))
    keep(log, m, "line " + std::to_string(line));
}

// More result rows than limits::kMaxNcclTestsRows: each is priced by the collective model.
[[noreturn]] void too_many_rows(const NcclTestsLog& log, const std::string& where) {
  throw InputError(log.source, where,
                   "more than " + std::to_string(limits::kMaxNcclTestsRows) +
                       " result rows (docs/limits.md); split the log");
}

void parse_text(const std::string& text, NcclTestsLog& log, int& threads_x_gpus) {
  std::istringstream in(text);
  std::string line;
  std::set<std::string> hosts;
  std::size_t result_rows = 0;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::vector<std::string> w = words(line);
    if (w.empty()) continue;
    if (w[0] == "#") {
      if (w.size() >= 5 && w[1] == "Collective" && w[2] == "test" && w[3] == "starting:")
        log.program = w[4];
      if (w.size() >= 5 && w[1] == "nThread" && w[3] == "nGpus") {
        double t = 0, g = 0;
        if (number(w[2], t) && number(w[4], g)) threads_x_gpus = rank_count(t, g);
      }
      // "#  Rank  0 Group  0 Pid  1234 on host device  0 [0x1b] NVIDIA H100 80GB HBM3"
      if (w.size() >= 11 && w[1] == "Rank" && w[7] == "on" && w[9] == "device") {
        ++log.ranks;
        hosts.insert(w[8]);
        if (log.gpu_name.empty()) {
          const std::size_t close = line.find(']');
          if (close != std::string::npos) {
            log.gpu_name = line.substr(close + 1);
            log.gpu_name.erase(0, log.gpu_name.find_first_not_of(' '));
          }
        }
      }
      continue;
    }
    double size = 0;
    if (!number(w[0], size)) continue;  // NCCL INFO lines, warnings, MPI noise
    if (w.size() != 13 && w.size() != 21)
      throw InputError(log.source, "line " + std::to_string(n),
                       "result row has " + std::to_string(w.size()) +
                           " columns; expected 13 (size count type redop root, then time algbw "
                           "busbw #wrong out-of-place and in-place) or 21 (with -I 1)");
    if (++result_rows > limits::kMaxNcclTestsRows) too_many_rows(log, "line " + std::to_string(n));
    const std::size_t half = w.size() == 13 ? 4 : 8;
    add_half(log, w, 5, false, n);
    add_half(log, w, 5 + half, true, n);
  }
  log.nodes = std::max<int>(1, static_cast<int>(hosts.size()));
}

// A required number of `f` (any finite value): "missing field" or "expected a number", located.
double required_number(const io::JsonReader& f, const std::string& key) {
  f.at(key);
  return f.number(key, std::numeric_limits<double>::lowest(), false);
}

// The run as the -J header describes it (all optional, informative): the program, the rank
// count (nthreads × ngpus) and the devices with their hosts.
void read_header(const io::JsonReader& top, NcclTestsLog& log, int& threads_x_gpus) {
  if (top.has("args") && top.at("args").is_array() && !top.at("args").empty()) {
    const io::JsonReader args(top.at("args"), log.source, top.pointer_to("args"));
    if (args.raw()[0].is_string())
      log.program = std::filesystem::path(args.raw()[0].get<std::string>()).filename().string();
  }
  const bool has_cfg = top.has("config") && top.at("config").is_object();
  const io::JsonReader cfg = has_cfg ? top.object("config") : top;
  if (has_cfg && cfg.has("nthreads") && cfg.has("ngpus"))
    threads_x_gpus = rank_count(required_number(cfg, "nthreads"), required_number(cfg, "ngpus"));
  const io::JsonReader& holder = has_cfg && cfg.has("devices") ? cfg : top;
  std::set<std::string> hosts;
  if (holder.has("devices") && holder.at("devices").is_array()) {
    const nlohmann::json& devices = holder.at("devices");
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const auto d = io::JsonReader::object_at(
          devices[i], log.source, holder.pointer_to("devices") + "/" + std::to_string(i));
      ++log.ranks;
      if (d.has("hostname")) hosts.insert(d.str("hostname"));
      if (log.gpu_name.empty()) log.gpu_name = d.str_or("device_info", "");
    }
  }
  log.nodes = std::max<int>(1, static_cast<int>(hosts.size()));
}

// One -J result: its out-of-place and in-place halves (null or absent: not run).
void read_result(const io::JsonReader& r, int index, NcclTestsLog& log) {
  const double size = required_number(r, "size");
  for (const char* key : {"out_of_place", "in_place"}) {
    if (!r.has(key) || !r.at(key).is_object()) continue;
    const io::JsonReader h = r.object(key);
    CollectiveMeasurement m;
    m.size_bytes = size;
    m.count = r.number("count", std::numeric_limits<double>::lowest(), false);
    m.dtype = r.str_or("type", "");
    m.in_place = std::string(key) == "in_place";
    m.line = index;
    m.time_us = required_number(h, h.has("time") ? "time" : "cpu_time");
    m.algbw_GBps = required_number(h, "alg_bw");
    m.busbw_GBps = required_number(h, "bus_bw");
    keep(log, m, r.pointer());
  }
}

void parse_json(const std::string& text, NcclTestsLog& log, int& threads_x_gpus) {
  const nlohmann::json doc = io::parse_json_text(text, log.source);
  const io::JsonReader top = io::JsonReader::object_at(doc, log.source, "");
  read_header(top, log, threads_x_gpus);
  if (!top.has("results") || !top.at("results").is_array())
    throw InputError(log.source, "/results", "missing the \"results\" list");
  const nlohmann::json& results = top.at("results");
  if (results.size() > limits::kMaxNcclTestsRows) too_many_rows(log, "/results");
  for (std::size_t i = 0; i < results.size(); ++i)
    read_result(io::JsonReader::object_at(results[i], log.source, "/results/" + std::to_string(i)),
                static_cast<int>(i), log);
}

// busbw / algbw must be the nccl-tests factor of the operation at this rank count: a log of
// another test (or a wrong --op) would otherwise be compared against the wrong model.
void check_factor(const NcclTestsLog& log) {
  const double want = busbw_factor(log.op, log.ranks);
  for (const CollectiveMeasurement& m : log.rows) {
    if (m.algbw_GBps < 1.0) continue;  // printed with 2 decimals: too coarse below 1 GB/s
    const double got = m.busbw_GBps / m.algbw_GBps;
    // 2% model slack plus the rounding of two printed decimals (±0.005 on each bandwidth).
    if (std::abs(got - want) > 0.02 * want + 0.01 / m.algbw_GBps)
      throw InputError(
          log.source,
          (log.source.ends_with(".json") ? "/results/" : "line ") + std::to_string(m.line),
          "busbw/algbw = " + std::to_string(got) + ", but " + std::string(to_string(log.op)) +
              " on " + std::to_string(log.ranks) + " ranks has factor " + std::to_string(want) +
              " (wrong --op?)");
  }
}

}  // namespace

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& source,
                                  std::optional<CollOp> op) {
  NcclTestsLog log;
  log.source = source;
  int threads_x_gpus = 0;
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    parse_json(text, log, threads_x_gpus);
  } else {
    parse_text(text, log, threads_x_gpus);
  }
  if (log.ranks == 0) log.ranks = threads_x_gpus;
  std::optional<CollOp> found = op_of_program(log.program);  // the log's own word first
  if (!found) found = op;
  if (!found) found = op_of_program(source);
  if (!found)
    throw InputError(source, "",
                     "cannot tell which test this is (no '# Collective test starting' line and "
                     "no X_perf in the file name); pass --op");
  log.op = *found;
  if (log.rows.empty()) throw InputError(source, "", "no result rows found");
  if (log.ranks < 1)
    throw InputError(source, "", "no rank count (no '#  Rank' lines and no nThread/nGpus line)");
  check_factor(log);
  return log;
}

}  // namespace topoplan
