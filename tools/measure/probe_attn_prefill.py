#!/usr/bin/env python3
"""Prefill attention rates by shape on one GPU: MLA (q/k 192, v 128) and GQA (128/128).

Why: the model priced prefill attention on the bf16 GEMM curve (~0.7 of peak), while the one
MLA shape measured earlier (16 heads, 2 x 4000 causal) ran at 515 TFLOPS on the best SDPA
backend (topologies/calibration/r1-prefill-h200-2026-12-03.json). This sweeps heads, query and
key lengths (whole causal prompts and chunks attending to an earlier prefix, bottom-right causal
mask), through every torch SDPA backend that runs and through a FlashAttention-style Triton
kernel written for this probe (online softmax, q/k split into 128 + 64 so that MLA's 192 needs
no padding; not any engine's code). Flops counted at the true head dims over the unmasked
scores only: 2 * heads * (dqk + dv) * (scores kept).

Usage: python3 tools/measure/probe_attn_prefill.py --out attn-prefill-h200.json
"""
import argparse
import datetime
import json
import subprocess

import torch
import torch.nn.functional as F
import triton
import triton.language as tl
from torch.nn.attention import SDPBackend, sdpa_kernel
from torch.nn.attention.bias import causal_lower_right


def bench(fn):
    return triton.testing.do_bench(fn, warmup=5, rep=30, return_mode="median") * 1e3


@triton.jit
def _fwd(Q, K, V, O, sqb, sqh, sqm, skb, skh, skn, svb, svh, svn, sob, soh, som,
         H, HKV, M, N, scale,
         D1: tl.constexpr, D2: tl.constexpr, DV: tl.constexpr,
         BM: tl.constexpr, BN: tl.constexpr):
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // H
    h = bh % H
    hk = h // (H // HKV)
    off = N - M  # bottom-right causal: query row i sees keys j <= i + off
    rm = start_m * BM + tl.arange(0, BM)
    rn = tl.arange(0, BN)
    r1 = tl.arange(0, D1)
    rv = tl.arange(0, DV)
    qp = Q + b * sqb + h * sqh + rm[:, None] * sqm
    q1 = tl.load(qp + r1[None, :], mask=rm[:, None] < M, other=0.0)
    if D2 > 0:
        r2 = tl.arange(0, D2)
        q2 = tl.load(qp + D1 + r2[None, :], mask=rm[:, None] < M, other=0.0)
    kb = K + b * skb + hk * skh
    vb = V + b * svb + hk * svh
    m_i = tl.full([BM], float("-inf"), tl.float32)
    l_i = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, DV], tl.float32)
    qk_scale = scale * 1.44269504
    hi = tl.minimum(N, (start_m + 1) * BM + off)
    full = tl.maximum(0, ((start_m * BM + off) // BN) * BN)  # blocks with no masked score
    for sn in range(0, hi, BN):
        cols = sn + rn
        k1 = tl.load(kb + cols[None, :] * skn + r1[:, None], mask=cols[None, :] < N, other=0.0)
        s = tl.dot(q1, k1)
        if D2 > 0:
            k2 = tl.load(kb + cols[None, :] * skn + D1 + r2[:, None], mask=cols[None, :] < N,
                         other=0.0)
            s += tl.dot(q2, k2)
        s = s * qk_scale
        if sn >= full:
            keep = (cols[None, :] <= rm[:, None] + off) & (cols[None, :] < N)
            s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(vb + cols[:, None] * svn + rv[None, :], mask=cols[:, None] < N, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    op = O + b * sob + h * soh + rm[:, None] * som + rv[None, :]
    tl.store(op, acc.to(O.dtype.element_ty), mask=rm[:, None] < M)


def triton_attn(q, k, v, bm, bn, warps, stages):
    B, H, M, dqk = q.shape
    HKV, N, dv = k.shape[1], k.shape[2], v.shape[3]
    d1 = 128 if dqk >= 128 else dqk
    o = torch.empty(B, H, M, dv, device=q.device, dtype=q.dtype)
    grid = (triton.cdiv(M, bm), B * H)
    _fwd[grid](q, k, v, o, q.stride(0), q.stride(1), q.stride(2), k.stride(0), k.stride(1),
               k.stride(2), v.stride(0), v.stride(1), v.stride(2), o.stride(0), o.stride(1),
               o.stride(2), H, HKV, M, N, dqk ** -0.5, D1=d1, D2=dqk - d1, DV=dv, BM=bm, BN=bn,
               num_warps=warps, num_stages=stages)
    return o


TRITON_TILES = [(128, 64, 8, 2), (128, 128, 8, 2), (64, 64, 4, 3), (128, 64, 8, 3)]

# (family, heads, kv heads, dqk, dv, sequences, query length, key length)
SHAPES = []
for h in (16, 128):
    for seqs, L in ((8, 1024), (1, 1024), (4, 2048), (2, 4096), (1, 8192), (1, 16384),
                    (1, 32768)):
        SHAPES.append(("mla", h, h, 192, 128, seqs, L, L))
    for seqs, Lq, Lk in ((1, 8192, 16384), (1, 8192, 32768), (1, 4096, 8192)):
        SHAPES.append(("mla", h, h, 192, 128, seqs, Lq, Lk))
for seqs, L in ((1, 2048), (1, 8192), (4, 4096)):
    SHAPES.append(("gqa", 32, 8, 128, 128, seqs, L, L))


def kept_scores(Lq, Lk):
    off = Lk - Lq  # row i keeps off + i + 1 keys
    return Lq * off + Lq * (Lq + 1) / 2


def measure(shape):
    fam, h, hkv, dqk, dv, seqs, Lq, Lk = shape
    dev, bf = "cuda", torch.bfloat16
    q = torch.randn(seqs, h, Lq, dqk, device=dev, dtype=bf)
    k = torch.randn(seqs, hkv, Lk, dqk, device=dev, dtype=bf)
    v = torch.randn(seqs, hkv, Lk, dv, device=dev, dtype=bf)
    flops = 2.0 * seqs * h * (dqk + dv) * kept_scores(Lq, Lk)
    base = {"op": "attn_prefill", "dtype": "bf16", "family": fam, "heads": h, "kv_heads": hkv,
            "dqk": dqk, "dv": dv, "seqs": seqs, "q_len": Lq, "kv_len": Lk, "flops": flops,
            "label": f"{fam} {h}/{hkv} heads d{dqk}/{dv}, {seqs} x q{Lq} kv{Lk} causal"}
    out = []
    mask = causal_lower_right(Lq, Lk) if Lq != Lk else None
    gqa = hkv != h
    for name, be in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION),
                     ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
        vv = v if name != "flash" or dv == dqk else F.pad(v, (0, dqk - dv))
        p = dict(base, variant=f"sdpa_{name}" + ("" if vv is v else " v padded"))
        try:
            with sdpa_kernel([be]):
                if mask is None:
                    fn = lambda: F.scaled_dot_product_attention(q, k, vv, is_causal=True,  # noqa
                                                                enable_gqa=gqa)
                else:
                    fn = lambda: F.scaled_dot_product_attention(q, k, vv, attn_mask=mask,  # noqa
                                                                enable_gqa=gqa)
                us = bench(fn)
            p["median_us"], p["TFLOPS"] = us, flops / us * 1e-6
        except Exception as e:  # noqa: BLE001 - a backend that rejects the shape
            p["error"] = f"{type(e).__name__}: {str(e)[:120]}"
        out.append(p)
    best = None
    for t in TRITON_TILES:
        try:
            us = bench(lambda: triton_attn(q, k, v, *t))
            if best is None or us < best[0]:
                best = (us, t)
        except Exception as e:  # noqa: BLE001 - a tile that does not fit
            last = f"{type(e).__name__}: {str(e)[:120]}"
    p = dict(base, variant="triton_probe")
    if best:
        p["median_us"], p["TFLOPS"], p["tile"] = best[0], flops / best[0] * 1e-6, list(best[1])
    else:
        p["error"] = last
    out.append(p)
    del q, k, v
    torch.cuda.empty_cache()
    return out


def check_triton():
    """Max abs difference against SDPA's math on small causal and prefix cases."""
    errs = []
    for Lq, Lk, h, hkv, dqk, dv in ((300, 300, 4, 4, 192, 128), (200, 500, 4, 4, 192, 128),
                                     (256, 256, 8, 2, 128, 128)):
        q = torch.randn(2, h, Lq, dqk, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(2, hkv, Lk, dqk, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(2, hkv, Lk, dv, device="cuda", dtype=torch.bfloat16)
        kk, vv = k.repeat_interleave(h // hkv, 1), v.repeat_interleave(h // hkv, 1)
        i = torch.arange(Lq, device="cuda")[:, None]
        j = torch.arange(Lk, device="cuda")[None, :]
        s = (q.float() @ kk.float().transpose(-1, -2)) * dqk ** -0.5
        s = s.masked_fill(j > i + (Lk - Lq), float("-inf"))
        ref = torch.softmax(s, -1) @ vv.float()
        got = triton_attn(q, k, v, *TRITON_TILES[0]).float()
        errs.append(float((got - ref).abs().max()))
    return errs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,clocks.mem",
                          "--format=csv,noheader"], capture_output=True, text=True)
    doc = {"format": "topoplan-probe-points/1", "tool": "tools/measure/probe_attn_prefill.py",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": "python3 tools/measure/probe_attn_prefill.py --out " + args.out,
           "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
           "triton": triton.__version__, "cudnn": torch.backends.cudnn.version(),
           "nvidia_smi_before": smi.stdout.strip(), "points": []}
    try:
        doc["triton_probe_max_abs_err"] = check_triton()
    except Exception as e:  # noqa: BLE001
        doc["triton_probe_check_error"] = f"{type(e).__name__}: {str(e)[:300]}"
    print("triton check", doc.get("triton_probe_max_abs_err"), doc.get("triton_probe_check_error"),
          flush=True)
    for shape in SHAPES:
        for p in measure(shape):
            doc["points"].append(p)
            print(f"{p['label']:55s} {p['variant']:22s} {p.get('median_us', float('nan')):10.1f} us"
                  f" {p.get('TFLOPS', float('nan')):7.1f} TFLOPS {p.get('error', '')[:60]}",
                  flush=True)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
