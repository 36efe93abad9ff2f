#!/usr/bin/env python3
"""The dense kernels of one DeepSeek-V3/R1 decoder layer's prefill under TP8, on one GPU.

What SGLang runs per GPU for an 8,000-token chunk (2 prompts of 4,000) under `--tp 8` (EP1):
the MLA projections (q_a and kv_a replicated, q_b / kv_b column-split, o_proj row-split), MLA
prefill attention (16 local heads, q/k 192 = 128 nope + 64 rope, v 128, causal, per prompt),
the shared expert split 8 ways (gate+up n 512, down k 256). Shapes from models/deepseek-v3.json.
GEMMs are measured three ways: fp8 e4m3 with DeepSeek block scales (1x128 activations, 128x128
weights) through the grouped Triton kernel of probe_moe_tp.py with one group (SGLang's Triton
`w8a8_block_fp8_matmul` path; not the engine's code), fp8 per-tensor through torch._scaled_mm
(cuBLASLt, what the model's fp8 curve was fitted on), and bf16 torch.matmul. Attention through
torch scaled_dot_product_attention, every backend that runs (v padded to 192 where a backend needs
equal head dims; flops counted at the true dims). Points are in the probe point format
(`op` tp_gemm / attn_prefill), read by `topoplan validate --probe` for the GEMMs.

Usage: python3 tools/measure/probe_r1_prefill.py --out r1-prefill-h200.json
"""
import argparse
import datetime
import json
import math
import subprocess
import sys

import torch
import torch.nn.functional as F
import triton
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from probe_moe_tp import Case, bench  # noqa: E402 - same kernel and timing

TOKENS = 8000  # one 8,192-token chunk holds two 4,000-token prompts
# (label, n, k) per GPU under TP8.
GEMMS = [
    ("deepseek-v3 q_a_proj (replicated)", 1536, 7168),
    ("deepseek-v3 kv_a_proj_with_mqa (replicated)", 576, 7168),
    ("deepseek-v3 q_b_proj /tp8", 3072, 1536),
    ("deepseek-v3 kv_b_proj /tp8", 4096, 512),
    ("deepseek-v3 o_proj /tp8", 7168, 2048),
    ("deepseek-v3 shared gate+up /tp8", 512, 7168),
    ("deepseek-v3 shared down /tp8", 7168, 256),
]


def gemm_point(label, n, k, variant):
    m = TOKENS
    esz = 2 if variant == "bf16" else 1
    p = {"op": "tp_gemm", "dtype": "bf16" if esz == 2 else "fp8", "variant": variant,
         "label": label, "m": m, "n": n, "k": k, "flops": 2.0 * m * n * k,
         "bytes": n * k * esz + m * k * esz + m * n * 2}
    try:
        if variant == "fp8_block_triton":
            # Best of two tiles typical of SGLang's block-fp8 GEMM tables (64x128 / 128x128).
            c = Case(1, m, n, k, False, True)
            us = min(bench(lambda: c.run(64, 128, 4, 3)), bench(lambda: c.run(128, 128, 8, 3)))
            p["bytes"] += 4 * (m * math.ceil(k / 128) + math.ceil(n / 128) * math.ceil(k / 128))
        elif variant == "fp8_tensor":
            a = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
            b = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn).t()
            one = torch.ones((), device="cuda")
            us = bench(lambda: torch._scaled_mm(a, b, one, one, out_dtype=torch.bfloat16))
        else:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
            us = bench(lambda: a @ b)
        p["median_us"], p["TFLOPS"] = us, p["flops"] / us * 1e-6
    except Exception as e:  # noqa: BLE001 - record and go on
        p["error"] = f"{type(e).__name__}: {str(e)[:200]}"
    torch.cuda.empty_cache()
    return p


def attention_points():
    seqs, L, h, dqk, dv = 2, TOKENS // 2, 16, 192, 128
    q = torch.randn(seqs, h, L, dqk, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(seqs, h, L, dqk, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(seqs, h, L, dv, device="cuda", dtype=torch.bfloat16)
    v_pad = F.pad(v, (0, dqk - dv))
    # Causal: half of the L x L scores, QK^T (dqk) and PV (dv) multiply-adds.
    flops = seqs * h * (L * L / 2) * 2 * (dqk + dv)
    out = []
    for name, be in (("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                     ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
        for vv, tag in ((v, "v128"), (v_pad, "v padded to 192")):
            p = {"op": "attn_prefill", "dtype": "bf16", "variant": f"sdpa_{name} {tag}",
                 "label": "deepseek-v3 MLA prefill, 16 heads (TP8), 2 x 4000 causal",
                 "flops": flops}
            try:
                with sdpa_kernel([be]):
                    us = bench(lambda: F.scaled_dot_product_attention(q, k, vv, is_causal=True))
                p["median_us"], p["TFLOPS"] = us, flops / us * 1e-6
            except Exception as e:  # noqa: BLE001 - a backend that rejects the shape
                p["error"] = f"{type(e).__name__}: {str(e)[:160]}"
            out.append(p)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem",
                          "--format=csv,noheader"], capture_output=True, text=True)
    doc = {"format": "topoplan-probe-points/1", "tool": "tools/measure/probe_r1_prefill.py",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": "python3 tools/measure/probe_r1_prefill.py --out " + args.out,
           "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
           "triton": triton.__version__, "nvidia_smi_before": smi.stdout.strip(), "points": []}
    for label, n, k in GEMMS:
        for v in ("fp8_block_triton", "fp8_tensor", "bf16"):
            p = gemm_point(label, n, k, v)
            doc["points"].append(p)
            print(f"{label:45s} {v:17s} {p.get('median_us', float('nan')):9.1f} us "
                  f"{p.get('TFLOPS', float('nan')):7.1f} TFLOPS {p.get('error', '')}", flush=True)
    for p in attention_points():
        doc["points"].append(p)
        print(f"{p['label']:45s} {p['variant']:26s} {p.get('median_us', float('nan')):9.1f} us "
              f"{p.get('TFLOPS', float('nan')):7.1f} TFLOPS {p.get('error', '')[:80]}", flush=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
