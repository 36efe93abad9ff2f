#!/usr/bin/env python3
"""The CLI's closed loop against the formula of include/topoplan/closed_loop.hpp, from the step
and prefill times the CLI prices on their own (not from the closed-loop output itself).

DeepSeek-R1 TP8 EP1 on hgx-h200-8, 1k/1k, c = 64 (the InferenceX point, docs/planner.md):
  step(64) = TPOT of `--mode decode --batch 64` (no MTP: one token per step), about 28.38 ms (the CUDA graph's inter-kernel gap and
             small-kernel duration, 2026-12-05; 27.34 before, 26.73 before DeepGEMM's k-loop);
  T_p      = TTFT of `--mode prefill --batch 1 --prompt 1024`, about 59.85 ms (NCCL without
             NVLS, SGLang's default; 58.63 before the small-kernel duration);
  D = output - 1 = 1023 steps.
  mean TPOT = (D step + (c - 1) T_p) / (output - 1) = 28.38 + 63 x 59.85 / 1023 = 32.07 ms
  mean TTFT = T_p + step / 2 = 59.85 + 14.19 = 74.04 ms
  cycle     = D step + c T_p = 29.03 + 3.83 = 32.86 s
  output tok/s = c output / cycle = 65,536 / 32.86 = 1,994 (249.3 per GPU); total = x 2048/1024.
Usage: closed_loop_check.py TOPOPLAN_BINARY
"""
import json
import subprocess
import sys

BASE = ["plan", "--model", "deepseek-r1", "--topology", "hgx-h200-8", "--tp", "8", "--ep", "1",
        "--attention-dp", "false", "--prompt", "1024", "--output", "1024", "--json"]
C, OUTPUT, PROMPT, GPUS = 64, 1024, 1024, 8


def run(binary, *extra):
    done = subprocess.run([binary, *BASE, *extra], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def near(name, got, want, rel=2e-4):  # the JSON keeps 6 significant digits
    ok = abs(got - want) <= rel * abs(want)
    print(f"{name}: CLI {got} vs formula {want} {'ok' if ok else 'MISMATCH'}")
    return ok


def main():
    binary = sys.argv[1]
    closed = run(binary, "--workload", "closed", "--concurrency", str(C))["closed_loop"]
    step_ms = run(binary, "--mode", "decode", "--batch", str(C))["plans"][0]["tpot_ms"]
    prefill = run(binary, "--mode", "prefill", "--batch", "1")
    t_p_ms = prefill["plans"][0]["ttft_ms"]
    steps = OUTPUT - 1
    cycle_ms = steps * step_ms + C * t_p_ms
    out_per_s = C * OUTPUT / (cycle_ms * 1e-3)
    checks = [
        near("decode_step_ms", closed["decode_step_ms"], step_ms),
        near("prefill_one_ms", closed["prefill_one_ms"], t_p_ms),
        near("cycle_s", closed["cycle_s"], cycle_ms * 1e-3),
        near("mean_tpot_ms", closed["mean_tpot_ms"],
             (steps * step_ms + (C - 1) * t_p_ms) / (OUTPUT - 1)),
        near("mean_ttft_ms", closed["mean_ttft_ms"], t_p_ms + step_ms / 2),
        near("output_tokens_per_s", closed["output_tokens_per_s"], out_per_s),
        near("total_tokens_per_s", closed["total_tokens_per_s"],
             out_per_s * (PROMPT + OUTPUT) / OUTPUT),
        near("output_tokens_per_s_per_gpu", closed["output_tokens_per_s_per_gpu"],
             out_per_s / GPUS),
        near("total_tokens_per_s_per_gpu", closed["total_tokens_per_s_per_gpu"],
             out_per_s * (PROMPT + OUTPUT) / OUTPUT / GPUS),
    ]
    # The hand values of the docstring (and of docs/planner.md), so a drift in the step or the
    # prefill shows up here too, not only in the golden.
    checks.append(near("mean_tpot_ms (hand)", closed["mean_tpot_ms"], 32.07, rel=2e-3))
    checks.append(near("output tok/s/GPU (hand)", closed["output_tokens_per_s_per_gpu"], 249.3,
                       rel=2e-3))
    # The mechanism: staggered prefills stall decode, so TPOT exceeds the bare step.
    checks.append(closed["mean_tpot_ms"] > step_ms)
    checks.append(closed["concurrency"] == C and closed["replicas"] == 1)
    return 0 if all(checks) else 1


if __name__ == "__main__":
    sys.exit(main())
