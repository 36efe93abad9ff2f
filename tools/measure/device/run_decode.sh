#!/bin/bash
# Device call for the decode-layer measurement (docs/compute-model.md, "DeepSeek-R1 decode layer
# at batch 1-8 on one H200"): run from the repository root on the device machine as
# `bash tools/measure/device/run_decode.sh [probe options]`; results land in $OUT.
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv > $OUT/env.log 2>&1
python3 -c 'import torch, triton; print(torch.__version__, torch.version.cuda, triton.__version__)' >> $OUT/env.log 2>&1
cat $OUT/env.log
timeout 540 python3 tools/measure/probe_r1_decode.py --out $OUT/r1-decode-h200.json "$@" > $OUT/r1-decode.log 2>&1
echo "rc=$?"; grep -E "^check|failed|ERROR|Traceback" $OUT/r1-decode.log | head -60; sed -n '/^summary/,$p' $OUT/r1-decode.log
grep -v -E "^check" $OUT/r1-decode.log | grep -v -E "^(summary|config|r1 b|llama3|   top)" | tail -25
