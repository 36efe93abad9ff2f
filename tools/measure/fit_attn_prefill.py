#!/usr/bin/env python3
"""Fits the prefill-attention rate by shape and writes it into a calibration file.

Model (docs/compute-model.md, "Prefill attention"): a causal attention kernel computes its kept
scores plus, per query row tile, a fixed part (prologue, epilogue, the half-masked diagonal
tile), worth k_half keys per query. With K = kept scores / query rows (mean keys per query),
rate = fill(ideal time) * K / (K + k_half): fill is the usual size curve (few CTAs for 132 SMs
at small kernels), stored at K -> infinity. Fitted on the whole-prompt causal points of the best
backend measured (max TFLOPS per shape); prefix chunks (q < kv) are held out.

Usage: fit_attn_prefill.py RAW.json CALIBRATION.json
"""
import json
import math
import sys


def mean_keys(p):
    off = p["kv_len"] - p["q_len"]
    return off + (p["q_len"] + 1) / 2


def main():
    raw_path, cal_path = sys.argv[1], sys.argv[2]
    raw = json.load(open(raw_path))
    cal = json.load(open(cal_path))
    peak = cal["reference_peaks"]["bf16_TFLOPS"]
    best = {}
    for p in raw["points"]:
        if "TFLOPS" not in p:
            continue
        key = p["label"]
        if key not in best or p["TFLOPS"] > best[key]["TFLOPS"]:
            best[key] = p
    fit = [p for p in best.values() if p["q_len"] == p["kv_len"] and p["family"] == "mla"]
    held = [p for p in best.values() if p not in fit]

    def asym(p, kh):
        return p["TFLOPS"] / peak / (mean_keys(p) / (mean_keys(p) + kh))

    # k_half: the value that makes the large kernels (ideal >= 150 us, SMs full) agree on one
    # asymptote (least spread of log asymptote).
    big = [p for p in fit if p["flops"] / (peak * 1e6) >= 150]
    def spread(kh):
        ls = [math.log(asym(p, kh)) for p in big]
        m = sum(ls) / len(ls)
        return sum((x - m) ** 2 for x in ls)
    k_half = min((spread(kh), kh) for kh in range(0, 1001, 5))[1]
    # Fill curve: points grouped by flops (equal flops: mean), in increasing flops.
    groups = {}
    for p in fit:
        groups.setdefault(p["flops"], []).append(min(1.0, asym(p, k_half)))
    xs = sorted(groups)
    ys = [sum(groups[x]) / len(groups[x]) for x in xs]
    for i in range(1, len(ys)):  # time = x / y never falls as x grows
        ys[i] = min(ys[i], ys[i - 1] * xs[i] / xs[i - 1])

    def predict(p):
        lx = math.log(p["flops"])
        lxs = [math.log(x) for x in xs]
        if lx <= lxs[0]:
            y = ys[0]
        elif lx >= lxs[-1]:
            y = ys[-1]
        else:
            i = max(j for j in range(len(xs)) if lxs[j] <= lx)
            t = (lx - lxs[i]) / (lxs[i + 1] - lxs[i])
            y = math.exp(math.log(ys[i]) + t * (math.log(ys[i + 1]) - math.log(ys[i])))
        return y * mean_keys(p) / (mean_keys(p) + k_half) * peak

    errors = []
    for p in sorted(best.values(), key=lambda p: (p["q_len"] != p["kv_len"], p["flops"])):
        e = predict(p) / p["TFLOPS"] - 1  # rate error; time error = 1/(1+e) - 1
        errors.append({"label": p["label"], "backend": p["variant"], "measured_TFLOPS":
                       round(p["TFLOPS"], 1), "predicted_TFLOPS": round(predict(p), 1),
                       "rate_error": round(e, 4), "held_out": p in held})
    cal["attn_prefill"] = {
        "flops": [round(x) for x in xs], "fraction": [round(y, 4) for y in ys],
        "k_half": k_half,
        "source": raw_path + ": best backend per shape (cuDNN SDPA for whole causal prompts), "
                  "rate = fraction(flops) * K / (K + k_half), K = mean keys per query "
                  "(tools/measure/fit_attn_prefill.py)",
        "fit_errors": errors}
    json.dump(cal, open(cal_path, "w"), indent=1)
    for e in errors:
        print(f"{e['label']:58s} {e['backend']:14s} {e['measured_TFLOPS']:7.1f} "
              f"{e['predicted_TFLOPS']:7.1f} {100 * e['rate_error']:+6.1f}%"
              f"{'  held out' if e['held_out'] else ''}")
    print("k_half", k_half, "curve", list(zip(xs, ys)))


if __name__ == "__main__":
    main()
