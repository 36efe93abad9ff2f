#!/usr/bin/env python3
"""Per-kernel table: probe_r1_layer.py's measurement against price_r1_layer's model prices.

Usage: python3 tools/measure/compare_r1_layer.py MEASURED.json PRICES.json [--config 2x4096]
PRICES.json is the output of tools/measure/price_r1_layer.cpp (see its header for the build line).
Pairs: the `cublaslt_tensor` layer run with the model's `auto` prices (dense GEMMs at the
per-tensor rate, experts at the Triton rate) and the `triton_block` run with `triton` prices.
Prints a markdown table (µs) and the whole-layer lines. "in layer" is the sum of the CUPTI
durations of the step's kernels inside one replay of the whole-layer CUDA graph (the run's
`profile_graph`, 2 x 4,096 only), "alone" the step's own CUDA graph (median, L2 flushed).
"""
import argparse
import json


# The step sequence of probe_r1_layer.py and how its kernels appear in the profile: a Triton
# kernel's name, "lib" (optional cuBLASLt/cuDNN memsets, then one kernel), "until:NAME" (every
# kernel up to the next NAME: PyTorch's many small kernels), "none", "rest".
def step_kernels(dense):
    d = "T:dense_fp8_kernel" if dense == "triton_block" else "lib"
    return [("attn_norm", "T:fused_add_rmsnorm_kernel"), ("qkv_a_quant", "T:group_quant_kernel"),
            ("q_a_proj", d), ("kv_a_proj", d), ("q_a_norm", "T:rmsnorm_kernel"),
            ("kv_a_norm", "T:rmsnorm_kernel"), ("q_b_quant", "T:group_quant_kernel"),
            ("q_b_proj", d), ("kv_b_quant", "T:group_quant_kernel"), ("kv_b_proj", d),
            ("rope", "T:rope_kernel"), ("k_concat", "T:k_concat_kernel"),
            ("kv_cache_store", "T:store_latent_kernel"), ("attn_layout_in", "none"),
            ("attn", "lib"), ("attn_out_layout", "none"), ("o_quant", "T:group_quant_kernel"),
            ("o_proj", d), ("mlp_norm", "T:fused_add_rmsnorm_kernel"), ("router", "lib"),
            ("topk", "until:group_quant_kernel"), ("shared_in_quant", "T:group_quant_kernel"),
            ("shared_up_gate", d), ("shared_act", "T:silu_mul_kernel"),
            ("shared_down_quant", "T:group_quant_kernel"), ("shared_down", d),
            ("moe_align", "until:group_quant_kernel"),
            ("experts_in_quant", "T:group_quant_kernel"), ("experts_up_gate", "T:moe_gemm_kernel"),
            ("experts_act", "T:silu_mul_kernel"), ("experts_down_quant", "T:group_quant_kernel"),
            ("experts_down", "T:moe_gemm_kernel"), ("experts_combine", "T:moe_sum_kernel"),
            ("moe_out_add", "rest")]


def in_layer(rec):
    """step -> (kernels, summed duration µs) from the run's graph profile; {} if absent."""
    ks = rec.get("profile_graph", {}).get("list")
    if not ks:
        return {}
    out, i = {}, 0
    for name, spec in step_kernels(rec["dense_gemm"]):
        start = i
        if spec.startswith("T:"):
            if ks[i]["name"] != spec[2:]:
                raise SystemExit(f"profile: expected {spec[2:]} for {name}, got {ks[i]['name']}")
            i += 1
        elif spec == "lib":
            while ks[i]["name"].startswith("Memset"):
                i += 1
            i += 1
        elif spec.startswith("until:"):
            while ks[i]["name"] != spec[6:]:
                i += 1
        elif spec == "rest":
            i = len(ks)
        out[name] = (i - start, sum(k["dur_us"] for k in ks[start:i]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("measured")
    ap.add_argument("prices")
    ap.add_argument("--config", default="2x4096")
    a = ap.parse_args()
    meas = json.load(open(a.measured))
    prices = json.load(open(a.prices))
    seqs, prompt = (int(x) for x in a.config.split("x"))
    runs = {r["dense_gemm"]: r for r in meas["layers"]
            if r.get("config") == a.config and "steps" in r}
    model = {c["fp8_block_gemm"]: c for c in prices["configs"]
             if c["batch"] == seqs and c["prompt"] == prompt}
    pairs = [("cublaslt_tensor", "auto"), ("triton_block", "triton")]
    mk = {p: {k["name"]: k for k in model[p[1]]["kernels"]} for p in pairs if p[1] in model}
    ins = {p: in_layer(runs[p[0]]) for p in pairs}
    print("| step | model auto | in layer (cuBLASLt dense) | alone | in layer / model | "
          "model triton | in layer (Triton dense) | alone | in layer / model |")
    print("|---|---|---|---|---|---|---|---|---|")
    names = [s["name"] for s in runs["triton_block"]["steps"]]
    tot = {p: [0.0, 0.0] for p in pairs}
    unpriced = {p: 0.0 for p in pairs}
    for n in names:
        cells = [n]
        for p in pairs:
            r = {s["name"]: s for s in runs[p[0]]["steps"]}[n]
            m = mk[p].get(r["model_kernel"]) if r["model_kernel"] else None
            g = r.get("graph_us", float("nan"))
            cnt, il = ins[p].get(n, (0, float("nan")))
            if cnt == 0:
                g = 0.0  # no kernel: the timer's floor only
            label = f"{il:.1f}" + (f" ({cnt} k)" if cnt > 1 else "")
            if m:
                tot[p][0] += m["time_us"]
                tot[p][1] += il
                cells += [f"{m['time_us']:.1f}", label, f"{g:.1f}", f"{il / m['time_us']:.2f}"]
            else:
                unpriced[p] += il if cnt else 0.0
                cells += ["–", label, f"{g:.1f}", "–"]
        print("| " + " | ".join(cells) + " |")
    for p in pairs:
        r = runs[p[0]]
        m = model[p[1]]
        print(f"\n{p[0]} vs model {p[1]}: model sum {m['sum_us']:.1f} us (eager-priced "
              f"{m['sum_eager_us']:.1f}); in layer: priced kernels {tot[p][1]:.1f} us (model "
              f"{tot[p][0]:.1f}), unpriced steps {unpriced[p]:.1f} us, all kernels "
              f"{r.get('profile_graph', {}).get('busy_us', float('nan')):.1f}; alone: sum graph "
              f"{r['sum_graph_us']:.1f}, sum eager {r['sum_eager_us']:.1f}, whole eager "
              f"{r.get('whole_eager', {}).get('median_us', float('nan')):.1f}, whole graph "
              f"{r.get('whole_graph', {}).get('median_us', float('nan')):.1f}; whole eager / "
              f"model sum = "
              f"{r.get('whole_eager', {}).get('median_us', float('nan')) / m['sum_eager_us']:.3f}")


if __name__ == "__main__":
    main()
