#!/usr/bin/env python3
"""DeepGEMM's block-scaled FP8 GEMMs against cuBLASLt per-tensor FP8, at DeepSeek-R1's shapes.

SGLang 0.5.x runs R1's dense block-FP8 linears through DeepGEMM on sm90 (docs/compute-model.md,
"Which block-FP8 kernel runs"); the planner's `--fp8-block-gemm auto` priced them at cuBLASLt's
per-tensor FP8 rate because DeepGEMM had not been measured. This probe times, for each shape,
DeepGEMM `gemm_fp8_fp8_bf16_nt` (1x128 activation scales, 128x128 weight scales, bf16 out) and
torch._scaled_mm with per-tensor scales (the kernel the model's fp8 curve was fitted on), so the
ratio of the two rates is measured on one GPU in one run.

DeepGEMM is not on the device image and is not part of this repository: the run carries a copy
(deepseek-ai/DeepGEMM at 03d0be3, its last pure-Python JIT version, with CUTLASS eefa1713's
include/cute and include/cutlass beside its own headers) in an ignored folder and puts it on
PYTHONPATH. Kernels are compiled by DeepGEMM's own NVCC JIT; `--warm` compiles a slice of the
shapes in a separate process first so that the slices compile in parallel.

Shapes (m, n, k), weights n x k:
- "readme": the six dense shapes of DeepGEMM's README performance table at m = 4096 (published
  on H800 with NVCC 12.8; H800 and H200 have the same SMs and tensor-core peak), to check that the
  copy runs as published;
- "r1 tp8": the per-GPU dense linears of R1 under `--tp 8` at EP1 (models/deepseek-r1.json):
  fused q_a + kv_a (2112 x 7168, replicated), q_a alone, kv_a alone, q_b / tp8, kv_b / tp8,
  o_proj / tp8, the dense layers' gate+up / tp8 and down / tp8, the shared expert's gate+up and
  down / tp8, each at m = 8000 (an 8,192-token chunk holding two 4,000-token prompts, as
  probe_r1_prefill.py), 2000 and 64;
- "masked": DeepGEMM's masked grouped GEMM at EP decode shapes (32 local experts, 32 / 128 rows
  per expert, R1's expert gate+up 4096 x 7168 and down 7168 x 2048), the kernel SGLang's DeepEP
  low-latency decode runs.

Usage: python3 tools/measure/probe_deepgemm.py --out deepgemm-h200.json [--set prefill|decode] [--warm I/N]

Decode set (`--set decode`): the linears of a TP8 EP1 decode step at m = 1 ... 512.
Sweep set (`--set sweep`): m 16, k 7168 and 2048, n 128 ... 9216, with the tile config (CTAs,
BLOCK_M/N, stages) DeepGEMM's heuristic picked for each point.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_moe_tp import bench, points_document  # noqa: E402 - do_bench median, document head

README = [(4096, 2112, 7168), (4096, 24576, 1536), (4096, 32768, 512), (4096, 7168, 16384),
          (4096, 4096, 7168), (4096, 7168, 2048)]
# Published DeepGEMM TFLOPS for README (H800, NVCC 12.8; DeepGEMM README at a6d97a1, 2025-02-25).
README_H800_TFLOPS = [1058, 990, 590, 1358, 1304, 1025]
R1_TP8 = [("fused q_a+kv_a (replicated)", 2112, 7168), ("q_a_proj (replicated)", 1536, 7168),
          ("kv_a_proj_with_mqa (replicated)", 576, 7168), ("q_b_proj /tp8", 3072, 1536),
          ("kv_b_proj /tp8", 4096, 512), ("o_proj /tp8", 7168, 2048),
          ("dense gate+up /tp8", 4608, 7168), ("dense down /tp8", 7168, 2304),
          ("shared gate+up /tp8", 512, 7168), ("shared down /tp8", 7168, 256)]
R1_M = [8000, 2000, 64]
# Decode: the linears a TP8 EP1 decode step runs (kv_b is absorbed into bf16 bmm there).
DECODE = [R1_TP8[i] for i in (0, 3, 5, 6, 7, 8, 9)]
DECODE_M = [1, 8, 16, 32, 128, 256, 512]
# Sweep (--set sweep): one 64-row block (m 16), two depths, widths from 128 to 9,216 columns, to
# see how the k-loop time grows with the number of CTAs DeepGEMM's heuristic launches.
SWEEP_N = [128, 256, 512, 1024, 1536, 2112, 3072, 4096, 4608, 6144, 7168, 9216]
SWEEP_K = [7168, 2048]
MASKED = [(32, 32, 4096, 7168), (32, 32, 7168, 2048), (32, 128, 4096, 7168), (32, 128, 7168, 2048)]


def cases(which):
    if which == "sweep":
        return [("sweep", f"sweep n{n} k{k}", 16, n, k, None) for k in SWEEP_K for n in SWEEP_N]
    if which == "decode":
        return [("r1 decode", f"deepseek-r1 {label}", m, n, k, None)
                for m in DECODE_M for label, n, k in DECODE]
    out = [("readme", f"readme m{m} n{n} k{k}", m, n, k, None) for m, n, k in README]
    out += [("r1 tp8", f"deepseek-r1 {label}", m, n, k, None)
            for m in R1_M for label, n, k in R1_TP8]
    out += [("masked", f"deepseek-r1 EP decode {g} experts x {t} rows", t, n, k, g)
            for g, t, n, k in MASKED]
    return out


def quant_rows(x):
    """bf16 [.., m, k] -> fp8 and fp32 scales per 1 x 128 group along k."""
    *lead, m, k = x.shape
    g = x.float().view(*lead, m, k // 128, 128)
    s = g.abs().amax(-1).clamp(min=1e-4) / 448.0
    return (g / s.unsqueeze(-1)).to(torch.float8_e4m3fn).view(*lead, m, k), s


def quant_blocks(w):
    """bf16 [.., n, k] -> fp8 and fp32 scales per 128 x 128 block (n padded up to 128)."""
    *lead, n, k = w.shape
    npad = -(-n // 128) * 128
    wp = torch.zeros(*lead, npad, k, device=w.device, dtype=torch.float32)
    wp[..., :n, :] = w.float()
    b = wp.view(*lead, npad // 128, 128, k // 128, 128)
    s = b.abs().amax(dim=(-3, -1)).clamp(min=1e-4) / 448.0
    q = (b / s.unsqueeze(-2).unsqueeze(-1)).to(torch.float8_e4m3fn).view(*lead, npad, k)
    return q[..., :n, :].contiguous(), s.contiguous()


def dense_case(dg, m, n, k):
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    xq, xs = quant_rows(x)
    wq, ws = quant_blocks(w)
    xs = dg.get_col_major_tma_aligned_tensor(xs)
    out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    run = lambda: dg.gemm_fp8_fp8_bf16_nt((xq, xs), (wq, ws), out)  # noqa: E731
    return run, (lambda: out), lambda: x.float() @ w.float().t()


def masked_case(dg, g, t, n, k):
    # DeepEP low-latency buffers hold more rows than an expert receives: max_m is a whole number
    # of 64-row blocks (the kernel reads whole blocks), the mask says how many rows are real.
    max_m = max(64, -(-t // 64) * 64)
    x = torch.randn(g, max_m, k, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(g, n, k, device="cuda", dtype=torch.bfloat16) / k ** 0.5
    xq, xs = quant_rows(x)
    wq, ws = quant_blocks(w)
    xs = dg.get_col_major_tma_aligned_tensor(xs)
    out = torch.empty(g, max_m, n, device="cuda", dtype=torch.bfloat16)
    rows = torch.full((g,), t, device="cuda", dtype=torch.int32)
    run = lambda: dg.m_grouped_gemm_fp8_fp8_bf16_nt_masked((xq, xs), (wq, ws), out, rows, t)  # noqa
    ref = lambda: torch.einsum("gmk,gnk->gmn", x[:, :t].float(), w.float())  # noqa: E731
    return run, (lambda: out[:, :t]), ref


FLUSH = None


def kernel_us(fn, iters=30):
    """Median GPU time of the kernels `fn` launches, from CUPTI (torch.profiler), L2 flushed first.

    The first run of this probe timed with do_bench (events around back-to-back calls) and found
    an 85-100 us floor on every small shape: DeepGEMM's Python wrapper takes longer per call than
    the kernel, so event timing measured the host. Kernel durations do not see the host.
    """
    global FLUSH
    if FLUSH is None:
        FLUSH = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    fn()
    torch.cuda.synchronize()
    acts = [torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=acts) as prof:
        for _ in range(iters):
            FLUSH.zero_()
            fn()
        torch.cuda.synchronize()
    evs, kernels = [], set()
    for e in prof.events():
        name = e.name.lower()
        if e.device_type != torch.autograd.DeviceType.CUDA or "elementwise" in name \
                or "fill" in name or "memset" in name:
            continue
        evs.append((e.time_range.start, e.time_range.end - e.time_range.start))
        kernels.add(e.name[:60])
    evs.sort()
    per = len(evs) // iters  # kernels per call
    if per == 0 or len(evs) % iters:
        raise RuntimeError(f"{len(evs)} kernels in {iters} calls: {sorted(kernels)}")
    sums = [sum(d for _, d in evs[i * per:(i + 1) * per]) for i in range(iters)]
    return statistics.median(sums), sorted(kernels)


def per_tensor_us(m, n, k, groups):
    a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.ones((), device="cuda")
    us, _ = kernel_us(lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16))
    return us * (groups or 1)  # grouped: the same GEMM once per expert, back to back


def point(dg, kind, label, m, n, k, groups, timed=True):
    p = {"op": "grouped_gemm" if groups else "tp_gemm", "dtype": "fp8", "kind": kind,
         "variant": "fp8_block_deepgemm", "label": label, "m": m, "n": n, "k": k}
    if groups:
        p["groups"] = groups
    g = groups or 1
    p["flops"] = 2.0 * g * m * n * k
    p["bytes"] = g * (n * k + m * k + 2 * m * n)
    try:
        run, out, ref = masked_case(dg, groups, m, n, k) if groups else dense_case(dg, m, n, k)
        t0 = time.time()
        out().fill_(float("nan"))
        run()
        torch.cuda.synchronize()
        p["first_call_s"] = round(time.time() - t0, 2)  # includes the JIT compile when not cached
        r = ref()
        p["relative_error"] = float((out().float() - r).norm() / r.norm())
        if not timed:
            return p
        p["event_median_us"] = bench(run)  # host-bound where the wrapper is slower than the GPU
        us, p["kernels"] = kernel_us(run)
        p["median_us"], p["TFLOPS"] = us, p["flops"] / us * 1e-6
        t = per_tensor_us(m, n, k, groups)
        p["cublaslt_fp8_tensor_us"], p["ratio_deepgemm_over_tensor_rate"] = t, t / us
    except Exception as e:  # noqa: BLE001 - record and go on
        p["error"] = f"{type(e).__name__}: {str(e)[:300]}"
    torch.cuda.empty_cache()
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--warm", help="I/N: only compile slice I of N (no timing)")
    ap.add_argument("--set", default="prefill", choices=["prefill", "decode", "sweep"],
                    help="prefill: README, R1 TP8 at m 8000/2000/64, masked EP; decode: m 1-512")
    args = ap.parse_args()
    import deep_gemm as dg
    all_cases = cases(args.set)
    if args.warm:
        i, n = map(int, args.warm.split("/"))
        for c in all_cases[i::n]:
            p = point(dg, *c, timed=False)
            print(f"warm {c[1]} m{c[2]}: {p.get('first_call_s')} s {p.get('error', '')[:120]}",
                  flush=True)
        return
    doc = points_document("tools/measure/probe_deepgemm.py", args.out, [])
    doc["command"] += f" --set {args.set}"
    doc["deepgemm"] = "deepseek-ai/DeepGEMM 03d0be3 (2025-07-02), CUTLASS eefa1713 headers, NVCC JIT"
    doc["nvcc"] = os.popen("nvcc --version | tail -2").read().strip()
    for c in all_cases + all_cases[:1]:  # the first shape again: warm-up effects
        p = point(dg, *c)
        if not c[5]:  # the tile config DeepGEMM's heuristic picks (CTAs, block m/n, stages)
            try:
                from deep_gemm.jit_kernels.gemm import get_best_configs
                cfg = get_best_configs(c[2], c[3], c[4], 1, dg.get_num_sms())
                p["config"] = {"sms": cfg[0], "block_m": cfg[1], "block_n": cfg[2],
                               "stages": cfg[3], "multicast": list(cfg[4])}
                p["ctas"] = -(-c[2] // cfg[1]) * -(-c[3] // cfg[2])
            except Exception as e:  # noqa: BLE001 - the heuristic's signature differs by version
                p["config_error"] = f"{type(e).__name__}: {str(e)[:120]}"
        if c[0] == "readme":
            p["published_h800_TFLOPS"] = README_H800_TFLOPS[README.index(c[2:5])]
        doc["points"].append(p)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"{c[1]:52s} m{c[2]:5d} ctas {p.get('ctas', 0):4d} {p.get('median_us', float('nan')):9.1f} us "
              f"{p.get('TFLOPS', float('nan')):7.1f} TF  tensor/dg "
              f"{p.get('ratio_deepgemm_over_tensor_rate', float('nan')):5.3f} "
              f"err {p.get('relative_error', float('nan')):.1e} {p.get('error', '')[:100]}",
              flush=True)


if __name__ == "__main__":
    main()
