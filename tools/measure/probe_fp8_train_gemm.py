#!/usr/bin/env python3
"""Times the three GEMMs of each linear layer of a training step (forward, data gradient, weight
gradient) in bf16 (torch.mm, cuBLAS) and in FP8 (torch._scaled_mm, cuBLASLt, per-tensor scales,
bf16 output), at the shapes of Llama 3 decoder layers (8B TP1, 70B TP4 and TP8 shards) and
8,192 tokens. FP8 operands are laid out as Transformer Engine keeps them for Hopper: every GEMM
is "TN" (both operands K-major), so dgrad reads the weight's transposed FP8 copy and wgrad the
columnwise (transposed) copies of the input and the output gradient; the copies are made before
timing (the model prices them as their own kernels). Writes JSON (docs/training.md, "FP8
training GEMMs"). Usage: probe_fp8_train_gemm.py --out FILE
"""
import argparse, json
import torch

import probe_train_layer  # same folder: its CUDA-event timer

dev = "cuda"
e4m3 = torch.float8_e4m3fn
e5m2 = torch.float8_e5m2

# (name, K = input features, N = output features) of each linear on one TP shard.
def linears(h, heads, kv, d, inter, tp):
    return [
        ("qkv", h, (heads + 2 * kv) * d // tp),
        ("o", heads * d // tp, h),
        ("gate_up", h, 2 * inter // tp),
        ("down", inter // tp, h),
    ]


SHAPES = {
    "llama3-8b-tp1": linears(4096, 32, 8, 128, 14336, 1),
    "llama3-70b-tp4": linears(8192, 64, 8, 128, 28672, 4),
    "llama3-70b-tp8": linears(8192, 64, 8, 128, 28672, 8),
}


def timeit(fn):
    """Median µs of 20 timed calls after 5 warm-up calls (probe_train_layer.py's timer)."""
    return probe_train_layer.timeit(fn, reps=20, warm=5)["median_us"]


def one(T, K, N):
    x = torch.randn(T, K, device=dev, dtype=torch.bfloat16)
    w = torch.randn(N, K, device=dev, dtype=torch.bfloat16)  # nn.Linear weight layout
    g = torch.randn(T, N, device=dev, dtype=torch.bfloat16)
    bf = {
        "fwd": timeit(lambda: torch.mm(x, w.t())),
        "dgrad": timeit(lambda: torch.mm(g, w)),
        "wgrad": timeit(lambda: torch.mm(g.t(), x)),
    }
    one_s = torch.ones((), device=dev, dtype=torch.float32)
    x8 = x.to(e4m3)                      # T x K rowwise
    w8 = w.to(e4m3)                      # N x K rowwise
    g8 = g.to(e5m2)                      # T x N rowwise (hybrid: e5m2 gradients)
    w8t = w.t().contiguous().to(e4m3)    # K x N: the weight's transposed copy
    x8t = x.t().contiguous().to(e4m3)    # K x T: the input's columnwise copy
    g8t = g.t().contiguous().to(e5m2)    # N x T: the gradient's columnwise copy
    bf16 = torch.bfloat16
    f8 = {
        # out T x N = x (T x K) . w^T: a row-major T x K, b column-major K x N (w8 is N x K).
        "fwd": timeit(lambda: torch._scaled_mm(x8, w8.t(), one_s, one_s, out_dtype=bf16)),
        # out T x K = g (T x N) . w (N x K): b column-major N x K from the K x N copy.
        "dgrad": timeit(lambda: torch._scaled_mm(g8, w8t.t(), one_s, one_s, out_dtype=bf16)),
        # out N x K = g^T (N x T) . x (T x K): a the N x T copy, b column-major from x8t.
        "wgrad": timeit(lambda: torch._scaled_mm(g8t, x8t.t(), one_s, one_s, out_dtype=bf16)),
    }
    return {"T": T, "K": K, "N": N, "flops": 2.0 * T * K * N, "bf16_us": bf, "fp8_us": f8}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--tokens", type=int, default=8192)
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    out = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
           "cuda": torch.version.cuda, "tokens": a.tokens, "layers": {}}
    for name, lins in SHAPES.items():
        rows = {}
        for lin, K, N in lins:
            r = one(a.tokens, K, N)
            rows[lin] = r
            b, f = r["bf16_us"], r["fp8_us"]
            print(f"{name:16s} {lin:8s} K={K:6d} N={N:6d}  bf16 fwd/dgrad/wgrad "
                  f"{b['fwd']:8.1f} {b['dgrad']:8.1f} {b['wgrad']:8.1f}  fp8 {f['fwd']:8.1f} "
                  f"{f['dgrad']:8.1f} {f['wgrad']:8.1f}", flush=True)
        tot = lambda p, k: sum(rows[l][p][k] for l in rows)
        summary = {p: {k: tot(p, k) for k in ("fwd", "dgrad", "wgrad")} for p in ("bf16_us", "fp8_us")}
        for p in ("bf16_us", "fp8_us"):
            s = summary[p]
            summary[p]["backward_factor"] = (s["dgrad"] + s["wgrad"]) / s["fwd"]
        out["layers"][name] = {"linears": rows, "sum": summary}
        print(f"{name}: backward factor bf16 {summary['bf16_us']['backward_factor']:.3f} "
              f"fp8 {summary['fp8_us']['backward_factor']:.3f}; fp8/bf16 fwd "
              f"{summary['fp8_us']['fwd'] / summary['bf16_us']['fwd']:.3f}", flush=True)
    json.dump(out, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
