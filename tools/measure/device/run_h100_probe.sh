#!/bin/bash
# Device call for the held-out check of the H100-SXM curves (docs/compute-model.md, "H100-SXM
# measured on its own"): build the C++ topoplan-probe on the lent nvidia-h100-x1 and run it
# (facts, copies, cuBLASLt GEMMs incl. TP-sharded, grouped and block-scaled fp8 shapes the fit
# never saw). Run from the repository root as `bash tools/measure/device/run_h100_probe.sh`;
# results land in $OUT.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
{ nvidia-smi; nvcc --version | tail -2; cmake --version | head -1; } > $OUT/env.log 2>&1
cmake -S tools/probe -B /tmp/build-probe -DCMAKE_BUILD_TYPE=Release > $OUT/build.log 2>&1 &&
  cmake --build /tmp/build-probe -j 16 >> $OUT/build.log 2>&1 || { tail -40 $OUT/build.log; exit 1; }
mkdir -p /tmp/plog
timeout 300 /tmp/build-probe/topoplan-probe --out $OUT/probe-h100.json --log-dir /tmp/plog > $OUT/probe.log 2>&1
echo "probe rc=$?"; tail -5 $OUT/probe.log; grep -c FAILED $OUT/probe.log; grep FAILED $OUT/probe.log | head -5
