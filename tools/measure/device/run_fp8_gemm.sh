#!/bin/bash
# Device call for the FP8 training GEMMs (docs/training.md, "FP8 training GEMMs"): run from the
# repository root; results land in $OUT.
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/env.log 2>&1
python3 -c 'import torch;print(torch.__version__, torch.version.cuda)' >> $OUT/env.log 2>&1
timeout 300 python3 tools/measure/probe_fp8_train_gemm.py --out $OUT/fp8-train-gemm.json > $OUT/fp8.log 2>&1
echo "rc=$?"; cat $OUT/fp8.log | tail -20
