#!/usr/bin/env python3
"""Times one Llama-style decoder layer's forward and forward+backward on one GPU at the shapes a
TP shard sees, and a small model's whole training step (forward, backward, fused AdamW), in bf16
with PyTorch (cuBLAS GEMMs, SDPA flash attention). Writes JSON (docs/training.md, "Calibration").
Usage: probe_train_layer.py --out FILE
"""
import argparse, json, time, statistics
import torch
import torch.nn.functional as F

dev = "cuda"
dt = torch.bfloat16


class Layer(torch.nn.Module):
    def __init__(s, h, heads, kv, d, inter):
        super().__init__()
        s.heads, s.kv, s.d = heads, kv, d
        s.n1 = torch.nn.RMSNorm(h, dtype=dt)
        s.n2 = torch.nn.RMSNorm(h, dtype=dt)
        s.qkv = torch.nn.Linear(h, (heads + 2 * kv) * d, bias=False, dtype=dt)
        s.o = torch.nn.Linear(heads * d, h, bias=False, dtype=dt)
        s.up = torch.nn.Linear(h, 2 * inter, bias=False, dtype=dt)
        s.down = torch.nn.Linear(inter, h, bias=False, dtype=dt)

    def forward(s, x):  # x: [b, T, h]
        b, T, _ = x.shape
        q, k, v = s.qkv(s.n1(x)).split([s.heads * s.d, s.kv * s.d, s.kv * s.d], -1)
        q = q.view(b, T, s.heads, s.d).transpose(1, 2)
        k = k.view(b, T, s.kv, s.d).transpose(1, 2)
        v = v.view(b, T, s.kv, s.d).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + s.o(a.transpose(1, 2).reshape(b, T, s.heads * s.d))
        g, u = s.up(s.n2(x)).chunk(2, -1)
        return x + s.down(F.silu(g) * u)


def timeit(fn, reps=10, warm=3):
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        fn()
        e1.record()
        torch.cuda.synchronize()
        ts.append(e0.elapsed_time(e1) * 1e3)  # µs
    return {"median_us": statistics.median(ts), "min_us": min(ts), "max_us": max(ts), "reps": reps}


def layer_passes(h, heads, kv, d, inter, T):
    """One layer with its input and output gradient: (forward without autograd, forward+backward)."""
    L = Layer(h, heads, kv, d, inter).to(dev)
    x = torch.randn(1, T, h, device=dev, dtype=dt, requires_grad=True)
    gy = torch.randn(1, T, h, device=dev, dtype=dt)

    def fwd():
        with torch.no_grad():
            L(x)

    def fwd_bwd():
        L(x).backward(gy)

    return fwd, fwd_bwd


def layer_point(name, h, heads, kv, d, inter, T):
    fwd, fwd_bwd = layer_passes(h, heads, kv, d, inter, T)
    return {"name": name, "hidden": h, "heads": heads, "kv_heads": kv, "head_dim": d,
            "intermediate": inter, "tokens": T, "forward": timeit(fwd), "forward_backward": timeit(fwd_bwd)}


def kernel_class(name):
    n = name.lower()
    if "flash" in n or "fmha" in n or "attention" in n:
        return "attention"
    if "gemm" in n or "nvjet" in n or "xmma" in n or "cutlass" in n or "cublas" in n:
        return "gemm"
    return "other"


def profile_point(name, h, heads, kv, d, inter, T, reps=3):
    """GPU kernel time of one layer's forward and forward+backward by class (gemm, attention,
    other = norms, activations, residual adds, copies, grad accumulation), from torch.profiler's
    CUDA kernel events: which part of the backward costs more than twice its forward."""
    from torch.profiler import profile, ProfilerActivity
    fwd, fwd_bwd = layer_passes(h, heads, kv, d, inter, T)
    out = {"name": name, "op": "layer_profile", "hidden": h, "heads": heads, "kv_heads": kv,
           "head_dim": d, "intermediate": inter, "tokens": T, "reps": reps}
    for label, fn in (("forward", fwd), ("forward_backward", fwd_bwd)):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(reps):
                fn()
            torch.cuda.synchronize()
        by = {"gemm": 0.0, "attention": 0.0, "other": 0.0}
        kernels = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                us = e.device_time if hasattr(e, "device_time") else e.cuda_time
                by[kernel_class(e.name)] += us / reps
                kernels[e.name[:90]] = kernels.get(e.name[:90], 0.0) + us / reps
        out[label] = {"by_class_us": by,
                      "top_kernels_us": dict(sorted(kernels.items(), key=lambda kv: -kv[1])[:25])}
    return out


def model_point(h, heads, kv, d, inter, layers, vocab, T):
    emb = torch.nn.Embedding(vocab, h, dtype=dt).to(dev)
    blocks = torch.nn.ModuleList([Layer(h, heads, kv, d, inter) for _ in range(layers)]).to(dev)
    norm = torch.nn.RMSNorm(h, dtype=dt).to(dev)
    head = torch.nn.Linear(h, vocab, bias=False, dtype=dt).to(dev)
    params = list(emb.parameters()) + list(blocks.parameters()) + list(norm.parameters()) + list(head.parameters())
    # fp32 master weights are not kept here: AdamW(fused) updates the bf16 params in place.
    opt = torch.optim.AdamW(params, lr=1e-4, fused=True)
    tok = torch.randint(0, vocab, (1, T), device=dev)

    def step():
        x = emb(tok)
        for b in blocks:
            x = b(x)
        loss = F.cross_entropy(head(norm(x)).float().view(-1, vocab), tok.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    def fwd_bwd():
        x = emb(tok)
        for b in blocks:
            x = b(x)
        F.cross_entropy(head(norm(x)).float().view(-1, vocab), tok.view(-1)).backward()

    def opt_only():  # gradients of the last fwd_bwd stay in place: the update alone
        opt.step()

    n = sum(p.numel() for p in params)
    out = {"name": "small_model_step", "hidden": h, "heads": heads, "kv_heads": kv, "head_dim": d,
           "intermediate": inter, "layers": layers, "vocab": vocab, "tokens": T, "params": n,
           "step": timeit(step, reps=8, warm=3)}
    out["forward_backward"] = timeit(lambda: (fwd_bwd(), opt.zero_grad(set_to_none=True)), reps=8)
    fwd_bwd()
    out["optimizer"] = timeit(opt_only, reps=8)
    out["optimizer_note"] = ("torch.optim.AdamW(fused=True) over bf16 params with bf16 exp_avg and "
                             "exp_avg_sq (no fp32 master copy): reads param, grad, m, v and "
                             "writes param, m, v, 2 B each = 14 B per parameter")
    return out


def fp32_optimizer_point(h, heads, kv, d, inter, layers, vocab):
    """Megatron's mixed-precision optimizer step over the small model's parameter shapes: fused
    AdamW on fp32 main params with fp32 main grads (reads param, grad, m, v; writes param, m, v:
    28 B per parameter), then the bf16 model-weight copy (reads 4 B, writes 2 B)."""
    shapes = [(vocab, h), (vocab, h), (h,)]
    for _ in range(layers):
        shapes += [((heads + 2 * kv) * d, h), (h, heads * d), (2 * inter, h), (h, inter), (h,), (h,)]
    params = [torch.randn(s, device=dev, dtype=torch.float32) * 0.02 for s in shapes]
    for p in params:
        p.requires_grad_(True)
        p.grad = torch.randn_like(p) * 1e-3
    bf16 = [p.detach().to(dt) for p in params]
    opt = torch.optim.AdamW(params, lr=1e-4, fused=True)
    opt.step()

    def copy_out():
        torch._foreach_copy_(bf16, [p.detach() for p in params])

    n = sum(p.numel() for p in params)
    return {"name": "fp32_master_optimizer", "params": n, "optimizer": timeit(opt.step, reps=8),
            "bf16_copy": timeit(copy_out, reps=8),
            "note": "torch.optim.AdamW(fused=True), fp32 params/grads/exp_avg/exp_avg_sq: 28 B "
                    "per parameter; bf16_copy: torch._foreach_copy_ fp32 -> bf16, 6 B per parameter"}


def attn_point(name, heads, kv, d, T):
    """Flash attention (SDPA, causal) alone: forward and forward+backward, one sequence."""
    q = torch.randn(1, heads, T, d, device=dev, dtype=dt, requires_grad=True)
    k = torch.randn(1, kv, T, d, device=dev, dtype=dt, requires_grad=True)
    v = torch.randn(1, kv, T, d, device=dev, dtype=dt, requires_grad=True)
    go = torch.randn(1, heads, T, d, device=dev, dtype=dt)

    def fwd():
        with torch.no_grad():
            F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)

    def fwd_bwd():
        F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True).backward(go)

    return {"name": name, "op": "flash_attention", "heads": heads, "kv_heads": kv, "head_dim": d,
            "tokens": T, "forward": timeit(fwd), "forward_backward": timeit(fwd_bwd)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    t0 = time.time()
    out = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "cuda": torch.version.cuda, "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
           "command": "python3 tools/measure/probe_train_layer.py --out $OUT/train_layer.json",
           "points": []}
    # Llama-3-8B layer (TP1) and Llama-3-70B layer's TP4 and TP8 shards, 8192 tokens (one sequence).
    out["points"].append(layer_point("llama3_8b_tp1", 4096, 32, 8, 128, 14336, 8192))
    out["points"].append(layer_point("llama3_70b_tp4", 8192, 16, 2, 128, 7168, 8192))
    out["points"].append(layer_point("llama3_70b_tp8", 8192, 8, 1, 128, 3584, 8192))
    out["points"].append(model_point(2048, 16, 8, 128, 8192, 16, 32768, 4096))
    out["points"].append(fp32_optimizer_point(2048, 16, 8, 128, 8192, 16, 32768))
    out["points"].append(layer_point("small_layer", 2048, 16, 8, 128, 8192, 4096))
    out["points"].append(profile_point("llama3_8b_tp1_profile", 4096, 32, 8, 128, 14336, 8192))
    out["points"].append(profile_point("small_layer_profile", 2048, 16, 8, 128, 8192, 4096))
    for name, heads, kv in (("attn_32q8kv", 32, 8), ("attn_16q2kv", 16, 2), ("attn_8q1kv", 8, 1)):
        out["points"].append(attn_point(name, heads, kv, 128, 8192))
    out["wall_s"] = time.time() - t0
    json.dump(out, open(a.out, "w"), indent=1)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
