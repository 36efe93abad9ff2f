// A GPU with round numbers for hand-derived tests: 1000 GB/s, 100 TFLOPS bf16/fp16, 200 fp8, 80 GB.
#pragma once

#include "topoplan/hardware.hpp"

namespace topoplan::test {

inline GpuSpec round_gpu() {
  GpuSpec g;
  g.name = "ROUND";
  g.hbm_GBps = 1000;
  g.bf16_TFLOPS = 100;
  g.fp16_TFLOPS = 100;
  g.fp8_TFLOPS = 200;
  g.memory_bytes = 80e9;
  return g;
}

}  // namespace topoplan::test
