#!/bin/sh
# plan --html and compare --html: one self-contained page each (no scripts, no external
# resources), loaded in headless Chromium; the screenshot must exist and not be blank.
# Usage: html_report.sh TOPOPLAN CHROMIUM PNG_COLOURS_PY
set -eu
bin=$1 chromium=$2 colours=$3
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$bin" plan --model deepseek-r1 --topology hgx-h800-8 --nodes 2 --tpot-max 70 \
  --html "$out/plan.html" >/dev/null
"$bin" compare --model deepseek-r1 --topology hgx-h20-8:price=1.2 --topology hgx-h200-8:price=3.5 \
  --topology hgx-h800-8:nodes=2:price=2.1 --html "$out/compare.html" >/dev/null
for page in plan compare; do
  f="$out/$page.html"
  if grep -qi '<script\|<link\|src="http\|@import\|url(http' "$f"; then
    echo "$f refers to something outside the page" >&2
    exit 1
  fi
  grep -q '<svg' "$f"
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$out/profile" \
    --screenshot="$out/$page.png" --window-size=1400,2000 "file://$f" >/dev/null 2>&1
  test -s "$out/$page.png"
  python3 "$colours" "$out/$page.png" 10
done
