#!/bin/bash
# Device call for the training measurement (docs/training.md, "H200 measurement"): copy this and
# probe_train_layer.py into one folder, run it there; results land in $OUT.
cd "$(dirname "$0")"
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/env.log 2>&1
python3 -c 'import torch;print(torch.__version__, torch.version.cuda)' >> $OUT/env.log 2>&1
timeout 400 python3 probe_train_layer.py --out $OUT/train-layer-h200.json > $OUT/train.log 2>&1
echo "rc=$?"; tail -5 $OUT/train.log
