#!/bin/bash
# Device call for the H100 measurement (issue 26: H100 evidence instead of H200 curves scaled by
# datasheet peaks): the compute probe, the training layers, Llama-3-8B decode steps and prefill
# attention, on the lent nvidia-h100-x1 machine. Run from the repository root on the device as
# `bash tools/measure/device/run_h100.sh`; results land in $OUT.
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv > $OUT/env.log 2>&1
python3 -c 'import torch, triton; print(torch.__version__, torch.version.cuda, triton.__version__)' >> $OUT/env.log 2>&1
cat $OUT/env.log
run() {  # name timeout script args...
  local name=$1 limit=$2; shift 2
  local t0=$SECONDS
  timeout "$limit" python3 "$@" > "$OUT/$name.log" 2>&1
  echo "$name rc=$? $((SECONDS - t0)) s"; tail -3 "$OUT/$name.log"
}
run compute 150 tools/measure/probe_compute.py --out $OUT/h100-sxm-raw.json
run train 150 tools/measure/probe_train_layer.py --out $OUT/train-layer-h100.json
run decode 150 tools/measure/probe_dense_prefill.py --out $OUT/dense-decode-llama3-8b-h100.json --model llama-3-8b --decode 1x1024,8x1024,32x2048,64x4096
run attn 120 tools/measure/probe_attn_prefill.py --out $OUT/attn-prefill-h100.json
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv >> $OUT/env.log 2>&1
