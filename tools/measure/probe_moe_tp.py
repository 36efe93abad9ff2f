#!/usr/bin/env python3
"""Expert GEMMs of a TP-sharded MoE (EP = 1) on one GPU: the fused-MoE path of SGLang/vLLM.

Under `--tp 8` without EP, every GPU holds all 256 routed experts of DeepSeek-V3/R1, each split to
2048 / 8 = 256 intermediate columns: gate+up is n = 512, k = 7168 and down is n = 7168, k = 256
(models/deepseek-v3.json). Serving engines run these as one grouped kernel over tokens sorted by
expert (a Triton "fused MoE" kernel with per-(M, E, N) tuned tiles). This script measures:

- `triton_fp8_block`: a grouped GEMM written here in Triton (not the engines' code): rows sorted
  by expert, the activation row gathered through an index (token = slot // top_k for gate+up, the
  slot itself for down), fp8 e4m3 operands with DeepSeek's block scales (1x128 activation groups,
  128x128 weight blocks, fp32, applied per 128-wide k step), bf16 output scattered back by slot.
  Tiles: BLOCK_M 16 up to 1,024 rows in the batch, else 64; BLOCK_N 128, BLOCK_K 128, 4 warps,
  3 stages; the values of SGLang's tuned table for E=257, N=256 on the H200
  (sgl-project/sglang python/sglang/srt/layers/moe/fused_moe_triton/configs/triton_3_3_1/
  "E=257,N=256,device_name=NVIDIA_H200,dtype=fp8_w8a8,block_shape=[128, 128].json").
- `triton_bf16`: the same kernel in bf16 (no scales).
- `cublas_bf16_bmm`: torch.bmm over [E, t, k] x [E, k, n] (cuBLAS strided batched), no gather:
  the library's rate at the same shapes, the reference the size-only curves were fitted on.

Shapes: the TP8 slice (k = 256 down, n = 512 gate+up) on 256 experts, and the unsharded TP1 expert
(n = 4096 / k = 7168 and n = 7168 / k = 2048) on 8 experts as a control with large k; tokens per
expert t = 1 .. 4096 (uniform routing: every expert gets t rows). Timing: triton.testing.do_bench
(CUDA events, median), inputs larger than L2 at every t >= 16 for the 256-expert cases (weights
alone are 470-940 MB); random data, never zeros. A correctness check against an fp32 reference
runs first. Points that fail are recorded with an "error" field.

Usage: python3 tools/measure/probe_moe_tp.py --out moe-tp-h200.json [--budget-s 300]
"""
import argparse
import datetime
import json
import math
import subprocess
import time

import torch
import triton
import triton.language as tl

TOPK = 8  # DeepSeek-V3/R1 experts per token
TOKENS_PER_EXPERT = [1, 4, 16, 64, 128, 256, 512, 1024, 2048, 4096]
# (label, experts, n, k): per-expert weight is n x k.
SHAPES = [
    ("deepseek-v3 experts gate+up e256 tp8", 256, 512, 7168),
    ("deepseek-v3 experts down e256 tp8", 256, 7168, 256),
    ("deepseek-v3 experts gate+up e8 tp1", 8, 4096, 7168),
    ("deepseek-v3 experts down e8 tp1", 8, 7168, 2048),
]


@triton.jit
def grouped_gemm(a_ptr, b_ptr, c_ptr, ids_ptr, a_scale_ptr, b_scale_ptr, rows_per_expert, n, k,
                 gather_div, BLOCKED: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr):
    # One program per (expert, BLOCK_M rows, BLOCK_N columns); rows of expert e are the sorted
    # slots e * rows_per_expert ... (uniform routing, so no padding rows).
    pid = tl.program_id(0)
    tiles_n = tl.cdiv(n, BLOCK_N)
    tiles_m = tl.cdiv(rows_per_expert, BLOCK_M)
    e = pid // (tiles_m * tiles_n)
    r = pid % (tiles_m * tiles_n)
    pm, pn = r // tiles_n, r % tiles_n
    offs_m = pm * BLOCK_M + tl.arange(0, BLOCK_M)
    mask_m = offs_m < rows_per_expert
    slot = tl.load(ids_ptr + e * rows_per_expert + offs_m, mask=mask_m, other=0)
    a_row = slot // gather_div
    offs_n = pn * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + a_row[:, None].to(tl.int64) * k + offs_k[None, :]
    b_ptrs = b_ptr + e.to(tl.int64) * n * k + offs_n[None, :].to(tl.int64) * k + offs_k[:, None]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    ksteps = tl.cdiv(k, BLOCK_K)
    for kb in range(0, ksteps):
        a = tl.load(a_ptrs, mask=mask_m[:, None], other=0.0)
        b = tl.load(b_ptrs)
        if BLOCKED:
            sa = tl.load(a_scale_ptr + a_row.to(tl.int64) * ksteps + kb, mask=mask_m, other=0.0)
            sb = tl.load(b_scale_ptr + (e * tl.cdiv(n, 128) + pn * BLOCK_N // 128) * ksteps + kb)
            acc += tl.dot(a, b) * sa[:, None] * sb
        else:
            acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K
    c_ptrs = c_ptr + slot[:, None].to(tl.int64) * n + offs_n[None, :]
    tl.store(c_ptrs, acc.to(tl.bfloat16), mask=mask_m[:, None])


def tiles(total_rows):
    # SGLang's tuned table (see the module docstring) keys on the batch's token count M.
    return (16 if total_rows / TOPK <= 1024 else 64), 128, 128


class Case:
    """Inputs of one grouped GEMM: experts x t rows, n x k weights per expert."""

    def __init__(self, experts, t, n, k, gate_up, fp8):
        self.experts, self.t, self.n, self.k = experts, t, n, k
        slots = experts * t
        # Gate+up reads the token (slot // top_k); down reads its own slot's intermediate row.
        self.gather_div = TOPK if gate_up else 1
        a_rows = max(1, math.ceil(slots / self.gather_div))
        dt = torch.float8_e4m3fn if fp8 else torch.bfloat16
        self.a = (torch.randn(a_rows, k, device="cuda") * 0.5).to(dt)
        self.b = (torch.randn(experts, n, k, device="cuda") * 0.05).to(dt)
        # Sorted slots in random order: slot // top_k is the token (each token appears top_k
        # times, experts * t is a multiple of top_k for every shape here).
        self.ids = torch.randperm(slots, device="cuda").to(torch.int32)
        self.c = torch.empty(slots, n, device="cuda", dtype=torch.bfloat16)
        ks = math.ceil(k / 128)
        self.sa = torch.rand(a_rows, ks, device="cuda") + 0.5
        self.sb = torch.rand(experts, math.ceil(n / 128), ks, device="cuda") + 0.5
        self.fp8 = fp8

    def run(self, bm=None, bn=128, warps=4, stages=3):
        bm = bm or tiles(self.experts * self.t)[0]
        grid = (self.experts * triton.cdiv(self.t, bm) * triton.cdiv(self.n, bn),)
        grouped_gemm[grid](self.a, self.b, self.c, self.ids, self.sa, self.sb, self.t, self.n,
                           self.k, self.gather_div, BLOCKED=self.fp8, BLOCK_M=bm, BLOCK_N=bn,
                           BLOCK_K=128, num_warps=warps, num_stages=stages)

    def reference(self):
        """fp32 result of the same routing, scales applied per 128 block."""
        e, t, n, k = self.experts, self.t, self.n, self.k
        a = self.a.float()
        b = self.b.float()
        if self.fp8:
            a = a * self.sa.repeat_interleave(128, dim=1)[:, :k]
            b = b * self.sb.repeat_interleave(128, 1).repeat_interleave(128, 2)[:, :n, :k]
        ids = self.ids.long().view(e, t)
        x = a[ids // self.gather_div]  # [e, t, k]
        y = torch.bmm(x, b.transpose(1, 2))
        return ids.reshape(-1), y.reshape(e * t, n)


def check():
    out = []
    for gate_up, (n, k) in ((True, (512, 7168)), (False, (7168, 256))):
        for fp8 in (True, False):
            c = Case(16, 48, n, k, gate_up, fp8)
            c.run()
            torch.cuda.synchronize()
            ids, ref = c.reference()
            got = c.c[ids].float()
            rel = float((got - ref).norm() / ref.norm())
            out.append({"gate_up": gate_up, "fp8": fp8, "n": n, "k": k, "relative_error": rel,
                        "ok": rel < 2e-2})
    return out


def bench(fn):
    ms = triton.testing.do_bench(fn, warmup=10, rep=40, return_mode="median")
    return ms * 1e3


def point(label, experts, t, n, k, variant):
    gate_up = "gate+up" in label
    slots = experts * t
    flops = 2.0 * slots * n * k
    esz = 1 if variant == "triton_fp8_block" else 2
    a_rows = math.ceil(slots / (TOPK if gate_up else 1))
    bytes_ = experts * n * k * esz + a_rows * k * esz + slots * n * 2
    p = {"op": "grouped_gemm", "dtype": "fp8" if esz == 1 else "bf16", "variant": variant,
         "label": label, "m": t, "n": n, "k": k, "groups": experts, "flops": flops,
         "bytes": bytes_}
    if variant == "triton_fp8_block":
        p["scale"] = "1x128 activation, 128x128 weight, fp32"
        p["bytes"] += 4 * (a_rows * math.ceil(k / 128) + experts * math.ceil(n / 128) *
                           math.ceil(k / 128))
    try:
        if variant == "cublas_bf16_bmm":
            x = torch.randn(experts, t, k, device="cuda", dtype=torch.bfloat16)
            w = torch.randn(experts, k, n, device="cuda", dtype=torch.bfloat16)
            y = torch.empty(experts, t, n, device="cuda", dtype=torch.bfloat16)
            p["bytes"] = experts * n * k * 2 + slots * k * 2 + slots * n * 2
            us = bench(lambda: torch.bmm(x, w, out=y))
            del x, w, y
        else:
            c = Case(experts, t, n, k, gate_up, variant == "triton_fp8_block")
            us = bench(c.run)
            p["tiles"] = list(tiles(slots))
            del c
        p["median_us"] = us
        p["TFLOPS"] = flops / us * 1e-6
        p["GBps"] = p["bytes"] / us * 1e-3
    except Exception as e:  # noqa: BLE001 - record and go on
        p["error"] = f"{type(e).__name__}: {str(e)[:200]}"
    torch.cuda.empty_cache()
    return p


def tile_sweep(t0, budget_s):
    """Best tile of the fp8 kernel at the prefill points (t = 256: an 8,192-token chunk over 256
    experts with top-8), an upper bound on what tuning the table's choice could gain."""
    out = []
    for label, experts, n, k in SHAPES[:2]:
        for t in (256, 1024):
            c = Case(experts, t, n, k, "gate+up" in label, True)
            flops = 2.0 * experts * t * n * k
            for bm in (16, 32, 64, 128):
                for bn in (64, 128):
                    for warps, stages in ((4, 3), (4, 4), (8, 3)):
                        if time.time() - t0 > budget_s:
                            return out
                        r = {"label": label, "m": t, "BLOCK_M": bm, "BLOCK_N": bn,
                             "num_warps": warps, "num_stages": stages}
                        try:
                            us = bench(lambda: c.run(bm, bn, warps, stages))
                            r["median_us"], r["TFLOPS"] = us, flops / us * 1e-6
                        except Exception as e:  # noqa: BLE001 - shared memory overflow etc.
                            r["error"] = f"{type(e).__name__}: {str(e)[:120]}"
                        out.append(r)
            del c
            torch.cuda.empty_cache()
    return out


def points_document(tool, out, checks):
    """The probe-points document head: tool, date, command, GPU and library versions, clocks."""
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem,"
                          "power.limit", "--format=csv,noheader"], capture_output=True, text=True)
    return {"format": "topoplan-probe-points/1", "tool": tool,
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": f"python3 {tool} --out {out}",
            "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
            "triton": triton.__version__, "cuda": torch.version.cuda,
            "nvidia_smi_before": smi.stdout.strip(), "checks": checks, "points": []}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=300)
    args = ap.parse_args()
    t0 = time.time()
    doc = points_document("tools/measure/probe_moe_tp.py", args.out, check())
    print("checks", json.dumps(doc["checks"]), flush=True)
    variants = ["triton_fp8_block", "triton_bf16", "cublas_bf16_bmm"]
    for label, experts, n, k in SHAPES:
        for t in TOKENS_PER_EXPERT:
            for v in variants:
                if time.time() - t0 > args.budget_s:
                    doc["truncated"] = f"budget {args.budget_s} s reached"
                    break
                # Largest cases: the down output alone is 15 GB at 256 x 4096 rows; keep < 40 GB.
                if experts * t * (n + k) * 2 > 40e9:
                    continue
                p = point(label, experts, t, n, k, v)
                doc["points"].append(p)
                print(f"{label:40s} t={t:5d} {v:18s} "
                      f"{p.get('median_us', float('nan')):10.1f} us "
                      f"{p.get('TFLOPS', float('nan')):7.1f} TFLOPS {p.get('error', '')}",
                      flush=True)
    doc["tile_sweep"] = tile_sweep(t0, args.budget_s * 1.4)
    for r in doc["tile_sweep"]:
        print("sweep", json.dumps(r), flush=True)
    smi = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem", "--format=csv,noheader"],
                         capture_output=True, text=True)
    doc["nvidia_smi_after"] = smi.stdout.strip()
    doc["elapsed_s"] = time.time() - t0
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
