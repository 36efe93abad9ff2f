#!/bin/bash
# Device call 2: the fp8 block-scaled section again, with m < 16 padded and block-scaled groups
# run as per-expert launches (cuBLASLt 13.1 rejected both in call 1).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
cd "$(dirname "$0")"
cmake -S probe -B build -DCMAKE_BUILD_TYPE=Release > $OUT/build2.log 2>&1 &&
  cmake --build build -j 16 >> $OUT/build2.log 2>&1 || { tail -60 $OUT/build2.log; exit 1; }
timeout 400 ./build/topoplan-probe --out $OUT/probe-h200-fp8block.json --skip copy,host,p2p,gemm,nccl > $OUT/probe2.log 2>&1
echo "probe rc=$?"; tail -4 $OUT/probe2.log; grep -c FAILED $OUT/probe2.log; grep FAILED $OUT/probe2.log | head -5
