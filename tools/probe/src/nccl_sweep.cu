// NCCL sweeps (nccl_sweep.hpp). One process drives every GPU of a subset (ncclCommInitAll, as
// nccl-tests does with -g N); times are host wall time per iteration with every stream
// synchronized, the same quantity nccl-tests prints.
#include "nccl_sweep.hpp"

#ifdef PROBE_HAVE_NCCL
#include <nccl.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "facts.hpp"

namespace probe {
namespace {

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}
#define PROBE_NCCL(x) nccl_check((x), #x)

struct OpSpec {
  const char* name;   // nccl-tests program stem
  const char* redop;  // column of the row
  int root;
  // nccl-tests bus-bandwidth factor (nccl-tests doc/PERFORMANCE.md): busbw = algbw * factor.
  double factor(int n) const {
    const std::string s = name;
    if (s == "all_reduce") return 2.0 * (n - 1) / n;
    if (s == "all_gather" || s == "reduce_scatter" || s == "alltoall") return double(n - 1) / n;
    return 1.0;
  }
};

const OpSpec kOps[] = {{"all_reduce", "sum", -1},     {"all_gather", "none", -1},
                       {"reduce_scatter", "sum", -1}, {"alltoall", "none", -1},
                       {"broadcast", "none", 0},      {"sendrecv", "none", -1}};

struct Rank {
  float* send = nullptr;
  float* recv = nullptr;
  cudaStream_t s = nullptr;
  ncclComm_t comm = nullptr;
};

// Enqueues one operation of `bytes` (nccl-tests' size column) on every rank.
void enqueue(const std::string& op, std::vector<Rank>& r, std::size_t bytes) {
  const int n = static_cast<int>(r.size());
  const std::size_t count = bytes / sizeof(float);
  PROBE_NCCL(ncclGroupStart());
  for (int i = 0; i < n; ++i) {
    Rank& k = r[i];
    if (op == "all_reduce")
      PROBE_NCCL(ncclAllReduce(k.send, k.recv, count, ncclFloat, ncclSum, k.comm, k.s));
    else if (op == "all_gather")  // size = the gathered buffer
      PROBE_NCCL(ncclAllGather(k.send, k.recv, count / n, ncclFloat, k.comm, k.s));
    else if (op == "reduce_scatter")  // size = the buffer before scattering
      PROBE_NCCL(ncclReduceScatter(k.send, k.recv, count / n, ncclFloat, ncclSum, k.comm, k.s));
    else if (op == "broadcast")
      PROBE_NCCL(ncclBroadcast(k.send, k.recv, count, ncclFloat, 0, k.comm, k.s));
    else if (op == "sendrecv") {  // ring shift: rank i sends to i+1, receives from i-1
      PROBE_NCCL(ncclSend(k.send, count, ncclFloat, (i + 1) % n, k.comm, k.s));
      PROBE_NCCL(ncclRecv(k.recv, count, ncclFloat, (i + n - 1) % n, k.comm, k.s));
    } else {  // alltoall: size = one rank's send buffer, count / n to each peer
      const std::size_t c = count / n;
      for (int p = 0; p < n; ++p) {
        PROBE_NCCL(ncclSend(k.send + p * c, c, ncclFloat, p, k.comm, k.s));
        PROBE_NCCL(ncclRecv(k.recv + p * c, c, ncclFloat, p, k.comm, k.s));
      }
    }
  }
  PROBE_NCCL(ncclGroupEnd());
}

void sync(std::vector<Rank>& r, const std::vector<int>& devs) {
  for (std::size_t i = 0; i < r.size(); ++i) {
    PROBE_CUDA(cudaSetDevice(devs[i]));
    PROBE_CUDA(cudaStreamSynchronize(r[i].s));
  }
}

double time_op_us(const std::string& op, std::vector<Rank>& r, const std::vector<int>& devs,
                  std::size_t bytes) {
  // nccl-tests defaults: 5 warm-up and 20 timed iterations; fewer for the largest sizes so an
  // 8-GPU sweep stays within minutes (each iteration there already lasts milliseconds).
  const int iters = bytes >= (std::size_t(256) << 20) ? 5 : 20;
  for (int w = 0; w < (bytes >= (std::size_t(256) << 20) ? 1 : 5); ++w) enqueue(op, r, bytes);
  sync(r, devs);
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) enqueue(op, r, bytes);
  sync(r, devs);
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
         iters;
}

__global__ void fill_rank(float* p, std::size_t n, float v) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    p[i] = v;
}

// All-reduce of rank values 1..n must give n(n+1)/2 everywhere: a wrong sum means the
// communicator or the buffers are broken and the timings are not worth keeping.
bool check_all_reduce(std::vector<Rank>& r, const std::vector<int>& devs, std::size_t count) {
  const int n = static_cast<int>(r.size());
  for (int i = 0; i < n; ++i) {
    PROBE_CUDA(cudaSetDevice(devs[i]));
    fill_rank<<<256, 256, 0, r[i].s>>>(r[i].send, count, float(i + 1));
  }
  PROBE_NCCL(ncclGroupStart());
  for (int i = 0; i < n; ++i)
    PROBE_NCCL(ncclAllReduce(r[i].send, r[i].recv, count, ncclFloat, ncclSum, r[i].comm, r[i].s));
  PROBE_NCCL(ncclGroupEnd());
  sync(r, devs);
  std::vector<float> host(count);
  const float want = n * (n + 1) / 2.0f;
  for (int i = 0; i < n; ++i) {
    PROBE_CUDA(cudaSetDevice(devs[i]));
    PROBE_CUDA(cudaMemcpy(host.data(), r[i].recv, count * sizeof(float), cudaMemcpyDeviceToHost));
    for (float v : host)
      if (v != want) return false;
  }
  return true;
}

std::string header(const OpSpec& op, const std::vector<int>& devs, const NcclOptions& o) {
  std::ostringstream h;
  h << "# nccl-tests-compatible log written by topoplan-probe (tools/probe), NCCL_NVLS_ENABLE="
    << (std::getenv("NCCL_NVLS_ENABLE") ? std::getenv("NCCL_NVLS_ENABLE") : "unset") << "\n";
  h << "# Collective test starting: " << op.name << "_perf\n";
  h << "# nThread 1 nGpus " << devs.size() << " minBytes " << o.min_bytes << " maxBytes "
    << o.max_bytes << " step: 2(factor) warmup iters: 5 iters: 20 validation: 0\n#\n";
  h << "# Using devices\n";
  char host[256] = "localhost";
  gethostname(host, sizeof host);
  for (std::size_t i = 0; i < devs.size(); ++i) {
    cudaDeviceProp p{};
    PROBE_CUDA(cudaGetDeviceProperties(&p, devs[i]));
    char line[512];
    std::snprintf(line, sizeof line,
                  "#  Rank %2zu Group  0 Pid %6d on %10s device %2d [0x%02x] %s\n", i,
                  static_cast<int>(getpid()), host, devs[i], p.pciBusID, p.name);
    h << line;
  }
  h << "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong"
       "     time   algbw   busbw #wrong\n#        (B)    (elements)                               "
       "(us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  return h.str();
}

Json sweep(const OpSpec& op, std::vector<Rank>& r, const std::vector<int>& devs,
           const NcclOptions& o, std::size_t cap, std::string& log) {
  const int n = static_cast<int>(devs.size());
  log = header(op, devs, o);
  int rows = 0;
  for (double b = o.min_bytes; b <= std::min<double>(o.max_bytes, cap); b *= 2) {
    const std::size_t bytes = static_cast<std::size_t>(b);
    const bool per_peer = op.name == std::string("all_gather") ||
                          op.name == std::string("reduce_scatter") ||
                          op.name == std::string("alltoall");
    if (per_peer && bytes / sizeof(float) / n == 0) continue;  // less than one float per rank
    const std::size_t used = per_peer ? bytes / sizeof(float) / n * n * sizeof(float) : bytes;
    const double us = time_op_us(op.name, r, devs, used);
    const double algbw = used / us / 1e3;
    char line[256];
    std::snprintf(line, sizeof line,
                  "%12zu  %12zu     float  %6s  %6d  %8.2f %7.2f %7.2f    N/A      N/A     N/A"
                  "     N/A    N/A\n",
                  used, used / sizeof(float), op.redop, op.root, us, algbw, algbw * op.factor(n));
    log += line;
    ++rows;
  }
  Json j = Json::object();
  j["op"] = op.name;
  j["ranks"] = n;
  j["rows"] = rows;
  j["log"] = log;
  return j;
}

}  // namespace

Json probe_nccl(int ndev, const NcclOptions& o, std::string& nccl_version) {
  int v = 0;
  PROBE_NCCL(ncclGetVersion(&v));
  // ncclGetVersion: major*10000 + minor*100 + patch from NCCL 2.9 on (nccl.h NCCL_VERSION).
  nccl_version = std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                 std::to_string(v % 100);
  Json out = Json::object();
  const char* nvls = std::getenv("NCCL_NVLS_ENABLE");
  out["NCCL_NVLS_ENABLE"] = nvls ? nvls : "unset";
  if (ndev < o.min_ranks) {
    out["skipped"] = std::to_string(ndev) + " GPU(s) visible: the NCCL sweeps need at least " +
                     std::to_string(o.min_ranks);
    return out;
  }
  std::vector<int> sizes;
  for (int g : {1, 2, 4, 8})
    if (g >= o.min_ranks && g < ndev) sizes.push_back(g);
  sizes.push_back(ndev);
  Json runs = Json::array();
  for (int g : sizes) {
    std::vector<int> devs(g);
    for (int i = 0; i < g; ++i) devs[i] = i;
    std::vector<Rank> r(g);
    std::vector<ncclComm_t> comms(g);
    PROBE_NCCL(ncclCommInitAll(comms.data(), g, devs.data()));
    std::size_t free_b = 0, total_b = 0;
    PROBE_CUDA(cudaSetDevice(0));
    PROBE_CUDA(cudaMemGetInfo(&free_b, &total_b));
    // Two buffers of the largest size per GPU, leaving a quarter of free memory to NCCL.
    const std::size_t cap =
        std::min<std::size_t>(static_cast<std::size_t>(o.max_bytes), free_b * 3 / 8);
    for (int i = 0; i < g; ++i) {
      PROBE_CUDA(cudaSetDevice(devs[i]));
      PROBE_CUDA(cudaMalloc(&r[i].send, cap));
      PROBE_CUDA(cudaMalloc(&r[i].recv, cap));
      PROBE_CUDA(cudaStreamCreateWithFlags(&r[i].s, cudaStreamNonBlocking));
      r[i].comm = comms[i];
    }
    const bool ok = check_all_reduce(r, devs, std::min<std::size_t>(cap / 4, 1 << 20));
    for (const OpSpec& op : kOps) {
      std::string log;
      Json j = sweep(op, r, devs, o, cap, log);
      j["check_all_reduce_sum"] = ok;
      const std::string file = std::string(op.name) + "_perf_" + std::to_string(g) + "gpu.log";
      j["file"] = file;
      if (!o.log_dir.empty()) std::ofstream(o.log_dir + "/" + file) << log;
      std::printf("nccl %s on %d GPU(s) done\n", op.name, g);
      runs.push(j);
    }
    for (int i = 0; i < g; ++i) {
      PROBE_CUDA(cudaSetDevice(devs[i]));
      cudaFree(r[i].send);
      cudaFree(r[i].recv);
      cudaStreamDestroy(r[i].s);
      ncclCommDestroy(r[i].comm);
    }
  }
  out["runs"] = runs;
  return out;
}

}  // namespace probe

#else  // built without NCCL

namespace probe {
Json probe_nccl(int, const NcclOptions&, std::string& nccl_version) {
  nccl_version = "none";
  Json out = Json::object();
  out["skipped"] = "built without NCCL (nccl.h/libnccl not found at configure time)";
  return out;
}
}  // namespace probe

#endif
