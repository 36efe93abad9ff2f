// `topoplan collective OP --topology TOPO ...`: flags here, figures from comm/, text from report/.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/calibration_option.hpp"
#include "cli/commands.hpp"
#include "cli/csv_option.hpp"
#include "cli/keep_until_exit.hpp"
#include "cli/topology_options.hpp"
#include "io/topology_ranges.hpp"
#include "report/chart_views.hpp"
#include "report/collective_report.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/dtype.hpp"
#include "topoplan/error.hpp"
#include "topoplan/json.hpp"
#include "topoplan/units.hpp"

namespace topoplan::cli {

namespace {

struct CollectiveArgs {
  std::string op;
  TopologyOptions topo;
  int gpus = 0;
  std::vector<std::string> ranks;  // one group per --ranks; several run at once
  std::string pattern;             // send-recv: ring (default) | pair
  std::string size;
  std::string sweep;
  std::string minbytes, maxbytes, stepfactor;  // nccl-tests' -b -e -f: another way to --sweep
  std::string sweep_flag = "--sweep";          // what the user typed, for messages
  std::string algo = "auto";
  std::string proto = "auto";
  std::string dtype = "fp32";
  int root = 0;
  bool no_nvls = false;
  bool sharp = false;
  bool json = false;
  CsvOption csv;  // --csv [FILE]
  std::string calibration;
  std::string chart;  // --chart FILE.svg|png|pdf
  // --threads: threads routing a large set's pairs (the machine's hardware threads).
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
};

int parse_int(const std::string& s, const std::string& flag) {
  std::size_t used = 0;
  int v = -1;
  try {
    v = std::stoi(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || v < 0) throw InputError(flag, "", "'" + s + "' is not a GPU index");
  return v;
}

// `text` cut at every `sep`, empty items kept (so callers can reject them).
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at; (at = text.find(sep, start)) != std::string::npos; start = at + 1)
    parts.push_back(text.substr(start, at - start));
  parts.push_back(text.substr(start));
  return parts;
}

// Splits at commas outside [..], so "n[0-3]/gpu0,n[0-1]/gpu[2,3]" is two items.
std::vector<std::string> split_items(const std::string& text) {
  std::vector<std::string> parts{""};
  int depth = 0;
  for (char c : text) {
    depth += c == '[' ? 1 : (c == ']' ? -1 : 0);
    if (c == ',' && depth == 0)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

// A device named in --ranks must be a GPU: say which device it is, not its index deep inside the
// collective model.
int gpu_by_id(const Topology& t, int dev, const std::string& id) {
  const Device& d = t.device(dev);
  if (d.type != DeviceType::Gpu)
    throw InputError("--ranks", "",
                     "'" + id + "' is a " + std::string(to_string(d.type)) + ", not a GPU");
  return dev;
}

// --ranks: comma-separated GPU indices (in the topology's GPU order), ranges "0-7", device ids
// ("n1/gpu3") or the topology format's bracket ranges of them ("n[0-127]/gpu0").
std::vector<int> parse_ranks(const Topology& t, const std::string& text) {
  std::vector<int> out;
  const auto& gpus = t.gpus();
  for (const std::string& pattern : split_items(text)) {
    if (pattern.empty()) throw InputError("--ranks", "", "empty item in '" + text + "'");
    if (pattern.find('[') != std::string::npos || pattern.find(']') != std::string::npos) {
      for (const std::string& id : detail::expand_range(pattern, "--ranks", "")) {
        auto dev = t.find(id);
        if (!dev) {
          std::vector<std::string> ids;
          for (int g : gpus) ids.push_back(t.device(g).id);
          throw UnknownNameError("GPU", id + " (from '" + pattern + "')", ids);
        }
        out.push_back(gpu_by_id(t, *dev, id));
      }
      continue;
    }
    const std::string& item = pattern;
    if (auto dev = t.find(item)) {
      out.push_back(gpu_by_id(t, *dev, item));
      continue;
    }
    if (item.find_first_not_of("0123456789-") != std::string::npos) {
      std::vector<std::string> ids;
      for (int g : gpus) ids.push_back(t.device(g).id);
      throw UnknownNameError("GPU", item, ids);
    }
    const std::size_t dash = item.find('-');
    const int lo = parse_int(item.substr(0, dash), "--ranks");
    const int hi = dash == std::string::npos ? lo : parse_int(item.substr(dash + 1), "--ranks");
    if (hi < lo || hi >= static_cast<int>(gpus.size()))
      throw InputError("--ranks", "",
                       "'" + item + "' is outside GPUs 0-" + std::to_string(gpus.size() - 1));
    for (int i = lo; i <= hi; ++i) out.push_back(gpus[static_cast<std::size_t>(i)]);
  }
  return out;
}

// --sweep MIN:MAX[:FACTOR] (nccl-tests -b/-e/-f; factor 2 by default).
std::vector<double> parse_sizes(const CollectiveArgs& a) {
  if (!a.minbytes.empty() || !a.maxbytes.empty() || !a.stepfactor.empty()) {
    if (!a.size.empty() || !a.sweep.empty())
      throw InputError("-b/-e/-f", "", "nccl-tests' -b/-e/-f make a sweep: drop --size/--sweep");
    // nccl-tests' defaults: -b 32M, -e 32M (its README); without -f it steps by -i 1M, which
    // topoplan's multiplicative sweep does not do: factor 2 then.
    CollectiveArgs as_sweep = a;
    as_sweep.minbytes = as_sweep.maxbytes = as_sweep.stepfactor = "";
    as_sweep.sweep_flag = "-b/-e/-f";
    as_sweep.sweep = (a.minbytes.empty() ? "32M" : a.minbytes) + ":" +
                     (a.maxbytes.empty() ? "32M" : a.maxbytes) + ":" +
                     (a.stepfactor.empty() ? "2" : a.stepfactor);
    return parse_sizes(as_sweep);
  }
  if (a.size.empty() == a.sweep.empty())
    throw InputError("--size/--sweep", "",
                     "give exactly one of --size, --sweep or nccl-tests' -b/-e/-f");
  if (!a.size.empty()) return {parse_bytes(a.size, "--size")};
  const std::vector<std::string> parts = split(a.sweep, ':');
  if (parts.size() < 2 || parts.size() > 3)
    throw InputError("--sweep", "", "expected MIN:MAX[:FACTOR], got '" + a.sweep + "'");
  const double lo = parse_bytes(parts[0], "--sweep MIN"), hi = parse_bytes(parts[1], "--sweep MAX");
  double factor = 2;
  if (parts.size() == 3) {
    std::size_t used = 0;
    try {
      factor = std::stod(parts[2], &used);
    } catch (const std::exception&) {
      factor = 0;
    }
    if (used != parts[2].size()) factor = 0;  // "2x" is not silently read as 2
  }
  if (!(factor > 1) || !std::isfinite(factor))
    throw InputError(
        "--sweep", "",
        "FACTOR must be a number > 1, got '" + (parts.size() == 3 ? parts[2] : "") + "'");
  if (lo <= 0 || hi < lo) throw InputError(a.sweep_flag, "", "need 0 < MIN ≤ MAX, got " + a.sweep);
  std::vector<double> sizes;
  for (double s = lo; s <= hi * (1 + 1e-12) && sizes.size() < 1000; s *= factor) sizes.push_back(s);
  return sizes;
}

// The groups to price: one per --ranks (all at once, sharing links), else the first --gpus GPUs
// (all by default); a send-recv pair without --ranks is the first and last of them.
std::vector<std::vector<int>> pick_groups(const Topology& t, const CollectiveArgs& a,
                                          const CollectiveOptions& o, CollOp op) {
  if (!a.ranks.empty() && a.gpus > 0)
    throw InputError("--gpus/--ranks", "", "give at most one of --gpus and --ranks");
  // Before any rank is picked: "root rank is outside the group" would blame the wrong thing.
  if (t.gpus().empty())
    throw InputError(a.topo.topology, "", "has no GPUs; a collective runs between GPUs");
  std::vector<std::vector<int>> groups;
  for (const std::string& text : a.ranks) groups.push_back(parse_ranks(t, text));
  // One size column (elements per rank), one busbw factor and one rank count in the header:
  // the groups must be alike, as nccl-tests' split communicators are.
  for (const auto& g : groups)
    if (g.size() != groups.front().size())
      throw InputError("--ranks", "",
                       "groups of different sizes (" + std::to_string(groups.front().size()) +
                           " and " + std::to_string(g.size()) +
                           " ranks) are not priced together: give groups of one size");
  if (!groups.empty()) return groups;
  std::vector<int> ranks = t.gpus();
  if (a.gpus > static_cast<int>(ranks.size()))
    throw InputError("--gpus", "",
                     "the topology has only " + std::to_string(ranks.size()) + " GPUs");
  if (a.gpus > 0) ranks.resize(static_cast<std::size_t>(a.gpus));
  if (op == CollOp::SendRecv && o.send_recv == SendRecvPattern::Pair)
    ranks = {ranks.front(), ranks.back()};
  return {ranks};
}

SendRecvPattern parse_pattern(const CollectiveArgs& a, CollOp op) {
  if (a.pattern.empty()) return SendRecvPattern::Ring;
  if (op != CollOp::SendRecv)
    throw InputError("--pattern", "",
                     "only send-recv has a pattern, not " + std::string(to_string(op)));
  if (a.pattern == "ring") return SendRecvPattern::Ring;
  if (a.pattern == "pair") return SendRecvPattern::Pair;
  throw InputError("--pattern", "", "expected ring or pair, got '" + a.pattern + "'");
}

// Sizes as nccl-tests runs them: whole elements, and for the ops that give every rank an equal
// part (all-gather, reduce-scatter, all-to-all, gather, scatter, hypercube) whole elements per
// rank, rounded down (nccl-tests' count = bytes / type size [/ ranks]; its size column is that
// count's bytes). A size below one element (per rank) is refused alone; in a sweep it is left
// out and stderr says so (nccl-tests would print a row of 0 bytes).
std::vector<double> whole_elements(const std::vector<double>& sizes, CollOp op, double element,
                                   int ranks, const char* flag) {
  const bool per_rank = op == CollOp::AllGather || op == CollOp::ReduceScatter ||
                        op == CollOp::AllToAll || op == CollOp::Gather || op == CollOp::Scatter ||
                        op == CollOp::Hypercube;
  const double unit = element * (per_rank ? ranks : 1);
  std::vector<double> out;
  int dropped = 0;
  for (double s : sizes)
    if (const double whole = std::floor(s / unit) * unit; whole > 0)
      out.push_back(whole);
    else
      ++dropped;
  const std::string below = "below one " +
                            std::string(per_rank ? "element per rank (" : "element (") +
                            std::to_string(static_cast<long long>(unit)) + " B)";
  if (out.empty()) throw InputError(flag, "", below + ": nothing to send");
  if (dropped > 0)
    std::cerr << "topoplan: note: " << flag << ": " << dropped << " size"
              << (dropped > 1 ? "s" : "") << " " << below << " left out\n";
  return out;
}

// The report's device ids and server count, made after pricing: 100,000 ids held through the
// pricing's peak were 3 MiB of it (issue 32).
void name_ranks(const Topology& t, const std::vector<std::vector<int>>& groups,
                report::CollectiveReport& r) {
  std::vector<char> seen(static_cast<std::size_t>(t.node_count()) + 1, 0);
  int nodes = 0;
  for (const auto& g : groups) {
    r.groups.emplace_back();
    r.groups.back().reserve(g.size());
    for (int d : g) {
      const Device& dev = t.device(d);
      r.groups.back().push_back(dev.id);
      char& s = seen[static_cast<std::size_t>(dev.node + 1)];  // node -1: outside servers
      nodes += s == 0;
      s = 1;
    }
  }
  if (groups.size() == 1) {
    r.ranks = std::move(r.groups.front());
    r.groups.clear();
  } else {
    r.ranks = r.groups.front();
  }
  r.nodes = nodes;
}

int run(const CollectiveArgs& a) {
  const CollOp op = parse_coll_op(a.op);
  CollectiveOptions o;
  // --algo all: the table shows NCCL's choice, then every algorithm/protocol (the chart: one
  // series each).
  const bool all = a.algo == "all";
  o.algorithm = parse_algorithm(all ? "auto" : a.algo);
  o.protocol = parse_protocol(a.proto);
  o.allow_nvls = !a.no_nvls;
  o.fabric_has_sharp = a.sharp;
  o.root = a.root;
  if (a.threads < 1) throw InputError("--threads", "", "must be at least 1");
  o.threads = a.threads;
  const bool rooted = op == CollOp::Broadcast || op == CollOp::Reduce || op == CollOp::Gather ||
                      op == CollOp::Scatter;
  if (a.root != 0 && !rooted)
    throw InputError(
        "--root", "",
        std::string(to_string(op)) + " has no root (broadcast, reduce, gather and scatter do)");
  o.send_recv = parse_pattern(a, op);
  const Dtype dtype = parse_dtype(a.dtype);
  o.element_bytes = element_bytes(dtype);
  std::vector<double> sizes = parse_sizes(a);
  // --calibration or built-in; kept to the end of the process (keep_until_exit.hpp).
  const KeptToExit<CommSetup> owned(comm_setup(a.topo, a.calibration));
  const CommSetup& setup = *owned;
  const Topology& t = setup.topology;
  const std::vector<std::vector<int>> groups = pick_groups(t, a, o, op);
  const bool nccl_flags = !a.minbytes.empty() || !a.maxbytes.empty() || !a.stepfactor.empty();
  sizes = whole_elements(sizes, op, o.element_bytes, static_cast<int>(groups.front().size()),
                         !a.size.empty() ? "--size"
                         : nccl_flags    ? "-b/-e/-f"
                                         : "--sweep");
  const CollectiveModel& model = setup.model();
  // Every group at once (they load shared links together); the table shows the slowest.
  const auto price = [&](double size, const CollectiveOptions& with) {
    return model.prepare(op, groups, with).slowest(size);
  };
  report::CollectiveReport r;
  r.op = op;
  r.topology = t.name;
  r.dtype = std::string(to_string(dtype));
  r.element_bytes = o.element_bytes;
  if (op == CollOp::SendRecv) r.pattern = o.send_recv == SendRecvPattern::Ring ? "ring" : "pair";
  for (double s : sizes) r.results.push_back(price(s, o));
  // --algo all: every (algorithm, protocol) that can run this op on these ranks, per size.
  std::vector<report::CollectiveSeries> series;
  if (!all) series.emplace_back(a.algo + "/" + a.proto, r.results);
  for (Algorithm alg : {Algorithm::Ring, Algorithm::Tree, Algorithm::Nvls, Algorithm::NvlsTree,
                        Algorithm::CollNet, Algorithm::Direct})
    for (Protocol p : {Protocol::LL, Protocol::LL128, Protocol::Simple}) {
      if (!all) continue;
      CollectiveOptions fixed = o;
      fixed.algorithm = alg;
      fixed.protocol = p;
      std::vector<CollectiveCost> costs;
      try {
        for (double s : sizes) costs.push_back(price(s, fixed));
      } catch (const Error&) {
        continue;  // not available for this op/topology (NVLS without NVSwitch, ...)
      }
      if (!costs.empty() && costs.front().algorithm == alg && costs.front().protocol == p)
        series.emplace_back(std::string(to_string(alg)) + "/" + std::string(to_string(p)), costs);
    }
  name_ranks(t, groups, r);
  if (all)
    for (std::size_t i = 0; i < sizes.size(); ++i)
      for (const report::CollectiveSeries& x : series) r.alternatives.push_back(x.second[i]);
  // --csv: one row per size (results), or per size and algorithm/protocol with --algo all.
  // The JSON (every rank's id) is made only where it is printed or tabled.
  if (!(a.csv.given() && write_csv(a.csv, to_json(r), all ? "alternatives" : "results")))
    report::print_collective(std::cout, r, a.json);
  if (!a.chart.empty()) {
    const std::string each = groups.size() > 1 ? " GPUs each" : " GPUs";
    report::write_collective_chart(
        std::string(to_string(op)) + " on " + t.name + ", " + std::to_string(r.ranks.size()) + each,
        series, a.chart);
  }
  return 0;
}

}  // namespace

void add_collective_command(CLI::App& app, Action& action) {
  auto args = std::make_shared<CollectiveArgs>();
  auto* sub = app.add_subcommand(
      "collective",
      "predict a collective's time and bus bandwidth (like nccl-tests) on a topology");
  add_example(*sub, "topoplan collective all-reduce --topology hgx-h100-8 --sweep 8:8G:2");
  sub->add_option("OP", args->op,
                  "all-reduce | all-gather | reduce-scatter | broadcast | reduce | all-to-all | "
                  "send-recv | gather | scatter | hypercube, or nccl-tests' names "
                  "(all_reduce_perf, sendrecv_perf, ...)")
      ->required();
  sub->add_option("--topology", args->topo.topology, "built-in topology name or JSON file")
      ->required();
  add_cluster_flags(*sub, args->topo);
  sub->add_option("--gpus,-g,--ngpus", args->gpus,
                  "use the first N GPUs (default: all; -g as nccl-tests, one process)")
      ->check(positive_count());
  sub->add_option("--ranks", args->ranks,
                  "GPUs in rank order: indices, ranges, device ids or bracket ranges, e.g. 0-3, "
                  "n0/gpu0,n1/gpu0 or n[0-3]/gpu0. Repeat for several groups running at once "
                  "(--ranks 0-3 --ranks 4-7): they share links, the slowest is shown")
      ->allow_extra_args(false);
  sub->add_option("--pattern", args->pattern,
                  "send-recv: ring (default, like nccl-tests sendrecv_perf: every rank sends to "
                  "the next and receives from the previous at once) | pair (the first rank "
                  "sends to the second; without --ranks the first and last GPU)");
  sub->add_option("--size", args->size, "message size, e.g. 512MiB, 8G, 1e6 (nccl-tests sizes)");
  sub->add_option("--sweep", args->sweep, "MIN:MAX[:FACTOR] size sweep (factor 2 by default)");
  sub->add_option("-b,--minbytes", args->minbytes, "nccl-tests' sweep start (default 32M)");
  sub->add_option("-e,--maxbytes", args->maxbytes, "nccl-tests' sweep end (default 32M)");
  sub->add_option("-f,--stepfactor", args->stepfactor, "nccl-tests' sweep factor (default 2)");
  sub->add_option("--algo", args->algo,
                  "auto | ring | tree | nvls | nvlstree | collnet | direct | all (every "
                  "algorithm/protocol that can run, after the automatic choice; with --chart one "
                  "series each)");
  sub->add_option("--chart", args->chart, "busbw and time vs size chart (.svg, .png, .pdf)");
  sub->add_option("--proto", args->proto, "auto | LL | LL128 | Simple");
  sub->add_option("--dtype", args->dtype, "element type for the count column (default fp32)");
  sub->add_option("--root", args->root,
                  "root rank of broadcast / reduce / gather / scatter (default 0)");
  sub->add_flag("--no-nvls", args->no_nvls, "disable NVLS / NVLSTree (NCCL_NVLS_ENABLE=0)");
  sub->add_flag("--sharp", args->sharp, "the fabric offers in-network reduction (enables CollNet)");
  sub->add_flag("--json", args->json, "JSON output with stable keys");
  // No captured default: it is this machine's core count (see plan --threads).
  sub->add_option("--threads", args->threads,
                  "threads routing the pairs of a large set (up to 3 are used; default: the "
                  "machine's hardware threads; the output is the same for any count)");
  add_csv_option(*sub, args->csv,
                 "one row per size (with --algo all: per size and algorithm/protocol)");
  add_example(*sub,
              "topoplan collective all-gather --topology hgx-h100-8 --sweep 1M:1G --csv sweep.csv");
  add_example(*sub,
              "topoplan collective all_reduce_perf --topology hgx-h100-8 -b 8 -e 1G -f 2 -g 8");
  add_calibration_option(*sub, args->calibration);
  sub->callback([args, &action] { action = [args] { return run(*args); }; });
}

}  // namespace topoplan::cli
