#!/usr/bin/env python3
"""Expert GEMMs of an expert-parallel MoE on one GPU: few tokens per expert, whole expert matrices.

Under EP (expert-TP 1) every GPU holds E = 256 / ep of DeepSeek-V3/R1's routed experts unsliced:
gate+up is n = 4096, k = 7168 and down is n = 7168, k = 2048 (models/deepseek-v3.json). At decode
each expert sees only the tokens routed to it: 1024 tokens x top-8 / 256 experts = 32 per expert
for EP8 attention-DP at 128 sequences per rank. This script measures the grouped expert GEMM at
those shapes (issue 14): E in {8, 32, 64, 256} local experts, m = 1 .. 512 tokens per expert
(uniform: every expert gets m rows), and the expert-TP2 slices (n 2048 gate+up, k 1024 down) at
E = 32. Variants:

- `triton_fp8_block`: probe_moe_tp.py's grouped Triton kernel (imported from it, not copied):
  rows sorted by expert and gathered through an index, fp8 e4m3 operands with DeepSeek's block
  scales (1x128 activation groups, 128x128 weight blocks, fp32, applied per 128-wide k step),
  bf16 output. Each point is timed at 3 tile configs (BLOCK_M 16 / 32 / 64 .. 128 by m, BLOCK_N
  64 / 128, stages 3 .. 5; list in TILES) and the best one is the point, all three kept in
  "tile_results".
- `triton_bf16`: the same kernel in bf16 (no scales), same tile configs.
- `torch_grouped_mm_bf16`: torch._grouped_mm (CUTLASS grouped kernel in PyTorch), 2-D
  activations [E*m, k] x 3-D weights [E, k, n] (a transposed view of [E, n, k]) with int32 group
  offsets; recorded with an "error" field where the op is missing or refuses the shape.
- `torch_scaled_grouped_mm_fp8_rowwise`: torch._scaled_grouped_mm, fp8 with row-wise scales
  (one per activation row, one per weight column): the library's fp8 grouped kernel; not
  DeepSeek's block scaling, a reference for the rate a CUTLASS fp8 grouped kernel reaches.
- `torch_loop_bf16`: one torch.mm per expert in a Python loop (cuBLAS, E launches; E <= 32
  only), the naive reference.

Activations: one row per (token, expert) slot (gather index = slot), the layout DeepEP's dispatch
delivers to the local experts; random data, never zeros; inputs are rebuilt for each point, the
weights for each (shape, E, dtype). Bytes = weights + activations + scales (fp8) + bf16 outputs;
flops = 2 * E * m * n * k. Timing: probe_moe_tp.bench (triton.testing.do_bench, CUDA events,
median, L2 cleared between runs by do_bench; weights are 117 MB .. 15 GB, above the 60 MB L2);
points of more than 3 ms are re-timed with a longer window so that the median is of >= 10 runs.
A correctness check against an fp32 reference (every tile config, m not a multiple of BLOCK_M)
runs first. Points that fail are recorded with an "error" field.

Usage: python3 tools/measure/probe_moe_ep.py --out moe-ep-h200.json [--budget-s 300]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The same kernel, timer and document head.
from probe_moe_tp import bench, grouped_gemm, points_document  # noqa: E402

TOKENS_PER_EXPERT = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
MAX_ROWS = 65536  # E * m cap: skips only E = 256 with m = 512 (a 16k-token batch at EP1)
# (label, n, k, experts, tokens list): per-expert weight is n x k. E = 32 (EP8) first, then the
# expert-TP2 slices, E = 8, 64, 256, so that a budget cut loses the least-needed points.
ETP1 = [("deepseek-r1 experts gate+up etp1", 4096, 7168), ("deepseek-r1 experts down etp1", 7168,
                                                           2048)]
SHAPES = [(l, n, k, 32, TOKENS_PER_EXPERT) for l, n, k in ETP1]
SHAPES += [("deepseek-r1 experts gate+up etp2", 2048, 7168, 32, [8, 32, 128]),
           ("deepseek-r1 experts down etp2", 7168, 1024, 32, [8, 32, 128])]
SHAPES += [(l, n, k, e, TOKENS_PER_EXPERT) for e in (8, 64, 256) for l, n, k in ETP1]


def tiles(m):
    """(BLOCK_M, BLOCK_N, num_warps, num_stages) configs tried at m tokens per expert."""
    if m <= 16:
        return [(16, 128, 4, 3), (16, 64, 4, 4), (16, 128, 4, 5)]
    if m <= 64:
        return [(16, 128, 4, 3), (32, 128, 4, 3), (64, 128, 4, 3)]
    return [(32, 128, 4, 3), (64, 128, 4, 3), (128, 128, 8, 3)]


def rand_weights(experts, n, k, dt):
    """[experts, n, k] random weights, made 8 experts at a time (no fp32 copy of the whole)."""
    w = torch.empty(experts, n, k, device="cuda", dtype=dt)
    for e0 in range(0, experts, 8):
        w[e0:e0 + 8] = (torch.randn(min(8, experts - e0), n, k, device="cuda",
                                    dtype=torch.bfloat16) * 0.05).to(dt)
    return w


class Weights:
    def __init__(self, experts, n, k, fp8):
        self.experts, self.n, self.k, self.fp8 = experts, n, k, fp8
        self.b = rand_weights(experts, n, k, torch.float8_e4m3fn if fp8 else torch.bfloat16)
        ks = math.ceil(k / 128)
        self.sb = torch.rand(experts, math.ceil(n / 128), ks, device="cuda") + 0.5


class Case:
    """Inputs of one grouped GEMM: m rows for each of the weights' experts."""

    def __init__(self, w, m):
        self.w, self.m = w, m
        e, n, k = w.experts, w.n, w.k
        slots = e * m
        dt = torch.float8_e4m3fn if w.fp8 else torch.bfloat16
        self.a = (torch.randn(slots, k, device="cuda", dtype=torch.bfloat16) * 0.5).to(dt)
        # Slots of expert e are e*m .. e*m+m-1 in a random order (the sorted-index gather).
        self.ids = torch.randperm(slots, device="cuda").to(torch.int32)
        self.c = torch.empty(slots, n, device="cuda", dtype=torch.bfloat16)
        self.sa = torch.rand(slots, math.ceil(k / 128), device="cuda") + 0.5

    def run(self, bm, bn, warps, stages):
        w = self.w
        grid = (w.experts * triton.cdiv(self.m, bm) * triton.cdiv(w.n, bn),)
        grouped_gemm[grid](self.a, w.b, self.c, self.ids, self.sa, w.sb, self.m, w.n, w.k, 1,
                           BLOCKED=w.fp8, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=128, num_warps=warps,
                           num_stages=stages)

    def reference(self):
        w, m = self.w, self.m
        a, b = self.a.float(), w.b.float()
        if w.fp8:
            a = a * self.sa.repeat_interleave(128, dim=1)[:, :w.k]
            b = b * w.sb.repeat_interleave(128, 1).repeat_interleave(128, 2)[:, :w.n, :w.k]
        ids = self.ids.long().view(w.experts, m)
        y = torch.bmm(a[ids], b.transpose(1, 2))
        return ids.reshape(-1), y.reshape(-1, w.n)


def check():
    out = []
    for n, k in ((512, 1024), (1024, 2048)):
        for fp8 in (True, False):
            w = Weights(4, n, k, fp8)
            for m in (3, 37, 150):
                c = Case(w, m)
                ids, ref = c.reference()
                for cfg in tiles(m):
                    r = {"fp8": fp8, "n": n, "k": k, "m": m, "tile": list(cfg)}
                    try:
                        c.c.zero_()
                        c.run(*cfg)
                        torch.cuda.synchronize()
                        rel = float((c.c[ids].float() - ref).norm() / ref.norm())
                        r.update({"relative_error": rel, "ok": rel < 2e-2})
                    except Exception as e:  # noqa: BLE001 - shared memory overflow etc.
                        r["error"] = f"{type(e).__name__}: {str(e)[:120]}"
                    out.append(r)
    # torch._grouped_mm against the same kind of reference, where it exists.
    try:
        w = Weights(4, 512, 1024, False)
        a = torch.randn(4 * 24, 1024, device="cuda", dtype=torch.bfloat16)
        offs = torch.arange(1, 5, device="cuda", dtype=torch.int32) * 24
        y = torch._grouped_mm(a, w.b.transpose(-2, -1), offs=offs)
        ref = torch.bmm(a.float().view(4, 24, 1024), w.b.float().transpose(1, 2)).reshape(-1, 512)
        rel = float((y.float() - ref).norm() / ref.norm())
        out.append({"variant": "torch_grouped_mm_bf16", "relative_error": rel, "ok": rel < 2e-2})
    except Exception as e:  # noqa: BLE001
        out.append({"variant": "torch_grouped_mm_bf16", "error": f"{type(e).__name__}: {e}"[:200]})
    return out


def timed(fn):
    us = bench(fn)
    if us > 3000:  # bench's 40 ms window holds < 14 runs: widen it to >= 10 runs
        us = triton.testing.do_bench(fn, warmup=max(10, us * 1e-3), rep=us * 12e-3,
                                     return_mode="median") * 1e3
    return us


def base_point(label, experts, m, n, k, variant, fp8):
    slots = experts * m
    esz = 1 if fp8 else 2
    p = {"op": "grouped_gemm", "dtype": "fp8" if fp8 else "bf16", "variant": variant,
         "label": label, "m": m, "n": n, "k": k, "groups": experts, "flops": 2.0 * slots * n * k,
         "bytes": experts * n * k * esz + slots * k * esz + slots * n * 2,
         "weight_bytes": experts * n * k * esz}
    return p


def finish(p, us):
    p["median_us"] = us
    p["TFLOPS"] = p["flops"] / us * 1e-6
    p["GBps"] = p["bytes"] / us * 1e-3
    p["hbm_fraction_of_4800"] = p["GBps"] / 4800
    return p


def triton_point(label, w, m):
    variant = "triton_fp8_block" if w.fp8 else "triton_bf16"
    p = base_point(label, w.experts, m, w.n, w.k, variant, w.fp8)
    if w.fp8:
        p["scale"] = "1x128 activation, 128x128 weight, fp32"
        p["bytes"] += 4 * (w.experts * m * math.ceil(w.k / 128) +
                           w.experts * math.ceil(w.n / 128) * math.ceil(w.k / 128))
    try:
        c = Case(w, m)
        res = []
        for cfg in tiles(m):
            r = {"BLOCK_M": cfg[0], "BLOCK_N": cfg[1], "num_warps": cfg[2], "num_stages": cfg[3]}
            try:
                r["median_us"] = timed(lambda: c.run(*cfg))
            except Exception as e:  # noqa: BLE001 - shared memory overflow etc.
                r["error"] = f"{type(e).__name__}: {str(e)[:120]}"
            res.append(r)
        del c
        ok = [r for r in res if "median_us" in r]
        p["tile_results"] = res
        if not ok:
            raise RuntimeError("every tile config failed")
        best = min(ok, key=lambda r: r["median_us"])
        p["tiles"] = [best["BLOCK_M"], best["BLOCK_N"], best["num_warps"], best["num_stages"]]
        finish(p, best["median_us"])
    except Exception as e:  # noqa: BLE001 - record and go on
        p["error"] = f"{type(e).__name__}: {str(e)[:200]}"
    torch.cuda.empty_cache()
    return p


def torch_point(label, w, m, variant):
    p = base_point(label, w.experts, m, w.n, w.k, variant, w.fp8)
    e, n, k = w.experts, w.n, w.k
    try:
        if variant == "torch_grouped_mm_bf16":
            a = torch.randn(e * m, k, device="cuda", dtype=torch.bfloat16)
            offs = torch.arange(1, e + 1, device="cuda", dtype=torch.int32) * m
            bt = w.b.transpose(-2, -1)
            us = timed(lambda: torch._grouped_mm(a, bt, offs=offs))
        elif variant == "torch_scaled_grouped_mm_fp8_rowwise":
            a = (torch.randn(e * m, k, device="cuda", dtype=torch.bfloat16) * 0.5).to(
                torch.float8_e4m3fn)
            offs = torch.arange(1, e + 1, device="cuda", dtype=torch.int32) * m
            sa = torch.rand(e * m, device="cuda") + 0.5
            sb = torch.rand(e, n, device="cuda") + 0.5
            bt = w.b.transpose(-2, -1)
            p["scale"] = "row-wise: 1 per activation row, 1 per weight column, fp32"
            p["bytes"] += 4 * (e * m + e * n)
            us = timed(lambda: torch._scaled_grouped_mm(a, bt, sa, sb, offs=offs,
                                                        out_dtype=torch.bfloat16))
        else:  # torch_loop_bf16
            a = torch.randn(e, m, k, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(e, m, n, device="cuda", dtype=torch.bfloat16)
            wt = [w.b[i].t() for i in range(e)]

            def loop():
                for i in range(e):
                    torch.mm(a[i], wt[i], out=c[i])
            us = timed(loop)
        finish(p, us)
    except Exception as ex:  # noqa: BLE001 - op missing or shape refused: record and go on
        p["error"] = f"{type(ex).__name__}: {str(ex)[:200]}"
    torch.cuda.empty_cache()
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=300)
    args = ap.parse_args()
    t0 = time.time()
    doc = points_document("tools/measure/probe_moe_ep.py", args.out, check())
    print("checks", json.dumps(doc["checks"]), flush=True)
    print(f"checks done at {time.time() - t0:.1f} s", flush=True)

    def emit(p):
        doc["points"].append(p)
        print(f"{p['label']:34s} E={p['groups']:3d} m={p['m']:4d} {p['variant']:36s} "
              f"{p.get('median_us', float('nan')):9.1f} us {p.get('GBps', float('nan')):7.0f} GB/s "
              f"{p.get('TFLOPS', float('nan')):6.1f} TFLOPS {p.get('tiles', '')} "
              f"{p.get('error', '')}", flush=True)

    def save():
        doc["elapsed_s"] = time.time() - t0
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)

    for label, n, k, experts, ms in SHAPES:
        for fp8 in (True, False):
            if time.time() - t0 > args.budget_s:
                doc["truncated"] = f"budget {args.budget_s} s reached"
                break
            w = Weights(experts, n, k, fp8)
            for m in ms:
                if experts * m > MAX_ROWS:
                    continue
                if time.time() - t0 > args.budget_s:
                    doc["truncated"] = f"budget {args.budget_s} s reached"
                    break
                emit(triton_point(label, w, m))
                if fp8:
                    emit(torch_point(label, w, m, "torch_scaled_grouped_mm_fp8_rowwise"))
                else:
                    emit(torch_point(label, w, m, "torch_grouped_mm_bf16"))
                    if experts <= 32 and m in (1, 16, 32, 64, 256):
                        emit(torch_point(label, w, m, "torch_loop_bf16"))
            del w
            torch.cuda.empty_cache()
        print(f"{label} E={experts} done at {time.time() - t0:.1f} s", flush=True)
        save()  # partial results survive a timeout
    smi = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem", "--format=csv,noheader"],
                         capture_output=True, text=True)
    doc["nvidia_smi_after"] = smi.stdout.strip()
    save()
    print(f"wrote {args.out}: {len(doc['points'])} points in {doc['elapsed_s']:.1f} s", flush=True)


if __name__ == "__main__":
    main()
