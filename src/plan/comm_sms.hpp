// SMs that EP communication kernels hold while they overlap compute, shared by training's
// DualPipe (train_step.cpp) and serving's two-batch overlap (step_time.cpp).
#pragma once

namespace topoplan {

// DeepSeek-V3 §3.2.2 gives 20 of the H800's 132 SMs to communication; DeepEP's Buffer.num_sms
// defaults to the same 20 for its normal (high-throughput) kernels. kH800Sms stands in for a
// GPU whose catalog entry has no SM count.
inline constexpr double kDualPipeCommSms = 20, kH800Sms = 132;

}  // namespace topoplan
