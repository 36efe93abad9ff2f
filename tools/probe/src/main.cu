// topoplan-probe: measures one GPU server for topoplan's calibration (docs/probe.md).
//   topoplan-probe --out result.json [--log-dir DIR] [--quick] [--skip a,b] [--nccl-max-bytes N]
// Sections: facts, copy (floor + d2d curve), host, p2p, gemm, gemm_fp8_block, nccl. One JSON result
// per run; the file is rewritten after every section so a section that kills the process leaves the
// others.
#include <cublasLt.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include "facts.hpp"
#include "gemm.hpp"
#include "memory.hpp"
#include "nccl_sweep.hpp"

namespace {

struct Args {
  std::string out, log_dir;
  std::set<std::string> skip;
  bool quick = false;
  probe::MemoryOptions mem;
  probe::NcclOptions nccl;
  std::string command;
};

constexpr const char* kUsage =
    "usage: topoplan-probe --out FILE.json [--log-dir DIR] [--quick] "
    "[--skip facts,copy,host,p2p,gemm,gemm_fp8_block,nccl] [--nccl-max-bytes N] "
    "[--nccl-min-ranks N] [--copy-max-bytes N]\n";

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "topoplan-probe: %s\n%s", why.c_str(), kUsage);
  std::exit(2);
}

// --help: the usage and what each flag does on stdout, exit 0 (issue 28: it printed "unknown
// argument" first).
[[noreturn]] void help() {
  std::printf(
      "topoplan-probe: measures this machine's GPUs for topoplan (docs/probe.md)\n%s"
      "  --out FILE.json      results file (required)\n"
      "  --log-dir DIR        keep the raw logs (nccl-tests style) there\n"
      "  --quick              fewer sizes and repetitions\n"
      "  --skip LIST          stages to skip, comma-separated\n"
      "  --nccl-max-bytes N   largest collective size\n"
      "  --nccl-min-ranks N   smallest rank count swept\n"
      "  --copy-max-bytes N   largest copy size\n"
      "example: topoplan-probe --out probe.json --quick\n",
      kUsage);
  std::exit(0);
}

double number_arg(const std::string& flag, const char* v) {
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  if (!end || *end || !(d > 0)) usage(flag + " needs a positive number, got '" + v + "'");
  return d;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 0; i < argc; ++i) a.command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) usage(f + " needs a value");
      return argv[++i];
    };
    if (f == "--help" || f == "-h")
      help();
    else if (f == "--out")
      a.out = next();
    else if (f == "--log-dir")
      a.log_dir = next();
    else if (f == "--quick")
      a.quick = true;
    else if (f == "--skip") {
      std::stringstream ss(next());
      for (std::string s; std::getline(ss, s, ',');) a.skip.insert(s);
    } else if (f == "--nccl-max-bytes")
      a.nccl.max_bytes = number_arg(f, next());
    else if (f == "--nccl-min-ranks")
      a.nccl.min_ranks = static_cast<int>(number_arg(f, next()));
    else if (f == "--copy-max-bytes")
      a.mem.copy_max_bytes = number_arg(f, next());
    else
      usage("unknown argument '" + f + "'");
  }
  if (a.out.empty()) usage("--out is required");
  a.nccl.log_dir = a.log_dir;
  return a;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

void save(const probe::Json& j, const std::string& path) {
  std::ofstream f(path);
  f << j.dump();
  if (!f) std::fprintf(stderr, "topoplan-probe: cannot write %s\n", path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  probe::Json r = probe::Json::object();
  r["format"] = "topoplan-probe 1";
  r["date"] = utc_now();
  r["command"] = a.command;
  int ndev = 0;
  if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
    std::fprintf(stderr, "topoplan-probe: no CUDA device visible\n");
    return 2;
  }
  r["gpus"] = ndev;
  r["cublaslt_version"] = static_cast<double>(cublasLtGetVersion());
  probe::Json versions = probe::Json::object();
  probe::Json points = probe::Json::array(), checks = probe::Json::array();
  probe::Json sections = probe::Json::object();
  std::string nccl_version = "not run";
  const auto t0 = std::chrono::steady_clock::now();
  auto section = [&](const std::string& name, const std::function<void()>& body) {
    probe::Json s = probe::Json::object();
    if (a.skip.count(name)) {
      s["skipped"] = "--skip " + name;
    } else {
      const auto ts = std::chrono::steady_clock::now();
      try {
        body();
        s["ok"] = true;
      } catch (const std::exception& e) {
        s["error"] = e.what();
        std::fprintf(stderr, "section %s failed: %s\n", name.c_str(), e.what());
      }
      s["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count();
    }
    sections[name] = s;
    r["sections"] = sections;
    r["points"] = points;
    save(r, a.out);
    std::printf("== %s done at %.1f s\n", name.c_str(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::fflush(stdout);
  };
  section("facts", [&] {
    r["facts"] = probe::device_facts(ndev, versions);
    r["driver_version"] = versions["driver_version"];
    r["cuda_version"] = versions["cuda_version"];
    r["cuda_driver_api_version"] = versions["cuda_driver_api_version"];
  });
  r["nccl_version"] = nccl_version;
  section("copy", [&] { probe::probe_floor_and_copy(points, a.mem); });
  section("host", [&] { r["host_links"] = probe::probe_host_links(ndev, a.mem); });
  section("p2p", [&] { r["p2p"] = probe::probe_p2p(ndev, a.mem); });
  section("gemm", [&] {
    probe::probe_gemm(points, checks, {a.quick, false});
    r["gemm_checks"] = checks;
  });
  section("gemm_fp8_block", [&] {
    probe::probe_gemm(points, checks, {a.quick, true});
    r["gemm_checks"] = checks;
  });
  section("nccl", [&] {
    r["nccl"] = probe::probe_nccl(ndev, a.nccl, nccl_version);
    r["nccl_version"] = nccl_version;
  });
  r["elapsed_s"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  save(r, a.out);
  return 0;
}
