#!/bin/bash
# Device call for the training memory reserve (docs/training.md, "Memory"): run from the
# repository root; one process per configuration; results land in $OUT.
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > $OUT/env.log 2>&1
python3 -c 'import torch;print(torch.__version__, torch.version.cuda)' >> $OUT/env.log 2>&1
for cfg in "8b 4096 8" "8b 8192 8" "8b 16384 8" "70b-tp8 8192 16" "70b-tp8 16384 16"; do
  set -- $cfg
  timeout 240 python3 tools/measure/probe_train_memory.py --shape $1 --tokens $2 --layers $3 \
    --out $OUT/mem-$1-$2-$3.json >> $OUT/mem.log 2>&1
  echo "$cfg rc=$?" >> $OUT/mem.log
done
python3 - <<'PY' > $OUT/train-memory.json
import glob, json, os
rows = [json.load(open(f)) for f in sorted(glob.glob(os.environ["OUT"] + "/mem-*.json"))]
print(json.dumps({"points": rows}, indent=1))
PY
cat $OUT/mem.log
