#!/bin/bash
# Device call 1: build the probe on the H200 image, run it, exercise the NCCL path on 1 rank,
# measure MLA decode. Everything lands in $OUT.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")"
{ nvidia-smi; nvcc --version | tail -2; cmake --version | head -1;
  python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))'; } > $OUT/env.log 2>&1
cmake -S probe -B build -DCMAKE_BUILD_TYPE=Release > $OUT/build.log 2>&1 &&
  cmake --build build -j 16 >> $OUT/build.log 2>&1 || { tail -60 $OUT/build.log; exit 1; }
grep -i nccl $OUT/build.log | head -3
timeout 330 ./build/topoplan-probe --out $OUT/probe-h200.json --log-dir /tmp > $OUT/probe.log 2>&1
echo "probe rc=$?"; tail -5 $OUT/probe.log; grep -c FAILED $OUT/probe.log; grep FAILED $OUT/probe.log | head -5
mkdir -p /tmp/n1
./build/topoplan-probe --out $OUT/nccl-1rank-smoke.json --skip facts,copy,host,p2p,gemm,gemm_fp8_block \
  --nccl-min-ranks 1 --nccl-max-bytes 67108864 --log-dir /tmp/n1 > /tmp/n1/log 2>&1
echo "nccl smoke rc=$?"; tail -3 /tmp/n1/log
timeout 200 python3 probe/probe_mla.py --out $OUT/mla-h200.json --budget-s 150 > $OUT/mla.log 2>&1
echo "mla rc=$?"; tail -4 $OUT/mla.log
