#!/usr/bin/env python3
"""A whole dense Llama prefill (batch 1) on one GPU: is the planner's short-prompt TTFT right?

TensorRT-LLM v0.5 published TTFTs at 128-token prompts on A100 that the planner predicts 31-36%
too fast, while its 2,048-token TTFTs are within 2% (docs/planner.md, "Accuracy"). This probe
runs Llama-2-7B's full prefill (32 decoder layers, fp16, batch 1) on the device GPU with PyTorch
kernels (cuBLAS GEMMs, SDPA flash attention, one op per step, no fusion beyond PyTorch's own) and
times it three ways per prompt length:
- eager: CUDA events around one forward started from an idle GPU (median of 20), the way a
  request's prefill runs in an engine without CUDA graphs;
- graph: the same forward captured in one CUDA graph (median of 20 replays): GPU time with
  launch gaps removed;
- kernels: CUPTI kernel durations of one eager forward (torch.profiler), summed, and their count.
So "the GPU work of a 128-token prefill" is measured on the GPU the model is calibrated on,
separately from one engine's host overhead. Shapes: hidden 4096, 32 heads of 128, MLP 11008,
vocabulary 32000 (models/llama-2-7b.json); the LM head runs on the last token only.

Decode (`--decode BATCHxCONTEXT,...`): one decode step of the same model instead, `batch`
sequences with `context` cached tokens each, attention over the cache by SDPA, LM head on every
sequence; GQA models (`--model llama-3-8b`) too.

Usage: python3 tools/measure/probe_dense_prefill.py --out dense-prefill-h200.json
       [--model llama-2-7b|llama-3-8b] [--decode 1x512,32x2048]
"""
import argparse
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_moe_tp import points_document  # noqa: E402 - the document head

# (hidden, heads, kv heads, MLP, vocabulary, layers) from models/*.json
MODEL = "llama-2-7b"
MODELS = {"llama-2-7b": (4096, 32, 32, 11008, 32000, 32),
          "llama-3-8b": (4096, 32, 8, 14336, 128256, 32)}
H, HEADS, KVH, FFN, VOCAB, LAYERS = MODELS["llama-2-7b"]
D = 128
DT = torch.float16


class Llama:
    def __init__(self, tokens):
        dev = "cuda"
        r = lambda *s: torch.randn(*s, device=dev, dtype=DT) * 0.02  # noqa: E731
        self.layers = [dict(wqkv=r((HEADS + 2 * KVH) * D, H), wo=r(H, H), wgu=r(2 * FFN, H),
                            wd=r(H, FFN), n1=torch.ones(H, device=dev, dtype=DT),
                            n2=torch.ones(H, device=dev, dtype=DT),
                            kc=torch.empty(tokens, KVH, D, device=dev, dtype=DT),
                            vc=torch.empty(tokens, KVH, D, device=dev, dtype=DT))
                       for _ in range(LAYERS)]
        self.emb, self.head = r(VOCAB, H), r(VOCAB, H)
        self.norm = torch.ones(H, device=dev, dtype=DT)
        self.ids = torch.randint(0, VOCAB, (tokens,), device=dev)
        pos = torch.arange(tokens, device=dev, dtype=torch.float32)
        inv = 1.0 / (10000 ** (torch.arange(0, D, 2, device=dev, dtype=torch.float32) / D))
        ang = torch.outer(pos, inv)
        self.cos = torch.cat([ang.cos(), ang.cos()], -1).to(DT)[:, None, :]
        self.sin = torch.cat([ang.sin(), ang.sin()], -1).to(DT)[:, None, :]
        self.t = tokens

    def rope(self, x):
        x1, x2 = x[..., : D // 2], x[..., D // 2:]
        return x * self.cos + torch.cat([-x2, x1], -1) * self.sin

    def forward(self):
        x = F.embedding(self.ids, self.emb)
        for L in self.layers:
            h = F.rms_norm(x, (H,), L["n1"], 1e-5)
            q, k, v = F.linear(h, L["wqkv"]).view(self.t, HEADS + 2 * KVH, D).split(
                [HEADS, KVH, KVH], 1)
            q, k = self.rope(q), self.rope(k)
            L["kc"].copy_(k)
            L["vc"].copy_(v)
            a = F.scaled_dot_product_attention(q.transpose(0, 1)[None], k.transpose(0, 1)[None],
                                               v.transpose(0, 1)[None], is_causal=True,
                                               enable_gqa=KVH != HEADS)
            x = x + F.linear(a[0].transpose(0, 1).reshape(self.t, H), L["wo"])
            h = F.rms_norm(x, (H,), L["n2"], 1e-5)
            g, u = F.linear(h, L["wgu"]).chunk(2, -1)
            x = x + F.linear(F.silu(g) * u, L["wd"])
        return F.linear(F.rms_norm(x[-1:], (H,), self.norm, 1e-5), self.head)


class LlamaDecode(Llama):
    """One decode step of `batch` sequences with `context` tokens cached each (KV in bf16/fp16
    caches of [batch, KVH, context + 1, D]; attention over the whole cache, SDPA)."""

    def __init__(self, batch, context):
        super().__init__(batch)
        self.b, self.c = batch, context
        for L in self.layers:
            L["kc"] = torch.randn(batch, KVH, context + 1, D, device="cuda", dtype=DT)
            L["vc"] = torch.randn(batch, KVH, context + 1, D, device="cuda", dtype=DT)
        self.cos, self.sin = self.cos[:batch], self.sin[:batch]

    def forward(self):
        x = F.embedding(self.ids, self.emb)
        for L in self.layers:
            h = F.rms_norm(x, (H,), L["n1"], 1e-5)
            q, k, v = F.linear(h, L["wqkv"]).view(self.b, HEADS + 2 * KVH, D).split(
                [HEADS, KVH, KVH], 1)
            q, k = self.rope(q), self.rope(k)
            L["kc"][:, :, self.c].copy_(k)
            L["vc"][:, :, self.c].copy_(v)
            a = F.scaled_dot_product_attention(q[:, :, None], L["kc"], L["vc"],
                                               enable_gqa=KVH != HEADS)
            x = x + F.linear(a.reshape(self.b, H), L["wo"])
            h = F.rms_norm(x, (H,), L["n2"], 1e-5)
            g, u = F.linear(h, L["wgu"]).chunk(2, -1)
            x = x + F.linear(F.silu(g) * u, L["wd"])
        return F.linear(F.rms_norm(x, (H,), self.norm, 1e-5), self.head)


def events_ms(fn, reps=20):
    out = []
    for _ in range(reps):
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        out.append(a.elapsed_time(b))
    return statistics.median(out)


def measure(tokens, decode_batch=0, context=0):
    m = LlamaDecode(decode_batch, context) if decode_batch else Llama(tokens)
    for _ in range(3):
        m.forward()
    torch.cuda.synchronize()
    rec = {"model": MODEL, "dtype": "fp16", "prompt": tokens, "batch": 1}
    if decode_batch:
        rec = {"model": MODEL, "dtype": "fp16", "decode_batch": decode_batch, "context": context}
    rec["eager_ms"] = events_ms(m.forward)
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        m.forward()
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        m.forward()
    rec["graph_ms"] = events_ms(g.replay)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        m.forward()
        torch.cuda.synchronize()
    ks = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    rec["kernels"] = len(ks)
    rec["kernel_sum_ms"] = sum(e.time_range.end - e.time_range.start for e in ks) * 1e-3
    by = {}
    for e in ks:
        n = e.name[:70]
        by[n] = by.get(n, 0.0) + (e.time_range.end - e.time_range.start) * 1e-3
    rec["kernel_ms_by_name"] = dict(sorted(by.items(), key=lambda kv: -kv[1])[:25])
    del g, m
    torch.cuda.empty_cache()
    return rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--prompts", default="128,512,2048")
    ap.add_argument("--model", default="llama-2-7b", choices=sorted(MODELS))
    ap.add_argument("--decode", default="", help="BATCHxCONTEXT,...: decode steps instead")
    args = ap.parse_args()
    global H, HEADS, KVH, FFN, VOCAB, LAYERS, MODEL
    H, HEADS, KVH, FFN, VOCAB, LAYERS = MODELS[args.model]
    MODEL = args.model
    doc = points_document("tools/measure/probe_dense_prefill.py", args.out, [])
    doc["command"] += f" --model {args.model}" + (f" --decode {args.decode}" if args.decode else "")
    doc["prefills"] = []
    runs = [(1, int(b), int(c)) for b, c in (x.split("x") for x in args.decode.split(","))] \
        if args.decode else [(t, 0, 0) for t in map(int, args.prompts.split(","))]
    for t, b, c in runs:
        try:
            rec = measure(t, b, c)
        except Exception as e:  # noqa: BLE001 - record and go on
            rec = {"prompt": t, "error": f"{type(e).__name__}: {str(e)[:300]}"}
        doc["prefills"].append(rec)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
        print(f"prompt {t:5d} decode {b}x{c}: eager {rec.get('eager_ms', float('nan')):7.3f} ms  graph "
              f"{rec.get('graph_ms', float('nan')):7.3f} ms  kernels {rec.get('kernels', 0):5d} "
              f"sum {rec.get('kernel_sum_ms', float('nan')):7.3f} ms {rec.get('error', '')}",
              flush=True)


if __name__ == "__main__":
    main()
