// nccl-tests' point-to-point tests (sendrecv_perf, gather_perf, scatter_perf, hypercube_perf) as
// rounds of concurrent transfers between pairs of ranks. Each round is a prepared set of two-rank
// send/recv groups, so the engine loads every link with all of the round's transfers (of every
// concurrent group) at once; the rounds of one test run one after the other.
#pragma once

#include <utility>
#include <vector>

#include "topoplan/collective.hpp"

namespace topoplan::comm {

// Gather, scatter, hypercube, and send-recv with the Ring pattern.
bool is_pair_rounds(CollOp op, const CollectiveOptions& options);

// One round of `op` on one group: its transfers (source, destination device) and the bytes of
// each per byte of the collective's size.
struct RoundPairs {
  std::vector<std::pair<int, int>> pairs;
  double share = 1;
};

// send-recv ring: one round, rank i → i+1 mod n, share 1 (sendrecv.cu); gather: one round, every
// other rank → the root, 1/n (the root receives size·(n−1)/n); scatter: the root → every other
// rank, 1/n; hypercube: round k = 0..log2(n)−1 exchanges 2^k shares with rank i XOR 2^k, share
// 2^k/n (hypercube.cu). A group of fewer than two ranks has no rounds. Throws InputError for a
// hypercube whose n is not a power of two, a root outside the group or a rank listed twice.
std::vector<RoundPairs> rounds_of(CollOp op, const std::vector<int>& group, int root);

struct PairRound {
  // Concurrent groups: one set holding every group's transfers of this round; independent
  // groups: one set per group.
  std::vector<PreparedCollective> sets;
  std::vector<std::vector<int>> group_of;  // per set, per transfer: its group
  double share = 1;
};
struct PairRounds {
  std::vector<PairRound> rounds;
  std::vector<int> ranks;  // per group
};

// Throws InputError as rounds_of, and when concurrent groups of a test whose shares depend on n
// (gather, scatter, hypercube) differ in size, or when an algorithm other than direct is forced.
PairRounds prepare_rounds(const CollectiveModel& model, CollOp op,
                          const std::vector<std::vector<int>>& groups,
                          const CollectiveOptions& options, bool independent);

// One cost per group: the sum over rounds of its slowest transfer (time and latency); protocol,
// channels and bottleneck of its longest round; algbw and busbw in nccl-tests' units.
std::vector<CollectiveCost> price_rounds(const PairRounds& rounds, CollOp op, double size_bytes);

}  // namespace topoplan::comm
