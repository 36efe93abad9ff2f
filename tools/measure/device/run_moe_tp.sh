#!/bin/bash
# Device call for the TP-sharded fused-MoE measurement (docs/compute-model.md, "TP-sliced
# experts"): run from the repository root on the device machine; results land in $OUT.
export PYTHONUNBUFFERED=1
nvidia-smi > $OUT/env.log 2>&1
python3 -c 'import torch, triton; print(torch.__version__, torch.version.cuda, triton.__version__)' >> $OUT/env.log 2>&1
timeout 500 python3 tools/measure/probe_moe_tp.py --out $OUT/moe-tp-h200.json --budget-s 300 > $OUT/moe.log 2>&1
echo "rc=$?"; head -3 $OUT/moe.log; grep -v '^sweep' $OUT/moe.log | tail -90
