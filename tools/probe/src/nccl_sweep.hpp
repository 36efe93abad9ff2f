// NCCL collective sweeps over all GPUs and subsets, written as nccl-tests text logs.
#pragma once

#include "common.hpp"

namespace probe {

struct NcclOptions {
  double min_bytes = 8, max_bytes = 4 * kGiB;
  int min_ranks = 2;    // 1 only to exercise the code on a one-GPU machine (not a measurement)
  std::string log_dir;  // where <op>_perf_<g>gpu.log files go ("" : not written)
};

// Runs all_reduce, all_gather, reduce_scatter, alltoall, broadcast and sendrecv for every subset
// of 2, 4, 8 and all GPUs (first g GPUs), sizes min..max doubling. Returns {"nccl_version",
// "runs": [{op, ranks, file, rows, check}]} and the logs' text in "runs[i].log"; with fewer than
// min_ranks GPUs {"skipped": reason}. Built without NCCL: {"skipped": "built without NCCL"}.
Json probe_nccl(int ndev, const NcclOptions& o, std::string& nccl_version);

}  // namespace probe
