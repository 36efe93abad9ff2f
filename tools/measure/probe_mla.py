#!/usr/bin/env python3
"""MLA decode attention on one GPU, absorbed form (DeepSeek-V2/V3 inference), through PyTorch.

FlashMLA is used when the `flash_mla` package imports; otherwise (the workplace's image has none)
this measures the equivalent absorbed-MLA decode with torch scaled_dot_product_attention: the
query of each of h heads (after W_UK absorption: 512 latent + 64 rope = 576 dims) attends one
shared latent cache of 576 dims per token (MQA: the h heads are the query rows of one KV head),
and the output is 512-dim per head (W_UV applied afterwards, not timed). Shapes from
models/deepseek-v3.json (128 heads, kv_lora 512, rope 64); h = 128 (TP1/attention-DP) and 16
(TP8). Every SDPA backend is tried per point; each that runs is recorded, the fastest is the
point's time. Timing as probe_compute.py: a CUDA graph of many calls, CUDA events, median of
replays / calls; caches rotate over > 128 MiB; random data.

Usage: python3 tools/measure/probe_mla.py --out mla.json [--budget-s 240]
"""
import argparse
import datetime
import json
import math
import sys
import time

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from probe_compute import L2_TOUCH, time_graph  # noqa: E402 - same timing method

LATENT, ROPE, V = 512, 64, 512
BATCHES = [1, 4, 16, 64, 128, 256]
CONTEXTS = [1024, 4096, 16384, 32768]
HEADS = [128, 16]
BACKENDS = [("efficient", SDPBackend.EFFICIENT_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
            ("flash", SDPBackend.FLASH_ATTENTION), ("math", SDPBackend.MATH)]


def one_point(b, L, h):
    d = LATENT + ROPE
    kv_bytes = b * L * d * 2
    copies = max(1, math.ceil(L2_TOUCH / kv_bytes))
    caches = [torch.randn(b, 1, L, d, dtype=torch.bfloat16, device="cuda") for _ in range(copies)]
    q = torch.randn(b, 1, h, d, dtype=torch.bfloat16, device="cuda")
    scale = 1.0 / math.sqrt(128 + ROPE)  # DeepSeek-V3 softmax scale: qk_nope 128 + rope 64
    flops = 2.0 * b * h * L * (d + V)
    bytes_ = kv_bytes + q.numel() * 2 + b * h * V * 2
    runs = {}
    for name, be in BACKENDS:
        if name == "math" and b * h * L * 4 > 2**30:
            runs[name] = "skipped: scores tensor over 1 GiB"
            continue
        try:
            with sdpa_kernel([be]):
                fns = [lambda c=c: F.scaled_dot_product_attention(q, c, c[..., :V], scale=scale)
                       for c in caches] * max(1, math.ceil(32 / copies))
                t = time_graph(fns)
            runs[name] = t[0] * 1e6
        except Exception as e:  # noqa: BLE001 - a backend that rejects the shape is recorded
            runs[name] = f"error: {type(e).__name__}: {str(e)[:160]}"
    del caches
    timed = {k: v for k, v in runs.items() if isinstance(v, float)}
    p = {"op": "mla_decode", "dtype": "bf16", "batch": b, "context": L, "heads": h,
         "kv_dim": d, "v_dim": V, "bytes": bytes_, "kv_bytes": kv_bytes, "flops": flops,
         "backends_us": runs}
    if timed:
        best = min(timed, key=timed.get)
        p.update({"backend": best, "median_us": timed[best],
                  "GBps": bytes_ / timed[best] / 1e3, "TFLOPS": flops / timed[best] / 1e6})
    else:
        p["error"] = "no SDPA backend ran this shape"
    return p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget-s", type=float, default=240)
    a = ap.parse_args()
    torch.manual_seed(0)
    try:
        import flash_mla  # noqa: F401
        have_flash_mla = True
    except ImportError:
        have_flash_mla = False
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "command": " ".join([sys.executable] + sys.argv), "torch": torch.__version__,
            "cuda_runtime": torch.version.cuda, "gpu": torch.cuda.get_device_name(0),
            "flash_mla_available": have_flash_mla,
            "what": "absorbed-MLA decode through torch SDPA (FlashMLA not used)"
                    if not have_flash_mla else "FlashMLA present but this script times SDPA",
            "method": __doc__.strip().splitlines()[0]}
    points, t0 = [], time.time()
    for h in HEADS:
        for L in CONTEXTS:
            for b in BATCHES:
                if time.time() - t0 > a.budget_s:
                    meta["stopped"] = f"budget of {a.budget_s} s reached"
                    break
                p = one_point(b, L, h)
                points.append(p)
                print(f"mla h={h} L={L} b={b} {p.get('backend')} {p.get('median_us', 0):.1f} us "
                      f"{p.get('GBps', 0):.0f} GB/s {p['backends_us']}", flush=True)
                torch.cuda.empty_cache()
                with open(a.out, "w") as f:
                    json.dump({"meta": meta, "points": points}, f, indent=1)
    meta["elapsed_s"] = time.time() - t0
    with open(a.out, "w") as f:
        json.dump({"meta": meta, "points": points}, f, indent=1)


if __name__ == "__main__":
    main()
