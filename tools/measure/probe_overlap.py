#!/usr/bin/env python3
"""How much does a concurrent NCCL-like communication kernel slow training GEMMs on one GPU?

What: bf16 GEMMs at training shapes (torch.matmul -> cuBLAS) timed with CUDA events on one stream
while, on another stream, a persistent "channel" kernel runs for the whole window: exactly k thread
blocks of 640 threads (NCCL's channel block size on Hopper), each with 120 KiB of dynamic shared
memory so that no two fit on one SM (228 KiB per SM) and each holds one SM, as a NCCL channel
does. Each block streams a copy (read + write HBM, 16-byte loads) over its own slice of a 2 x 2 GiB
buffer, in one of four modes:
  hold   the block holds its SM and moves no data (spins on __nanosleep): pure SM loss
  50     paced to 50 GB/s aggregate copy rate (one 400G NIC), payload: 50 GB/s read + 50 written
  400    paced to 400 GB/s aggregate (NVLink4-class intra-node)
  max    unthrottled
Pacing: thread 0 of each block waits on %globaltimer (with __nanosleep) for the next deadline
between 40 KiB chunks; the other threads wait at the barrier, so a waiting block holds its SM (as
NCCL's blocks do while they wait for data). Every block records %smid, its start/end time and its
bytes, so residency on k distinct SMs and the achieved copy rate are read, not assumed. A one-
thread kernel on the GEMM stream waits until all k blocks have started before the GEMM window
opens; the GEMM stream raises a stop flag after the window closes.
Configurations per shape, interleaved in a shuffled order each round (median of the rounds):
GEMMs alone; k in {8,16,24,32} x {hold,50,400,max}; and, with cuBLASLt as the BLAS backend, the
SM-carveout knob (torch._C._set_sm_carveout_experimental -> CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET)
set to k with and without the copy. The copy kernel alone is timed too (its own ceiling). SM clock,
power and clock-event reasons are sampled through NVML every 10 ms and averaged per window. cuBLAS
kernel names and grids come from torch.profiler (chrome trace args).

Why: src/plan/train_step.cpp (comm_sm_us) charges a hidden collective only the SMs its NCCL
channels hold (hidden time x channels / SM count) and nothing for its HBM traffic, L2 pollution or
clock effects. This measures that assumption on one H100 (single-GPU machines only: NCCL itself
cannot run with peers, so the channel kernel is emulated).

Usage: python3 tools/measure/probe_overlap.py --out overlap.json [--rounds 8] [--quick]
(device: bash tools/measure/device/run_overlap.sh)
"""
import argparse
import datetime
import json
import os
import random
import statistics
import sys
import threading
import time
import traceback

import torch

THREADS = 640            # NCCL_MAX_NTHREADS (simple protocol) on sm_90
SMEM = 120 * 1024        # > 228/2 KiB: one block per SM
UNROLL = 4
CHUNK_BYTES = THREADS * UNROLL * 16   # per block per step: 40 KiB read + 40 KiB written
KS = [8, 16, 24, 32]
MODES = ["hold", "50", "400", "max"]  # copy payload rate in GB/s (read = write = rate)
SHAPES = [  # name, M (tokens), K, N: out[M,N] = x[M,K] @ W[N,K]^T (nn.Linear forward)
    ("llama70b-gate/up 8192x8192->28672", 8192, 8192, 28672),
    ("llama70b-down 8192x28672->8192", 8192, 28672, 8192),
    ("square 8192x8192->8192", 8192, 8192, 8192),
    ("13b-gate/up 8192x5120->13824", 8192, 5120, 13824),
]

KERNEL_SRC = r"""
#define OVL_UNROLL 4
__device__ __forceinline__ unsigned long long gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
// period_ns: >0 paced (ns per chunk per block), 0 unthrottled, <0 hold the SM and move nothing.
extern "C" __global__ void __launch_bounds__(1024) comm_copy(
    const int4* __restrict__ src, int4* __restrict__ dst, long long per_block, long long period_ns,
    long long max_ns, int* ctrl, unsigned long long* bytes, unsigned long long* tstart,
    unsigned long long* tend, int* smid) {
  extern __shared__ int4 smem[];
  const int tid = threadIdx.x, b = blockIdx.x, nt = blockDim.x;
  const long long chunk = (long long)nt * OVL_UNROLL;
  const int4* s = src + (long long)b * per_block;
  int4* d = dst + (long long)b * per_block;
  const unsigned long long t0 = gtime();
  if (tid == 0) {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    smid[b] = (int)id;
    tstart[b] = t0;
    smem[0] = make_int4(b, 0, 0, 0);
    atomicAdd(&ctrl[0], 1);
  }
  unsigned long long next = t0, iters = 0;
  long long off = 0;
  for (;;) {
    if (period_ns >= 0) {
      int4 r[OVL_UNROLL];
#pragma unroll
      for (int u = 0; u < OVL_UNROLL; ++u) r[u] = s[off + u * nt + tid];
#pragma unroll
      for (int u = 0; u < OVL_UNROLL; ++u) d[off + u * nt + tid] = r[u];
      off += chunk;
      if (off + chunk > per_block) off = 0;
      ++iters;
    }
    int st = 0;
    if (tid == 0) {
      unsigned long long now = gtime();
      if (period_ns > 0) {
        next += (unsigned long long)period_ns;
        while ((now = gtime()) < next) __nanosleep(100);
      } else if (period_ns < 0) {
        __nanosleep(500);
        now = gtime();
      }
      st = (*(volatile int*)&ctrl[1] != 0) || (now - t0 > (unsigned long long)max_ns);
    }
    if (__syncthreads_or(st)) break;
  }
  if (tid == 0) {
    tend[b] = gtime();
    bytes[b] = iters * (unsigned long long)chunk * 16ull;
  }
}
extern "C" __global__ void wait_started(int* ctrl, int k, long long max_ns) {
  const unsigned long long t0 = gtime();
  while (*(volatile int*)&ctrl[0] < k) {
    if (gtime() - t0 > (unsigned long long)max_ns) { ctrl[2] = 1; break; }
    __nanosleep(100);
  }
}
extern "C" __global__ void set_flag(int* ctrl) { ctrl[1] = 1; }
"""

EXT_CPP = r"""
#include <torch/extension.h>
void launch_copy(torch::Tensor src, torch::Tensor dst, int64_t k, int64_t threads, int64_t smem,
                 int64_t per_block, int64_t period_ns, int64_t max_ns, torch::Tensor ctrl,
                 torch::Tensor bytes, torch::Tensor tstart, torch::Tensor tend, torch::Tensor smid);
void launch_wait(torch::Tensor ctrl, int64_t k, int64_t max_ns);
void launch_flag(torch::Tensor ctrl);
"""
EXT_CU_HEAD = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
"""
EXT_CU_TAIL = r"""
void launch_copy(torch::Tensor src, torch::Tensor dst, int64_t k, int64_t threads, int64_t smem,
                 int64_t per_block, int64_t period_ns, int64_t max_ns, torch::Tensor ctrl,
                 torch::Tensor bytes, torch::Tensor tstart, torch::Tensor tend, torch::Tensor smid) {
  auto st = at::cuda::getCurrentCUDAStream();
  C10_CUDA_CHECK(cudaFuncSetAttribute(comm_copy, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  comm_copy<<<(unsigned)k, (unsigned)threads, (size_t)smem, st>>>(
      (const int4*)src.data_ptr(), (int4*)dst.data_ptr(), per_block, period_ns, max_ns,
      ctrl.data_ptr<int>(), (unsigned long long*)bytes.data_ptr<int64_t>(),
      (unsigned long long*)tstart.data_ptr<int64_t>(), (unsigned long long*)tend.data_ptr<int64_t>(),
      smid.data_ptr<int>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
void launch_wait(torch::Tensor ctrl, int64_t k, int64_t max_ns) {
  wait_started<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(ctrl.data_ptr<int>(), (int)k, max_ns);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
void launch_flag(torch::Tensor ctrl) {
  set_flag<<<1, 1, 0, at::cuda::getCurrentCUDAStream()>>>(ctrl.data_ptr<int>());
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
"""


class Kernels:
    """The channel kernel and its two helpers, through CuPy (NVRTC), else a torch C++ extension."""

    def __init__(self):
        self.backend = None
        self.error = None
        self.attrs = {}
        try:
            import cupy as cp
            import numpy as np
            self.cp, self.np = cp, np
            mod = cp.RawModule(code=KERNEL_SRC, options=("-std=c++17",))
            self.f_copy = mod.get_function("comm_copy")
            self.f_wait = mod.get_function("wait_started")
            self.f_flag = mod.get_function("set_flag")
            self.f_copy.max_dynamic_shared_size_bytes = SMEM
            self.backend = "cupy " + cp.__version__
            self.attrs = {k: v for k, v in self.f_copy.attributes.items()}
        except Exception as e:  # fall back to nvcc through torch
            self.use_ext("cupy: " + repr(e))

    def use_ext(self, why):
        self.error = why
        print("cupy path failed, building a torch extension:", why, flush=True)
        from torch.utils.cpp_extension import load_inline
        self.ext = load_inline(
            name="overlap_probe_ext", cpp_sources=EXT_CPP,
            cuda_sources=EXT_CU_HEAD + KERNEL_SRC + EXT_CU_TAIL,
            functions=["launch_copy", "launch_wait", "launch_flag"],
            extra_cuda_cflags=["-O3", "-gencode=arch=compute_90,code=sm_90"], verbose=False)
        self.backend = "torch.utils.cpp_extension (nvcc)"

    def copy(self, stream, k, src, dst, per_block, period_ns, max_ns, ctrl, bytes_, t0, t1, smid):
        if self.backend.startswith("cupy"):
            np = self.np
            with self.cp.cuda.ExternalStream(stream.cuda_stream):
                self.f_copy((k,), (THREADS,), (
                    np.uint64(src.data_ptr()), np.uint64(dst.data_ptr()), np.int64(per_block),
                    np.int64(period_ns), np.int64(max_ns), np.uint64(ctrl.data_ptr()),
                    np.uint64(bytes_.data_ptr()), np.uint64(t0.data_ptr()),
                    np.uint64(t1.data_ptr()), np.uint64(smid.data_ptr())), shared_mem=SMEM)
        else:
            with torch.cuda.stream(stream):
                self.ext.launch_copy(src, dst, k, THREADS, SMEM, per_block, period_ns, max_ns,
                                     ctrl, bytes_, t0, t1, smid)

    def wait(self, stream, ctrl, k, max_ns):
        if self.backend.startswith("cupy"):
            with self.cp.cuda.ExternalStream(stream.cuda_stream):
                self.f_wait((1,), (1,), (self.np.uint64(ctrl.data_ptr()), self.np.int32(k),
                                         self.np.int64(max_ns)))
        else:
            with torch.cuda.stream(stream):
                self.ext.launch_wait(ctrl, k, max_ns)

    def flag(self, stream, ctrl):
        if self.backend.startswith("cupy"):
            with self.cp.cuda.ExternalStream(stream.cuda_stream):
                self.f_flag((1,), (1,), (self.np.uint64(ctrl.data_ptr()),))
        else:
            with torch.cuda.stream(stream):
                self.ext.launch_flag(ctrl)


class Sampler(threading.Thread):
    """NVML SM clock / power / clock-event reasons every `dt` seconds, host-timestamped."""

    def __init__(self, dt=0.01):
        super().__init__(daemon=True)
        self.dt, self.samples, self.ok, self.err = dt, [], False, None
        self.stop_ev = threading.Event()
        try:
            import pynvml as nv
            nv.nvmlInit()
            self.nv, self.h = nv, nv.nvmlDeviceGetHandleByIndex(0)
            self.reasons = getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
                getattr(nv, "nvmlDeviceGetCurrentClocksThrottleReasons", None)
            self.ok = True
        except Exception as e:
            self.err = repr(e)

    def run(self):
        nv, h = self.nv, self.h
        while not self.stop_ev.is_set():
            try:
                t = time.perf_counter()
                clk = nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM)
                pw = nv.nvmlDeviceGetPowerUsage(h) / 1000.0
                rs = self.reasons(h) if self.reasons else 0
                self.samples.append((t, clk, pw, rs))
            except Exception as e:
                self.err = repr(e)
            time.sleep(self.dt)

    def window(self, t0, t1):
        s = [x for x in self.samples if t0 <= x[0] <= t1]
        if not s:
            return {}
        r = 0
        for x in s:
            r |= x[3]
        return {"sm_clock_mean_MHz": statistics.mean(x[1] for x in s),
                "sm_clock_min_MHz": min(x[1] for x in s),
                "power_mean_W": statistics.mean(x[2] for x in s),
                "clock_event_reasons_or": r, "nvml_samples": len(s)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--rounds", type=int, default=8, help="timed rounds (plus one warm-up round)")
    ap.add_argument("--window-ms", type=float, default=80.0, help="GEMM window per measurement")
    ap.add_argument("--buf-gib", type=float, default=2.0, help="copy source (= destination) size")
    ap.add_argument("--quick", action="store_true", help="one shape, 2 rounds, k in {8,32}")
    args = ap.parse_args()
    t_start = time.time()
    shapes, ks, rounds = SHAPES, KS, args.rounds
    if args.quick:
        shapes, ks, rounds = SHAPES[2:3], [8, 32], 2

    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    nsm = props.multi_processor_count
    res = {"format": "topoplan-overlap 1",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": " ".join([sys.executable] + sys.argv),
           "gpu": props.name, "sm_count": nsm,
           "l2_bytes": getattr(props, "L2_cache_size", None),
           "torch": torch.__version__, "cuda": torch.version.cuda,
           "params": {
               "threads_per_block": THREADS, "dyn_smem_bytes": SMEM, "chunk_bytes": CHUNK_BYTES,
               "buf_gib": args.buf_gib, "window_ms": args.window_ms, "rounds": rounds,
               "ks": ks, "modes": MODES,
               "rate_definition": "mode N = N GB/s copy payload aggregate over the k blocks "
                                  "(N GB/s read + N GB/s written, HBM traffic 2N)"},
           "errors": []}
    try:
        import triton
        res["triton"] = triton.__version__
    except Exception as e:
        res["triton"] = repr(e)
    try:
        res["default_blas"] = str(torch.backends.cuda.preferred_blas_library())
    except Exception as e:
        res["default_blas"] = repr(e)
    has_carve = hasattr(torch._C, "_set_sm_carveout_experimental")
    res["has_sm_carveout"] = has_carve

    def save():
        res["elapsed_s"] = time.time() - t_start
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)

    sampler = Sampler()
    res["nvml"] = sampler.ok or sampler.err
    if sampler.ok:
        try:
            nv, h = sampler.nv, sampler.h
            res["driver"] = nv.nvmlSystemGetDriverVersion()
            res["power_limit_W"] = nv.nvmlDeviceGetPowerManagementLimit(h) / 1000.0
            res["sm_clock_max_MHz"] = nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_SM)
            res["mem_clock_MHz"] = nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM)
        except Exception as e:
            res["errors"].append("nvml facts: " + repr(e))
        sampler.start()

    K = Kernels()
    res["copy_backend"], res["copy_backend_error"] = K.backend, K.error
    res["copy_kernel_attributes"] = K.attrs
    print("copy kernel via", K.backend, K.attrs, flush=True)

    # Buffers: copy src/dst, control words, per-block records.
    nbytes = int(args.buf_gib * 2 ** 30)
    src = torch.randint(-2 ** 31, 2 ** 31 - 1, (nbytes // 4,), dtype=torch.int32, device=dev)
    dst = torch.empty_like(src)
    ctrl = torch.zeros(4, dtype=torch.int32, device=dev)
    rb = torch.zeros(nsm, dtype=torch.int64, device=dev)
    rt0 = torch.zeros(nsm, dtype=torch.int64, device=dev)
    rt1 = torch.zeros(nsm, dtype=torch.int64, device=dev)
    rsm = torch.full((nsm,), -1, dtype=torch.int32, device=dev)
    n16 = nbytes // 16
    sA = torch.cuda.Stream()
    sB = torch.cuda.Stream()

    def per_block(k):
        pb = (n16 // k) // (THREADS * UNROLL) * (THREADS * UNROLL)
        return pb

    def period_ns(k, mode):
        if mode == "hold":
            return -1
        if mode == "max":
            return 0
        rate = float(mode) * 1e9
        return max(1, int(round(CHUNK_BYTES * k / rate * 1e9)))

    def launch_copy(k, mode, max_ns):
        ctrl.zero_(); rb.zero_(); rt0.zero_(); rt1.zero_(); rsm.fill_(-1)
        torch.cuda.synchronize()
        K.copy(sA, k, src, dst, per_block(k), period_ns(k, mode), int(max_ns), ctrl, rb, rt0, rt1,
               rsm)

    def copy_record(k):
        b = rb[:k].tolist()
        t0 = rt0[:k].tolist()
        t1 = rt1[:k].tolist()
        sm = rsm[:k].tolist()
        span = (max(t1) - min(t0)) * 1e-9 if k else 0
        tot = sum(b)
        return {"copy_bytes": tot, "copy_span_ms": span * 1e3,
                "copy_GBps": tot / span / 1e9 if span > 0 else 0.0,
                "hbm_GBps": 2 * tot / span / 1e9 if span > 0 else 0.0,
                "distinct_sms": len(set(sm)), "smids": sm,
                "wait_timeout": int(ctrl[2].item())}

    # ---- 1. Copy kernel alone: residency, correctness, ceilings. ----
    copy_alone = []
    try:
        launch_copy(8, "max", 20e6)
        torch.cuda.synchronize()
    except Exception as e:
        if not K.backend.startswith("cupy"):
            raise
        K.use_ext("cupy launch: " + repr(e))
        res["copy_backend"], res["copy_backend_error"] = K.backend, K.error
        launch_copy(8, "max", 20e6)
        torch.cuda.synchronize()
    r = copy_record(8)
    pb = per_block(8)
    ok = bool(torch.equal(dst.view(-1, 4)[:THREADS * UNROLL * 4], src.view(-1, 4)[:THREADS * UNROLL * 4])
              and torch.equal(dst.view(-1, 4)[7 * pb:7 * pb + THREADS * UNROLL],
                              src.view(-1, 4)[7 * pb:7 * pb + THREADS * UNROLL]))
    res["copy_check"] = {"k": 8, "copied_equal": ok, "distinct_sms": r["distinct_sms"],
                         "smids": r["smids"], "GBps": r["copy_GBps"]}
    print("smoke: k=8 max copy equal=%s distinct SMs=%d smids=%s %.0f GB/s" % (
        ok, r["distinct_sms"], r["smids"], r["copy_GBps"]), flush=True)
    if not ok or r["distinct_sms"] != 8:
        res["errors"].append("copy smoke check failed")
    # torch's own copy: the HBM ceiling (bytes read + written).
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        dst.copy_(src)
    ts = []
    for _ in range(10):
        e0.record(); dst.copy_(src); e1.record(); torch.cuda.synchronize()
        ts.append(e0.elapsed_time(e1))
    res["torch_copy_hbm_GBps"] = 2 * nbytes / (statistics.median(ts) * 1e-3) / 1e9
    print("torch copy_: %.0f GB/s (read+write)" % res["torch_copy_hbm_GBps"], flush=True)
    for rep in range(5):
        for k in ks + ([nsm] if rep < 3 else []):
            for mode in MODES[1:]:
                if k == nsm and mode != "max":
                    continue
                launch_copy(k, mode, 30e6)
                torch.cuda.synchronize()
                rr = copy_record(k)
                rr.pop("smids")
                copy_alone.append({"k": k, "mode": mode, "rep": rep, **rr})
    res["copy_alone"] = copy_alone
    summ = {}
    for x in copy_alone:
        summ.setdefault((x["k"], x["mode"]), []).append(x["copy_GBps"])
    res["copy_alone_median_GBps"] = {"%d/%s" % kk: statistics.median(v) for kk, v in summ.items()}
    for kk, v in sorted(summ.items()):
        print("copy alone k=%3d %4s: %.1f GB/s payload (distinct SMs %s)" % (
            kk[0], kk[1], statistics.median(v),
            {x["distinct_sms"] for x in copy_alone if (x["k"], x["mode"]) == kk}), flush=True)
    save()

    # ---- 2. GEMMs with and without the channel kernel. ----
    def set_blas(lib, carve):
        if lib == "lt":
            torch.backends.cuda.preferred_blas_library("cublaslt")
        else:
            torch.backends.cuda.preferred_blas_library("cublas")
        if has_carve:
            torch._C._set_sm_carveout_experimental(carve)

    def configs():
        c = [("cublas", None, 0, "-")] * 2  # alone twice per round
        for k in ks:
            for m in MODES:
                c.append(("cublas", None, k, m))
        c.append(("lt", None, 0, "-"))
        for k in ([16, 32] if not args.quick else [32]):
            c.append(("lt", None, k, "max"))
            if has_carve:
                c += [("lt", k, 0, "-"), ("lt", k, k, "max"), ("lt", k, k, "400"), ("lt", k, k, "hold")]
        return c

    res["gemm"] = []
    res["profile"] = {}
    for (name, M, Kd, N) in shapes:
        x = torch.randn(M, Kd, device=dev, dtype=torch.bfloat16)
        w = torch.randn(N, Kd, device=dev, dtype=torch.bfloat16) / Kd ** 0.5
        wt = w.t()
        out = torch.empty(M, N, device=dev, dtype=torch.bfloat16)
        flops = 2.0 * M * N * Kd

        def gemm():
            torch.matmul(x, wt, out=out)

        # warm (clocks, cuBLAS heuristics) and size the window
        set_blas("cublas", None)
        for _ in range(5):
            gemm()
        torch.cuda.synchronize()
        e0.record()
        for _ in range(10):
            gemm()
        e1.record(); torch.cuda.synchronize()
        t1 = e0.elapsed_time(e1) / 10
        n = max(5, int(round(args.window_ms / t1)))
        tw = time.time()
        while time.time() - tw < 1.0:
            for _ in range(n):
                gemm()
            torch.cuda.synchronize()
        print("\n== %s: %.3f ms/GEMM alone (%.0f TFLOP/s), n=%d per window" % (
            name, t1, flops / t1 / 1e9, n), flush=True)

        # cuBLAS kernels and grids (no copy running), per BLAS backend / carveout.
        prof = {}
        for (lib, carve) in [("cublas", None), ("lt", None)] + \
                ([("lt", 16), ("lt", 32), ("cublas", 32)] if has_carve else []):
            try:
                set_blas(lib, carve)
                gemm(); torch.cuda.synchronize()
                from torch.profiler import profile, ProfilerActivity
                with profile(activities=[ProfilerActivity.CUDA]) as p:
                    gemm(); gemm(); torch.cuda.synchronize()
                fn = "/tmp/overlap_trace_%d.json" % os.getpid()
                p.export_chrome_trace(fn)
                with open(fn) as f:
                    tr = json.load(f)
                os.remove(fn)
                ks_ = []
                for ev in tr.get("traceEvents", []):
                    if ev.get("cat") == "kernel":
                        a = ev.get("args", {})
                        ks_.append({"name": ev.get("name"), "grid": a.get("grid"),
                                    "block": a.get("block"), "smem": a.get("shared memory"),
                                    "regs": a.get("registers per thread"),
                                    "dur_us": ev.get("dur")})
                prof["%s/carve=%s" % (lib, carve)] = ks_[:4]
                if ks_:
                    g = ks_[0]["grid"]
                    print("  kernel %s/carve=%s: %s grid=%s block=%s smem=%s" % (
                        lib, carve, ks_[0]["name"][:90], g, ks_[0]["block"], ks_[0]["smem"]),
                        flush=True)
            except Exception as e:
                prof["%s/carve=%s" % (lib, carve)] = "error: " + repr(e)
                print("  profile error", lib, carve, repr(e), flush=True)
        set_blas("cublas", None)
        res["profile"][name] = prof

        cfgs = configs()
        for rnd in range(-1, rounds):
            order = list(cfgs)
            random.Random(1000 * rnd + len(name)).shuffle(order)
            for (lib, carve, k, mode) in order:
                try:
                    set_blas(lib, carve)
                    if k:
                        launch_copy(k, mode, 5e9)
                        K.wait(sB, ctrl, k, int(1e9))
                    else:
                        torch.cuda.synchronize()
                    th0 = time.perf_counter()
                    with torch.cuda.stream(sB):
                        e0.record(sB)
                        for _ in range(n):
                            gemm()
                        e1.record(sB)
                    if k:
                        K.flag(sB, ctrl)
                    torch.cuda.synchronize()
                    th1 = time.perf_counter()
                    ms = e0.elapsed_time(e1) / n
                    rec = {"shape": name, "M": M, "K": Kd, "N": N, "lib": lib, "carveout": carve,
                           "k": k, "mode": mode, "round": rnd, "n": n, "gemm_ms": ms,
                           "tflops": flops / ms / 1e9, "window_ms": ms * n}
                    if k:
                        cr = copy_record(k)
                        if rnd != 0:
                            cr.pop("smids")
                        rec.update(cr)
                    rec.update(sampler.window(th0, th1) if sampler.ok else {})
                    if rnd >= 0:
                        res["gemm"].append(rec)
                except Exception as e:
                    res["errors"].append("%s %s: %s" % (name, (lib, carve, k, mode), repr(e)))
                    traceback.print_exc()
            set_blas("cublas", None)
        save()
        del x, w, out
        torch.cuda.empty_cache()

    # ---- 3. Summary. ----
    rows = []
    groups = {}
    for r in res["gemm"]:
        groups.setdefault((r["shape"], r["lib"], r["carveout"], r["k"], r["mode"]), []).append(r)
    base = {}
    for (shape, lib, carve, k, mode), v in groups.items():
        if k == 0 and carve is None:
            base[(shape, lib)] = statistics.median(x["gemm_ms"] for x in v)
    for key in sorted(groups, key=lambda t: (t[0], t[1], t[2] or 0, t[3], str(t[4]))):
        shape, lib, carve, k, mode = key
        v = groups[key]
        ms = statistics.median(x["gemm_ms"] for x in v)
        b = base.get((shape, lib))
        kk = k or (carve or 0)
        row = {"shape": shape, "lib": lib, "carveout": carve, "k": k, "mode": mode,
               "reps": len(v), "gemm_ms_median": ms,
               "gemm_ms_min": min(x["gemm_ms"] for x in v),
               "gemm_ms_max": max(x["gemm_ms"] for x in v),
               "alone_ms_median": b, "slowdown": ms / b if b else None,
               "pred_sm_share": nsm / (nsm - kk) if kk else 1.0,
               "pred_linear": 1 + kk / nsm,
               "copy_GBps_median": statistics.median(x.get("copy_GBps", 0) for x in v),
               "distinct_sms_min": min(x.get("distinct_sms", 0) for x in v),
               "sm_clock_MHz_median": statistics.median(x.get("sm_clock_mean_MHz", 0) for x in v),
               "power_W_median": statistics.median(x.get("power_mean_W", 0) for x in v)}
        rows.append(row)
    res["summary"] = rows
    save()
    print("\n%-36s %-7s %5s %3s %5s %8s %8s %7s %7s %7s %8s %5s %6s" % (
        "shape", "lib", "carve", "k", "mode", "alone", "with", "slow", "132/(132-k)", "1+k/132",
        "copyGB/s", "MHz", "W"))
    for r in rows:
        print("%-36s %-7s %5s %3d %5s %8.3f %8.3f %7.3f %7.3f %7.3f %8.1f %5.0f %6.0f" % (
            r["shape"][:36], r["lib"], r["carveout"], r["k"], r["mode"], r["alone_ms_median"] or 0,
            r["gemm_ms_median"], r["slowdown"] or 0, r["pred_sm_share"], r["pred_linear"],
            r["copy_GBps_median"], r["sm_clock_MHz_median"], r["power_W_median"]))
    if sampler.ok:
        sampler.stop_ev.set()
    print("errors:", res["errors"])
    print("elapsed %.0f s" % (time.time() - t_start))


if __name__ == "__main__":
    main()
