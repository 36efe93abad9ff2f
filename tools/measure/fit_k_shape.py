#!/usr/bin/env python3
"""Fits the GEMM k-shape term of docs/compute-model.md ("Small k") and writes it into a fitted
calibration file.

Mechanism: a GEMM output tile runs k / BLOCK_K main-loop steps plus a fixed cost (prologue loads,
pipeline fill, epilogue store), so at equal tile counts the achieved rate is
r(k) = k / (k + k_half), where k_half = BLOCK_K x fixed / per-step is the k at which half of the
tile's time is the fixed part. It is fitted per math class from the ratio of two shapes measured
with the same kernel, the same rows and the same experts but k = 256 vs k = 7168
(tools/measure/probe_moe_tp.py: TP8-sliced DeepSeek experts, down n=7168 k=256 vs gate+up n=512
k=7168, 256 experts, t >= 512 rows each, where both are compute-bound):
  R = r(256) / r(7168)  ->  k_half = 256 x 7168 (1 - R) / (7168 R - 256).
fp8 from the fp8 block-scaled Triton kernel, bf16 from cuBLAS batched bf16 (torch.bmm).
`k_ref` is the k of the size-only curves' fit (most of the compute-bound points of
probe_compute.py have k = 4096..16384); the model applies min(1, r(k) / r(k_ref)).

Usage: fit_k_shape.py MOE_TP_MEASUREMENT.json CALIBRATION.json [--k-ref 4096]
"""
import argparse
import json
import statistics


def k_half(ratio, k_small=256, k_large=7168):
    return k_small * k_large * (1 - ratio) / (k_large * ratio - k_small)


def ratios(points, variant):
    by = {}
    for p in points:
        if p.get("variant") != variant or "TFLOPS" not in p or p["groups"] != 256:
            continue
        by.setdefault(p["m"], {})[p["k"]] = p["TFLOPS"]
    return {m: v[256] / v[7168] for m, v in sorted(by.items()) if m >= 512 and 256 in v and 7168 in v}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("measurement")
    ap.add_argument("calibration")
    ap.add_argument("--k-ref", type=float, default=4096)
    a = ap.parse_args()
    points = json.load(open(a.measurement))["points"]
    out = {"k_ref": a.k_ref}
    for cls, variant in (("fp8", "triton_fp8_block"), ("bf16", "cublas_bf16_bmm")):
        r = ratios(points, variant)
        mean = statistics.mean(r.values())
        out[f"k_half_{cls}"] = round(k_half(mean), 1)
        out[f"ratio_{cls}"] = {str(m): round(v, 4) for m, v in r.items()}
        print(f"{cls}: R(256/7168) by rows {out[f'ratio_{cls}']} mean {mean:.4f} "
              f"-> k_half {out[f'k_half_{cls}']}")
    out["source"] = (a.measurement + ": r(k) = k / (k + k_half) fitted on the k=256 / k=7168 "
                     "rate ratio of one kernel at t >= 512 rows per expert (fit_k_shape.py)")
    cal = json.load(open(a.calibration))
    cal["gemm_k_shape"] = out
    with open(a.calibration, "w") as f:
        json.dump(cal, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
