#!/usr/bin/env python3
"""Measures what the training memory model calls its reserve (docs/training.md, "Memory":
TrainRequest::reserve_bytes, 6 GB, an assumption until this probe): the memory a training step
needs beyond the weights, gradients, optimizer states and stored activations that the model
counts. One process per configuration, so the caching allocator starts clean each time.

A stack of Llama-style decoder layers (probe_train_layer.Layer: bf16, SDPA flash attention)
trains with Megatron's state: bf16 weights, an fp32 gradient buffer filled by a hook as each
bf16 gradient lands (Megatron's main_grad), fp32 master weights and Adam moments updated in
place. Per configuration it reports, in bytes:
  outside    device memory in use that PyTorch's allocator does not hold (CUDA context, cuBLAS
             and other libraries), after the step;
  static     weights + gradient buffer + master + moments, as allocated;
  stored     what the forward leaves allocated for the backward (activations and the output);
  transient  the step's peak allocation above static + stored (backward's temporaries, the
             optimizer's);
  frag       the allocator's peak reservation above its peak allocation;
  need       device peak - static - stored = outside + transient + frag: the reserve this step
             needed.
Usage: probe_train_memory.py --shape 8b|70b-tp8 --tokens T --layers L --out FILE
"""
import argparse, json, os, sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_train_layer import Layer  # noqa: E402

dev = "cuda"
# (hidden, heads, kv heads, head dim, MLP intermediate) of the layer as one GPU holds it.
SHAPES = {
    "8b": (4096, 32, 8, 128, 14336),  # Llama 3 8B, TP1
    "70b-tp8": (8192, 8, 1, 128, 3584),  # Llama 3 70B, one TP8 shard (no SP)
}


def device_used():
    free, total = torch.cuda.mem_get_info()
    return total - free


def run(shape, T, L, iters=4):
    torch.cuda.init()
    # Libraries' first use (cuBLAS handle and workspace, flash attention) before the baseline.
    a = torch.randn(256, 256, device=dev, dtype=torch.bfloat16)
    (a @ a).sum().item()
    h, heads, kv, d, inter = SHAPES[shape]
    layers = torch.nn.ModuleList(Layer(h, heads, kv, d, inter) for _ in range(L)).to(dev)
    params = [p for p in layers.parameters()]
    n = sum(p.numel() for p in params)
    main_grad = torch.zeros(n, device=dev, dtype=torch.float32)
    master = torch.cat([p.detach().float().reshape(-1) for p in params])
    m1 = torch.zeros_like(master)
    m2 = torch.zeros_like(master)
    views, off = [], 0
    for p in params:
        views.append(main_grad[off : off + p.numel()].view_as(p))
        off += p.numel()

    def hook(i):
        def f(p):
            views[i].add_(p.grad)
            p.grad = None

        return f

    for i, p in enumerate(params):
        p.register_post_accumulate_grad_hook(hook(i))
    x = torch.randn(1, T, h, device=dev, dtype=torch.bfloat16)
    gy = torch.randn(1, T, h, device=dev, dtype=torch.bfloat16)
    # Drop the setup's cached blocks (the fp32 copies that built `master`); the warm-up steps
    # below bring the allocator to the steady state a training run is in.
    torch.cuda.empty_cache()

    def step(record):
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        y = x
        for layer in layers:
            y = layer(y)
        torch.cuda.synchronize()
        after_fwd = torch.cuda.memory_allocated()
        y.backward(gy)
        del y
        # Adam on the flat fp32 buffers, in place (Megatron's distributed optimizer, unsharded).
        m1.mul_(0.9).add_(main_grad, alpha=0.1)
        m2.mul_(0.95).addcmul_(main_grad, main_grad, value=0.05)
        master.addcdiv_(m1, m2.sqrt().add_(1e-8), value=-1e-4)
        o = 0
        with torch.no_grad():
            for p in params:
                p.copy_(master[o : o + p.numel()].view_as(p))
                o += p.numel()
        main_grad.zero_()
        torch.cuda.synchronize()
        if record:
            record.update(before=before, after_fwd=after_fwd)

    for _ in range(iters - 1):
        step(None)
    torch.cuda.reset_peak_memory_stats()
    rec = {}
    step(rec)
    peak_alloc = torch.cuda.max_memory_allocated()
    peak_reserved = torch.cuda.max_memory_reserved()
    outside = device_used() - torch.cuda.memory_reserved()
    peak_device = peak_reserved + outside
    static = rec["before"]
    stored = rec["after_fwd"] - rec["before"]
    return {
        "shape": shape,
        "hidden": h,
        "heads": heads,
        "kv_heads": kv,
        "head_dim": d,
        "intermediate": inter,
        "tokens": T,
        "layers": L,
        "params": n,
        "static_bytes": static,
        "static_expected_bytes": n * (2 + 4 + 12),
        "stored_bytes": stored,
        "transient_bytes": peak_alloc - rec["after_fwd"],
        "frag_bytes": peak_reserved - peak_alloc,
        "outside_bytes": outside,
        "peak_device_bytes": peak_device,
        "need_bytes": peak_device - static - stored,
        "capacity_bytes": torch.cuda.mem_get_info()[1],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shape", choices=sorted(SHAPES), required=True)
    ap.add_argument("--tokens", type=int, required=True)
    ap.add_argument("--layers", type=int, required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    r = run(a.shape, a.tokens, a.layers)
    r["gpu"] = torch.cuda.get_device_name()
    r["torch"] = torch.__version__
    with open(a.out, "w") as f:
        json.dump(r, f, indent=1)
    print(json.dumps({k: (round(v / 2**30, 3) if k.endswith("_bytes") else v) for k, v in r.items()}))


if __name__ == "__main__":
    main()
