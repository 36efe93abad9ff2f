#!/bin/bash
# Device call for the compute/communication overlap measurement (train_step.cpp comm_sm_us: does a
# NCCL-like channel kernel running beside training GEMMs cost only the SMs it holds?). Runs
# tools/measure/probe_overlap.py on the lent nvidia-h100-x1 while nvidia-smi logs SM clock and power
# every 200 ms. Run from the repository root on the device as
# `bash tools/measure/device/run_overlap.sh`; results land in $OUT (overlap-h100.json, overlap.log,
# env.log, smi.csv).
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv > $OUT/env.log 2>&1
python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)' >> $OUT/env.log 2>&1
python3 -c 'import cupy; print("cupy", cupy.__version__)' >> $OUT/env.log 2>&1
(nvcc --version | tail -2) >> $OUT/env.log 2>&1
cat $OUT/env.log
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > $OUT/smi.csv 2>&1 &
SMI=$!
t0=$SECONDS
set -o pipefail
timeout ${OVERLAP_TIMEOUT:-480} python3 tools/measure/probe_overlap.py --out $OUT/overlap-h100.json "$@" 2>&1 | tee $OUT/overlap.log
rc=$?
echo "probe rc=$rc $((SECONDS - t0)) s"
kill $SMI 2>/dev/null
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> $OUT/env.log 2>&1
