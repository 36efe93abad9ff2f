#!/bin/sh
# Compares three cluster designs for serving DeepSeek-R1 end to end and writes an HTML report:
#   A: 2 x hgx-h20-8   (16 H20, rail-optimized NDR400)    at $1.20 per GPU-hour
#   B: 1 x hgx-h200-8  (8 H200)                           at $3.50 per GPU-hour
#   C: 2 x hgx-h800-8  (16 H800, fat-tree NDR400)         at $2.10 per GPU-hour
# The prices are this example's assumptions, not quotes; pass your own with price=.
# Usage: examples/compare-clusters.sh [OUTDIR] (TOPOPLAN=path/to/topoplan to pick the binary)
set -eu
topoplan=${TOPOPLAN:-topoplan}
out=${1:-compare-clusters-out}
mkdir -p "$out"
workload="--model deepseek-r1 --prompt 1024 --output 1024 --tpot-max 70"
set -- --topology hgx-h20-8:nodes=2:price=1.2:name=A-2xH20 \
       --topology hgx-h200-8:price=3.5:name=B-1xH200 \
       --topology hgx-h800-8:nodes=2:fabric=fat-tree:price=2.1:name=C-2xH800

# 1. What each design is: the wiring, drawn.
"$topoplan" topo render hgx-h20-8 --nodes 2 -o "$out/A-2xH20.svg"
"$topoplan" topo render hgx-h200-8 -o "$out/B-1xH200.svg"
"$topoplan" topo render hgx-h800-8 --nodes 2 --fabric fat-tree -o "$out/C-2xH800.svg"

# 2. The same workload on all three: table, JSON, chart and the self-contained HTML report.
# shellcheck disable=SC2086
"$topoplan" compare $workload "$@" | tee "$out/compare.txt"
# shellcheck disable=SC2086
"$topoplan" compare $workload "$@" --json > "$out/compare.json"
# shellcheck disable=SC2086
"$topoplan" compare $workload "$@" --chart "$out/compare.svg" --html "$out/compare.html" >/dev/null

# 3. The winner's plan in full, with its placement drawn and its Pareto front.
winner=$(sed -n 's/^  "overall": "\(.*\)",$/\1/p' "$out/compare.json")
case "$winner" in
  A-2xH20) topo="hgx-h20-8 --nodes 2" ;;
  B-1xH200) topo="hgx-h200-8" ;;
  *) topo="hgx-h800-8 --nodes 2 --fabric fat-tree" ;;
esac
# shellcheck disable=SC2086
"$topoplan" plan $workload --topology $topo --html "$out/winner-plan.html" \
  --render "$out/winner-placement.svg" --chart "$out/winner-pareto.svg" >/dev/null
echo "winner: $winner; report: $out/compare.html, $out/winner-plan.html"
