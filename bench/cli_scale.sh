#!/usr/bin/env bash
# Whole-process cost of the commands issue 32 measures, at each cluster size given (default:
# 2,048 and 12,500 servers of hgx-h100-8): wall seconds, peak memory (maximum resident set, in
# MiB and in MB = 10^6 bytes, the unit of issue 32's targets: GNU time reports KiB; earlier
# tables in bench/README.md labelled the MiB figure MB) and bytes written, one row per command
# and size (the collective also on one thread), each the median of REPEATS runs (default 3).
# Usage: bench/cli_scale.sh [nodes...]   (TOPOPLAN=path/to/topoplan, REPEATS=n)
# Needs GNU time (/usr/bin/time, Debian package `time`) for the peak memory.
set -euo pipefail
bin=${TOPOPLAN:-build/ci/src/cli/topoplan}
repeats=${REPEATS:-3}
[ $# -gt 0 ] || set -- 2048 12500
command -v /usr/bin/time >/dev/null || { echo "bench/cli_scale.sh: needs /usr/bin/time" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| command | nodes | wall s | peak MiB | peak MB | output MB |\n|---|---|---|---|---|---|\n'
for nodes in "$@"; do
  for cmd in "plan --model deepseek-r1 --topology hgx-h100-8 --nodes $nodes --json --quiet" \
             "collective all-reduce --topology hgx-h100-8 --nodes $nodes --size 1GiB" \
             "collective all-reduce --topology hgx-h100-8 --nodes $nodes --size 1GiB --threads 1" \
             "topo show hgx-h100-8 --nodes $nodes --json"; do
    rows=()
    for _ in $(seq "$repeats"); do
      # shellcheck disable=SC2086
      /usr/bin/time -f '%e %M' -o "$tmp/time" "$bin" $cmd > "$tmp/out"
      rows+=("$(cat "$tmp/time") $(stat -c %s "$tmp/out")")
    done
    median=$(printf '%s\n' "${rows[@]}" | sort -n | sed -n "$(( (repeats + 1) / 2 ))p")
    read -r wall kb bytes <<< "$median"
    label="${cmd%% --*}"
    [[ $cmd != *"--threads 1"* ]] || label+=" --threads 1"
    awk -v c="$label" -v n="$nodes" -v w="$wall" -v k="$kb" -v b="$bytes" \
      'BEGIN { printf "| `%s` | %s | %s | %.0f | %.0f | %.1f |\n", c, n, w, k / 1024, k * 1.024e-3, b / 1e6 }' 
  done
done
