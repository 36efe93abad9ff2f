#!/usr/bin/env bash
# nccl-tests style sweep (all_reduce_perf -b 8 -e 8G -f 2) predicted for one HGX H100 server and
# for the first GPU of each of 4 servers (one rail), in nccl-tests columns.
set -euo pipefail
topoplan=${TOPOPLAN:-topoplan}
"$topoplan" collective all-reduce --topology hgx-h100-8 --sweep 8:8G:2
"$topoplan" collective all-reduce --topology hgx-h100-8 --nodes 4 --ranks 'n[0-3]/gpu0' \
  --sweep 1M:1G:4
