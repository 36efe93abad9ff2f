#!/usr/bin/env python3
"""--csv of plan, plan --mode train, compare and a collective sweep loads with pandas.read_csv:
one row per element of the JSON list, the flattened JSON keys as columns, values equal
(issue 31, part 3). Usage: csv_pandas.py TOPOPLAN WORKDIR"""
import json
import math
import os
import subprocess
import sys

import pandas


def flatten(obj, prefix=""):
    out = {}
    if isinstance(obj, dict) and obj:
        for k, v in obj.items():
            out.update(flatten(v, f"{prefix}.{k}" if prefix else k))
    else:
        out[prefix] = obj
    return out


def run(topoplan, args, ok=(0,)):
    p = subprocess.run([topoplan] + args, capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit(f"{' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.stdout


def check(topoplan, workdir, name, args, key):
    path = os.path.join(workdir, name + ".csv")
    doc = json.loads(run(topoplan, args + ["--json"], ok=(0, 3)))
    run(topoplan, args + ["--csv", path, "--quiet"] if args[0] == "plan" else args + ["--csv", path],
        ok=(0, 3))
    frame = pandas.read_csv(path, keep_default_na=False, na_values=[""])
    rows = [flatten(e) for e in doc[key]]
    assert len(frame) == len(rows), f"{name}: {len(frame)} rows, JSON has {len(rows)}"
    columns = []
    for r in rows:
        columns += [c for c in r if c not in columns]
    assert list(frame.columns) == columns, f"{name}: columns {list(frame.columns)} != {columns}"
    for i, r in enumerate(rows):
        for c, v in r.items():
            cell = frame.at[i, c]
            if v is None:
                assert isinstance(cell, float) and math.isnan(cell), f"{name} {i} {c}: {cell!r}"
            elif isinstance(v, bool):
                assert str(cell).lower() == str(v).lower(), f"{name} {i} {c}: {cell!r} != {v!r}"
            elif isinstance(v, (int, float)):
                assert math.isclose(float(cell), float(v), rel_tol=1e-12), f"{name} {i} {c}"
            elif isinstance(v, str):
                assert str(cell) == v, f"{name} {i} {c}: {cell!r} != {v!r}"
            else:  # arrays (and empty objects): their compact JSON text
                assert json.loads(cell) == v, f"{name} {i} {c}: {cell!r}"
    # The same table on stdout when --csv has no file.
    if args[0] != "collective":
        stdout = run(topoplan, args + ["--csv", "--quiet"] if args[0] == "plan" else args + ["--csv"],
                     ok=(0, 3))
        with open(path, newline="") as f:
            assert stdout.replace("\r\n", "\n") == f.read().replace("\r\n", "\n"), name
    print(f"{name}: {len(frame)} rows x {len(frame.columns)} columns")


def main():
    topoplan, workdir = sys.argv[1], sys.argv[2]
    os.makedirs(workdir, exist_ok=True)
    check(topoplan, workdir, "plan", ["plan", "--model", "llama-3-8b", "--topology", "hgx-h100-8",
                                      "--mode", "decode", "--batch", "16", "--top", "3"], "plans")
    check(topoplan, workdir, "plan_train",
          ["plan", "--mode", "train", "--model", "llama-3-8b", "--topology", "hgx-h100-8",
           "--global-batch", "64", "--no-timing"], "plans")
    check(topoplan, workdir, "compare",
          ["compare", "--model", "llama-3-8b", "--topology", "hgx-h100-8",
           "--topology", "hgx-h200-8:price=3.5", "--mode", "decode", "--batch", "16"], "designs")
    check(topoplan, workdir, "collective",
          ["collective", "all-reduce", "--topology", "hgx-h100-8", "--sweep", "1K:1G:4"],
          "results")
    check(topoplan, workdir, "collective_all",
          ["collective", "all-gather", "--topology", "hgx-h100-8", "--sweep", "1M:64M:8",
           "--algo", "all"], "alternatives")


if __name__ == "__main__":
    main()
