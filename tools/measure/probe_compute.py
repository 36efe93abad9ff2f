#!/usr/bin/env python3
"""Single-GPU compute probe for topoplan's compute model (docs/compute-model.md).

Measures, on the first CUDA device, with PyTorch:
  copy     device-to-device copy, 64 KiB .. 4 GiB (bytes = read + written, as STREAM copy counts)
  gemv     decode-sized products y = x W^T, m = 1..128 tokens, weight shapes the catalog produces
  gemm     prefill-sized products, m = 256..16384, plus square m=n=k GEMMs for published checks
  attn     decode attention (1 query token) against a KV cache, torch SDPA, GQA 32q/8kv, d=128
  floor    a tiny kernel: eager (launch-bound) and inside a CUDA graph (GPU-side per-kernel cost)
in bf16 (torch.nn.functional.linear -> cuBLAS) and fp8 e4m3 (torch._scaled_mm, per-tensor scales,
bf16 output -> cuBLASLt). Every timed region is a CUDA graph of many kernels replayed several times
and timed with CUDA events; the point's time is the median over replays divided by kernels per
graph (CUDA graphs: this is how serving engines run decode, and it removes host launch gaps).
Inputs rotate over enough copies that each graph touches > 2x the L2 cache, so weights come from
HBM as they do in a real model. Random data (never zeros). Writes JSON to --out.

Usage: python3 tools/measure/probe_compute.py --out result.json [--quick]
"""
import argparse
import datetime
import json
import math
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB

# Weight shapes (k inputs, n outputs) that the model catalog produces for decode. W is (n, k).
WEIGHT_SHAPES = [
    (4096, 4096, "llama-3-8b o_proj"),
    (4096, 6144, "llama-3-8b qkv_proj"),
    (4096, 14336, "llama-3-8b up or gate"),
    (14336, 4096, "llama-3-8b down"),
    (8192, 8192, "llama-3-70b o_proj"),
    (8192, 28672, "llama-3-70b up or gate"),
    (7168, 18432, "deepseek-v3 dense up or gate"),
    (7168, 2048, "deepseek-v3 routed expert up or gate"),
    (2048, 7168, "deepseek-v3 routed expert down"),
    (16384, 53248, "llama-3.1-405b up or gate"),
    (8192, 1024, "llama-3-70b TP=8 kv shard"),
    (1024, 8192, "llama-3-70b TP=8 o_proj shard (k=1024)"),
    (2048, 2048, "small"),
]
DECODE_M = [1, 2, 4, 8, 16, 32, 64, 128]
PREFILL_M = [256, 512, 1024, 2048, 4096, 8192, 16384]
PREFILL_SHAPES = [(4096, 4096), (4096, 14336), (8192, 8192), (8192, 28672), (7168, 2048),
                  (16384, 53248), (1024, 8192)]
SQUARE = [1024, 2048, 4096, 8192, 16384]
L2_TOUCH = 128 * MIB  # > 2x the H200's L2 (60 MB reported by torch)


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=20).stdout.strip()
    except Exception as e:  # noqa: BLE001 - report, never fail the probe on a query
        return f"unavailable: {e}"


def time_graph(fn_list, replays=7, warm=2):
    """Captures fn_list (callables) in one CUDA graph; returns median seconds per kernel call."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for fn in fn_list[: min(len(fn_list), 3)]:
            fn()  # warm-up outside capture: cuBLAS handles, workspaces, heuristics
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for fn in fn_list:
            fn()
    for _ in range(warm):
        g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e-3 / len(fn_list))
    del g
    return statistics.median(times), min(times), max(times)


def calls_for(bytes_per_call, seconds_guess, budget_s=0.004, cap=2048):
    """Kernels per graph: enough copies to exceed L2, enough calls to run ~budget_s."""
    n_touch = max(1, math.ceil(L2_TOUCH / max(bytes_per_call, 1)))
    n_time = max(1, math.ceil(budget_s / max(seconds_guess, 2e-6)))
    return min(cap, max(n_touch, n_time, 4))


def point(op, dtype, m, n, k, bytes_, flops, t, extra=None):
    med, lo, hi = t
    p = {"op": op, "dtype": dtype, "m": m, "n": n, "k": k, "bytes": bytes_, "flops": flops,
         "median_us": med * 1e6, "min_us": lo * 1e6, "max_us": hi * 1e6,
         "GBps": bytes_ / med / 1e9, "TFLOPS": flops / med / 1e12}
    if extra:
        p.update(extra)
    return p


def probe_copy(points, quick):
    pool = 2 * GIB if quick else 4 * GIB
    src = torch.randn(pool // 2, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    size = 64 * KIB
    while size <= pool:
        elems = size // 2
        nslots = max(1, (pool // size))
        calls = calls_for(2 * size, 2 * size / 3.5e12)
        fns = []
        for i in range(calls):
            off = (i % nslots) * elems
            fns.append(lambda o=off: dst[o:o + elems].copy_(src[o:o + elems]))
        t = time_graph(fns, replays=5 if size >= GIB else 7)
        points.append(point("copy", "bf16", 0, 0, 0, 2 * size, 0, t, {"size_bytes": size}))
        print(f"copy {size/MIB:10.3f} MiB  {t[0]*1e6:10.2f} us  {2*size/t[0]/1e9:8.1f} GB/s", flush=True)
        size *= 2
    del src, dst
    torch.cuda.empty_cache()


def make_weights(n, k, dtype, nbytes):
    copies = max(2, math.ceil(L2_TOUCH / nbytes))
    ws = []
    for _ in range(copies):
        w = torch.randn(n, k, dtype=torch.bfloat16, device="cuda")
        ws.append(w.to(torch.float8_e4m3fn) if dtype == "fp8" else w)
    return ws


def linear_fns(ws, x, dtype, out, fp8_pad):
    one = torch.ones((), dtype=torch.float32, device="cuda")
    fns = []
    for w in ws:
        if dtype == "bf16":
            fns.append(lambda w=w: torch.matmul(x, w.t(), out=out))
        else:
            fns.append(lambda w=w: torch._scaled_mm(x, w.t(), scale_a=one, scale_b=one,
                                                     out_dtype=torch.bfloat16))
    return fns


def probe_linear(points, op, shapes, ms, dtypes, quick):
    for dtype in dtypes:
        esz = 2 if dtype == "bf16" else 1
        for (k, n, *label) in shapes:
            wbytes = n * k * esz
            try:
                ws = make_weights(n, k, dtype, wbytes)
            except torch.OutOfMemoryError:
                print(f"OOM allocating {n}x{k} {dtype}", flush=True)
                continue
            for m in ms:
                try:
                    p = run_linear_point(op, dtype, m, n, k, ws, wbytes, esz, label, pad=False)
                except Exception:  # noqa: BLE001 - fp8 cuBLASLt path may require m % 16 == 0
                    p = None
                if p is None and dtype == "fp8" and m % 16:
                    try:
                        p = run_linear_point(op, dtype, m, n, k, ws, wbytes, esz, label, pad=True)
                    except Exception:  # noqa: BLE001
                        p = None
                if p is None:
                    try:
                        p = run_linear_point(op, dtype, m, n, k, ws, wbytes, esz, label, pad=False)
                    except Exception as e:  # noqa: BLE001 - record the failure and go on
                        points.append({"op": op, "dtype": dtype, "m": m, "n": n, "k": k,
                                       "error": f"{type(e).__name__}: {e}"[:300]})
                        print(f"{op} {dtype} m={m} n={n} k={k} FAILED {e}"[:300], flush=True)
                        continue
                points.append(p)
                print(f"{op} {dtype} m={m:6d} n={n:6d} k={k:6d} {p['median_us']:10.2f} us "
                      f"{p['GBps']:8.1f} GB/s {p['TFLOPS']:8.1f} TFLOPS {p.get('note', '')}", flush=True)
            del ws
            torch.cuda.empty_cache()


def run_linear_point(op, dtype, m, n, k, ws, wbytes, esz, label, pad):
    run_m, note = m, None
    if pad and m % 16:
        run_m, note = 16 * math.ceil(m / 16), "fp8 _scaled_mm needs m % 16 == 0: m padded"
    xb = torch.randn(run_m, k, dtype=torch.bfloat16, device="cuda")
    x = xb.to(torch.float8_e4m3fn) if dtype == "fp8" else xb
    out = torch.empty(run_m, n, dtype=torch.bfloat16, device="cuda")
    flops = 2.0 * m * n * k
    bytes_ = wbytes + m * k * esz + m * n * 2
    guess = max(bytes_ / 3.5e12, flops / (600e12 if dtype == "bf16" else 1200e12))
    per_copy = max(1, math.ceil(calls_for(wbytes, guess, cap=512) / len(ws)))
    fns = linear_fns(ws, x, dtype, out, note) * per_copy
    t = time_graph(fns, replays=5 if guess > 5e-3 else 7)
    extra = {"label": label[0] if label else f"{n}x{k}"}
    if note:
        extra.update({"note": note, "run_m": run_m})
    return point(op, dtype, m, n, k, bytes_, flops, t, extra)


def probe_attention(points):
    hq, hkv, d = 32, 8, 128
    for b in [1, 8, 32]:
        for L in [1024, 8192, 32768]:
            try:
                kv_bytes = 2 * b * hkv * L * d * 2
                copies = max(1, math.ceil(L2_TOUCH / kv_bytes))
                kvs = [(torch.randn(b, hkv, L, d, dtype=torch.bfloat16, device="cuda"),
                        torch.randn(b, hkv, L, d, dtype=torch.bfloat16, device="cuda"))
                       for _ in range(copies)]
                q = torch.randn(b, hq, 1, d, dtype=torch.bfloat16, device="cuda")
                fns = [lambda kv=kv: F.scaled_dot_product_attention(q, kv[0], kv[1], enable_gqa=True)
                       for kv in kvs] * max(1, math.ceil(64 / copies))
                t = time_graph(fns)
                flops = 4.0 * b * hq * L * d
                p = point("attn_decode", "bf16", b, L, d, kv_bytes, flops, t,
                          {"heads_q": hq, "heads_kv": hkv, "batch": b, "context": L})
                points.append(p)
                print(f"attn b={b} L={L} {p['median_us']:.2f} us {p['GBps']:.1f} GB/s", flush=True)
                del kvs
            except Exception as e:  # noqa: BLE001
                points.append({"op": "attn_decode", "batch": b, "context": L,
                               "error": f"{type(e).__name__}: {e}"[:300]})
                print(f"attn b={b} L={L} FAILED {e}"[:300], flush=True)
    torch.cuda.empty_cache()


def probe_floor(points):
    x = torch.zeros(1, dtype=torch.float32, device="cuda")
    # Graph: GPU-side cost of back-to-back tiny kernels (what a CUDA-graph decode step pays).
    t = time_graph([lambda: x.add_(1.0)] * 1000)
    points.append(point("floor_graph", "fp32", 0, 0, 0, 8, 1, t))
    # Eager: host launch-bound rate of the same kernel, for non-graph execution.
    for _ in range(100):
        x.add_(1.0)
    torch.cuda.synchronize()
    times = []
    for _ in range(7):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(1000):
            x.add_(1.0)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e-3 / 1000)
    points.append(point("floor_eager", "fp32", 0, 0, 0, 8, 1,
                        (statistics.median(times), min(times), max(times))))
    # Smallest cuBLAS GEMV in a graph: the GEMM library's own floor.
    w = [torch.randn(256, 256, dtype=torch.bfloat16, device="cuda") for _ in range(4)]
    v = torch.randn(1, 256, dtype=torch.bfloat16, device="cuda")
    t = time_graph([lambda w=w_: torch.matmul(v, w.t()) for w_ in w] * 250)
    points.append(point("floor_gemv", "bf16", 1, 256, 256, 256 * 256 * 2, 2 * 256 * 256, t))
    for p in points[-3:]:
        print(f"{p['op']}: {p['median_us']:.2f} us", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="fewer sizes, for a smoke test")
    ap.add_argument("--skip", default="", help="comma list of sections to skip")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    torch.manual_seed(0)
    dev = torch.cuda.get_device_properties(0)
    meta = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join([sys.executable] + sys.argv),
        "gpu_torch": torch.cuda.get_device_name(0),
        "sm_count": dev.multi_processor_count,
        "l2_bytes": getattr(dev, "L2_cache_size", None),
        "memory_bytes": dev.total_memory,
        "torch": torch.__version__, "cuda_runtime": torch.version.cuda,
        "cublas_note": "bf16 via torch.matmul (cuBLAS), fp8 via torch._scaled_mm (cuBLASLt)",
        "nvidia_smi": sh("nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,"
                         "clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu --format=csv"),
        "method": __doc__.strip().splitlines()[0],
        "timing": "CUDA graph of N kernels, CUDA events, median of 5-7 replays / N; "
                  "inputs rotated over > 128 MiB; random data",
    }
    print(json.dumps(meta, indent=1), flush=True)
    points = []
    t0 = time.time()
    fp8_ok = hasattr(torch, "_scaled_mm") and hasattr(torch, "float8_e4m3fn")
    dtypes = ["bf16", "fp8"] if fp8_ok else ["bf16"]
    meta["fp8_available"] = fp8_ok
    sections = [
        ("floor", lambda: probe_floor(points)),
        ("copy", lambda: probe_copy(points, args.quick)),
        ("gemv", lambda: probe_linear(points, "gemv", WEIGHT_SHAPES[:4] if args.quick else WEIGHT_SHAPES,
                                      DECODE_M, dtypes, args.quick)),
        ("gemm", lambda: probe_linear(points, "gemm", PREFILL_SHAPES[:2] if args.quick else PREFILL_SHAPES,
                                      PREFILL_M, dtypes, args.quick)),
        ("square", lambda: [probe_linear(points, "gemm_square", [(s, s)], [s], dtypes, args.quick)
                            for s in SQUARE]),
        ("attn", lambda: probe_attention(points)),
    ]
    for name, fn in sections:
        if name in skip:
            continue
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - keep the other sections' results
            print(f"== {name} FAILED: {type(e).__name__}: {e}", flush=True)
            meta.setdefault("section_errors", {})[name] = f"{type(e).__name__}: {e}"[:300]
        print(f"== {name} done at {time.time()-t0:.1f} s", flush=True)
        with open(args.out, "w") as f:  # keep partial results if a later section dies
            json.dump({"meta": meta, "points": points}, f, indent=1)
    meta["nvidia_smi_after"] = sh("nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,"
                                  "temperature.gpu --format=csv")
    meta["elapsed_s"] = time.time() - t0
    with open(args.out, "w") as f:
        json.dump({"meta": meta, "points": points}, f, indent=1)


if __name__ == "__main__":
    main()
