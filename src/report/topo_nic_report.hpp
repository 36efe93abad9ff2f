// `topoplan topo paths`, nvidia-smi topo -m view: GPU x GPU with NVLink counts (NV18) and
// GPU x NIC connection classes (PIX/PXB/NODE/SYS).
#pragma once

#include <ostream>
#include <vector>

#include "topoplan/route.hpp"

namespace topoplan::report {

// nvidia-smi's name for NCCL's class of a GPU↔device path: NV<count> for NVLink (`nvlinks` =
// links of the pair), PIX, PXB, NODE for NCCL's PHB (through the CPU's host bridges within one
// socket), SYS across sockets, NET across the network.
std::string smi_class(PathClass c, int nvlinks);
// NVLinks between GPUs a and b: a direct link's count, else a's links to its NVSwitch; 0 if none.
int nvlink_count(const Topology& t, int a, int b);

void print_smi_matrix(std::ostream& os, const Router& router, const std::vector<int>& gpus);

}  // namespace topoplan::report
