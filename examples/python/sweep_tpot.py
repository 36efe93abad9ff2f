"""A notebook-style sweep: how much DeepSeek-R1 throughput does each server give as the TPOT
limit (the per-user speed a service promises) loosens? One plan per limit and server, plotted
as tokens/s per GPU against tokens/s per user, the curve buyers compare designs on.

    PYTHONPATH=build/release/python python3 examples/python/sweep_tpot.py --out sweep.png

(after `cmake --install build/release --component python` the PYTHONPATH is not needed).
"""

import argparse

import matplotlib

matplotlib.use("Agg")  # no display: write the file
import matplotlib.pyplot as plt  # noqa: E402

import topoplan  # noqa: E402

SERVERS = ["hgx-h20-8", "hgx-h200-8"]
TPOT_LIMITS_MS = [15, 25, 40, 60, 100]


def sweep(server):
    """One row per TPOT limit: the best plan's strategy, speed per user and per GPU."""
    rows = []
    for tpot_max in TPOT_LIMITS_MS:
        p = topoplan.plan(model="deepseek-r1", topology=server, tpot_max=tpot_max, top=1)
        if p.status != "ok":
            print(f"{server} at TPOT <= {tpot_max} ms: {p.message}")
            continue
        best = p.plans[0]
        s = best.strategy  # {tp, pp, ep, dp, attention_dp}
        label = f"tp{s.tp} pp{s.pp} ep{s.ep} dp{s.dp}" + (" adp" if s.attention_dp else "")
        rows.append({"tpot_max_ms": tpot_max, "strategy": label, "batch": best.batch,
                     "per_user": best.tokens_per_s_per_user, "per_gpu": best.tokens_per_s_per_gpu})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="sweep_tpot.png", help="the chart (PNG)")
    args = parser.parse_args()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for server in SERVERS:
        rows = sweep(server)
        print(f"{server}:")
        for r in rows:
            print(f"  TPOT <= {r['tpot_max_ms']:>3} ms  {r['strategy']:<22} batch {r['batch']:>6.0f}"
                  f"  {r['per_user']:7.1f} tok/s/user  {r['per_gpu']:8.1f} tok/s/GPU")
        ax.plot([r["per_user"] for r in rows], [r["per_gpu"] for r in rows], marker="o",
                label=server)
    ax.set_xlabel("tokens/s per user (1000 / TPOT)")
    ax.set_ylabel("tokens/s per GPU")
    ax.set_title("DeepSeek-R1 FP8, 1 server: throughput at each TPOT limit (topoplan)")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
