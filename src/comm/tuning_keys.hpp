// The JSON keys of the tuning file's tables (topologies/tuning/nccl.json), in NcclTuning's index
// order; shared by the reader (tuning.cpp) and the calibration writer (calibration_file.cpp).
#pragma once

namespace topoplan::comm {
inline constexpr const char* kAlgoKeys[6] = {"tree",          "ring", "collnet_direct",
                                             "collnet_chain", "nvls", "nvls_tree"};
inline constexpr const char* kHwKeys[3] = {"nvlink", "pci", "net"};
}  // namespace topoplan::comm
