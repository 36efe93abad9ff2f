#!/usr/bin/env python3
"""Predicted vs published: runs topoplan's CLI on every point of the accuracy files and reports
the error of each, the summary per group, and (with --markdown) docs/accuracy.md's tables.

A point file (tests/accuracy/*.json) is a JSON array of objects with:
  id, group, role ("fitted": a constant or mechanism was developed against it; "check": used
  only to check), args (topoplan arguments with --json), pointer (RFC 6901 JSON pointer to the
  predicted value in the CLI's JSON), scale (multiplies the value: unit changes, per-node
  figures), published, unit, metric, conditions, source, tolerance (|error| allowed by the
  point's test), and, for a point outside the issue's target, known_error (the error it is
  known to have today; its test then checks the error stays within tolerance of that value, so
  a change is noticed, and the table lists it as a miss).
Error is on speed, so that + means optimistic in every row and a group's signed median is its
bias: predicted / published - 1 for rates (TFLOP/s, tokens/s, GB/s), published / predicted - 1
for times (units s, ms, us: a step time or a latency).

Usage:
  accuracy.py --topoplan BIN FILE...                 # table on stdout
  accuracy.py --topoplan BIN FILE... --markdown OUT  # also write the markdown page
  accuracy.py --topoplan BIN FILE... --point ID      # one point; exit 1 outside its tolerance
"""
import argparse
import json
import statistics
import subprocess
import sys

TARGET_MEDIAN, TARGET_WORST, TARGET_BIAS = 0.12, 0.35, 0.10


def resolve(doc, pointer):
    if pointer == "":
        return doc
    for token in pointer.lstrip("/").split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def predict(binary, point):
    run = subprocess.run([binary] + point["args"], capture_output=True, text=True)
    if run.returncode not in (0, 3):
        raise RuntimeError(f"{point['id']}: exit {run.returncode}: {run.stderr.strip()[:400]}")
    doc = json.loads(run.stdout)
    value = 0.0
    for pointer, coefficient in point.get("terms", [[point["pointer"], 1.0]]):
        v = resolve(doc, pointer)
        if not isinstance(v, (int, float)):
            raise RuntimeError(f"{point['id']}: {pointer} is {v!r}, not a number")
        value += coefficient * v
    return value * point.get("scale", 1.0)


TIME_UNITS = {"s", "ms", "us"}


def speed_error(p):
    if p["unit"] in TIME_UNITS:
        return p["published"] / p["predicted"] - 1
    return p["predicted"] / p["published"] - 1


def load(files):
    points = []
    for f in files:
        with open(f) as fh:
            for p in json.load(fh):
                p["file"] = f
                points.append(p)
    ids = [p["id"] for p in points]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SystemExit(f"duplicate point ids: {sorted(dup)}")
    return points


def verdict(p):
    """'ok' within the issue's target; 'miss' beyond it (known_error says so)."""
    return "miss" if "known_error" in p else "ok"


def check(p):
    """The point's test: within tolerance of 0, or of its known error for a recorded miss."""
    centre = p.get("known_error", 0.0)
    return abs(p["error"] - centre) <= p["tolerance"]


def summary(points):
    rows = []
    for group in sorted({p["group"] for p in points}):
        errs = [p["error"] for p in points if p["group"] == group]
        rows.append((group, len(errs), statistics.median(errs),
                     statistics.median([abs(e) for e in errs]), max(errs, key=abs)))
    return rows


def fmt_num(v):
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def markdown_table(points):
    lines = ["| id | group | metric | published | predicted | error | test | source |",
             "|---|---|---|---|---|---|---|---|"]
    for p in points:
        test = (f"±{p['tolerance']:.0%} of {p['known_error']:+.0%} (miss)" if "known_error" in p
                else f"±{p['tolerance']:.0%}")
        lines.append(f"| {p['id']} | {p['group']} | {p['metric']} ({p['unit']}) | "
                     f"{fmt_num(p['published'])} | {fmt_num(p['predicted'])} | "
                     f"{p['error']:+.1%} | {test} | {p['source']} |")
    return "\n".join(lines)


def markdown_summary(points):
    errs = [p["error"] for p in points]
    lines = [f"{len(points)} points: median |error| {statistics.median([abs(e) for e in errs]):.1%}"
             f" (target ≤ {TARGET_MEDIAN:.0%}), worst {max(errs, key=abs):+.1%} (target ≤ "
             f"{TARGET_WORST:.0%}), {sum(abs(e) <= TARGET_WORST for e in errs)} within "
             f"{TARGET_WORST:.0%}.", "",
             "| group | points | signed median | median abs | worst |", "|---|---|---|---|---|"]
    for g, n, med, mabs, worst in summary(points):
        flag = "" if abs(med) <= TARGET_BIAS else " (beyond ±10%)"
        lines.append(f"| {g} | {n} | {med:+.1%}{flag} | {mabs:.1%} | {worst:+.1%} |")
    return "\n".join(lines)


def commands(points):
    def value(p):
        if "terms" in p:
            return " + ".join(f"{c} × `{ptr}`" for ptr, c in p["terms"])
        return f"`{p['pointer']}`"
    return "\n".join(f"- `{p['id']}`: `topoplan {' '.join(p['args'])}` → {value(p)}"
                     + (f" × {p['scale']}" if p.get("scale", 1.0) != 1.0 else "")
                     for p in points)


def write_markdown(path, head_path, points):
    fitted = [p for p in points if p["role"] == "fitted"]
    held = [p for p in points if p["role"] == "check"]
    with open(head_path) as fh:
        head = fh.read().rstrip() + "\n"
    with open(path, "w") as out:
        out.write(head)
        out.write("\n## Check points (used only to check; no constant was fitted to them)\n\n")
        out.write(markdown_summary(held) + "\n\n" + markdown_table(held) + "\n")
        out.write("\n## Points the model was developed against (fitted)\n\n")
        out.write(markdown_summary(fitted) + "\n\n" + markdown_table(fitted) + "\n")
        out.write("\n## Commands\n\nEach value is the CLI's JSON at the pointer (times the "
                  "scale where one is given).\n\n" + commands(points) + "\n")


def record(points, files):
    keep = ("id", "group", "role", "gpu", "gpus", "args", "pointer", "terms", "scale",
            "published", "unit", "metric", "conditions", "source", "tolerance", "known_error")
    for f in files:
        mine = [p for p in points if p["file"] == f]
        for p in mine:
            p.pop("known_error", None)
            p["tolerance"] = TARGET_WORST
            if abs(p["error"]) > TARGET_WORST:
                p["known_error"] = round(p["error"], 3)
                p["tolerance"] = 0.05
        with open(f, "w") as fh:
            json.dump([{k: p[k] for k in keep if k in p} for p in mine], fh, indent=1,
                      ensure_ascii=False)
            fh.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topoplan", required=True)
    ap.add_argument("--point")
    ap.add_argument("--markdown")
    ap.add_argument("--head", help="hand-written top of the markdown page")
    ap.add_argument("--record", action="store_true",
                    help="rewrite the files: known_error for points beyond the target worst "
                         "error (their tests then guard the miss within 5 points), none for the "
                         "others (tolerance: the target)")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    points = load(a.files)
    if a.point:
        points = [p for p in points if p["id"] == a.point]
        if not points:
            raise SystemExit(f"no point {a.point}")
    failed = []
    for p in points:
        p["predicted"] = predict(a.topoplan, p)
        p["error"] = speed_error(p)
        ok = check(p)
        if not ok:
            failed.append(p["id"])
        print(f"{p['role']:6} {p['group']:20} {p['id']:44} published {fmt_num(p['published']):>9}"
              f" predicted {fmt_num(p['predicted']):>9} {p['error']:+7.1%} {verdict(p):4}"
              f"{'' if ok else '  OUTSIDE TEST TOLERANCE'}")
    if not a.point:
        for role in ("check", "fitted"):
            sel = [p for p in points if p["role"] == role]
            if sel:
                print(f"\n{role}:\n" + markdown_summary(sel))
    if a.record:
        record(points, a.files)
        failed = []
    if a.markdown:
        write_markdown(a.markdown, a.head, points)
    if failed:
        print("outside tolerance: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
