// Names, nccl-tests busbw factors, the ring closed form and MoE traffic matrices.
#include <doctest/doctest.h>

#include "comm_test_util.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;

TEST_CASE("operation, algorithm and protocol names round-trip and accept NCCL spellings") {
  for (CollOp op : {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter, CollOp::Broadcast,
                    CollOp::Reduce, CollOp::AllToAll, CollOp::SendRecv})
    CHECK(parse_coll_op(to_string(op)) == op);
  CHECK(parse_coll_op("allreduce") == CollOp::AllReduce);
  CHECK(parse_coll_op("all_gather") == CollOp::AllGather);
  CHECK(parse_coll_op("alltoall") == CollOp::AllToAll);
  // nccl-tests binary names.
  CHECK(parse_coll_op("all_reduce_perf") == CollOp::AllReduce);
  CHECK(parse_coll_op("reduce_scatter_perf") == CollOp::ReduceScatter);
  CHECK(parse_coll_op("alltoall_perf") == CollOp::AllToAll);
  CHECK(parse_coll_op("sendrecv_perf") == CollOp::SendRecv);
  CHECK(parse_coll_op("reduce_perf") == CollOp::Reduce);
  CHECK(parse_coll_op("gather_perf") == CollOp::Gather);  // nccl-tests has it (issue 28)
  CHECK_THROWS_AS(parse_coll_op("gathr_perf"), UnknownNameError);
  CHECK(parse_algorithm("NVLS_TREE") == Algorithm::NvlsTree);
  CHECK(parse_protocol("ll128") == Protocol::LL128);
  CHECK_THROWS_AS(parse_coll_op("allreduse"), UnknownNameError);
  CHECK_THROWS_WITH_AS(parse_algorithm("rign"), doctest::Contains("ring"), UnknownNameError);
}

TEST_CASE("busbw factors are nccl-tests' (PERFORMANCE.md)") {
  CHECK(busbw_factor(CollOp::AllReduce, 8) == doctest::Approx(14.0 / 8));
  CHECK(busbw_factor(CollOp::AllGather, 8) == doctest::Approx(7.0 / 8));
  CHECK(busbw_factor(CollOp::ReduceScatter, 4) == doctest::Approx(0.75));
  CHECK(busbw_factor(CollOp::AllToAll, 16) == doctest::Approx(15.0 / 16));
  CHECK(busbw_factor(CollOp::Broadcast, 8) == 1.0);
  CHECK(busbw_factor(CollOp::Reduce, 8) == 1.0);
  CHECK(busbw_factor(CollOp::SendRecv, 2) == 1.0);
  // Identity: all-reduce = reduce-scatter + all-gather.
  for (int n = 2; n <= 64; n *= 2)
    CHECK(busbw_factor(CollOp::AllReduce, n) ==
          doctest::Approx(busbw_factor(CollOp::ReduceScatter, n) +
                          busbw_factor(CollOp::AllGather, n)));
}

TEST_CASE("ring closed form: 2(n-1)/n·S/B + 2(n-1)·alpha") {
  // n = 4, S = 400e6 B, B = 100 GB/s, alpha = 1 us: 6 steps × (100e6 B / 100 GB/s = 1000 us)
  // + 6 us = 6006 us.
  CHECK(ring_closed_form_us(CollOp::AllReduce, 4, 400e6, 100, 1) == doctest::Approx(6006));
  // all-gather: 3 steps → 3003 us.
  CHECK(ring_closed_form_us(CollOp::AllGather, 4, 400e6, 100, 1) == doctest::Approx(3003));
  CHECK(ring_closed_form_us(CollOp::AllReduce, 1, 400e6, 100, 1) == 0);
}

TEST_CASE("MoE dispatch matrix: tokens × k × share × bytes, nothing to self") {
  // 4 ranks, 1000 tokens of 7168 B, top-8, uniform: i→j = 1000·8·(1/4)·7168 = 14,336,000 B.
  const TrafficMatrix m = moe_dispatch_matrix(4, 1000, 7168, 8);
  CHECK(m[0][1] == doctest::Approx(14336000));
  CHECK(m[2][2] == 0);
  // Skewed: rank 3 receives 70% of routed tokens → 1000·8·0.7·7168 from each other rank.
  const TrafficMatrix s = moe_dispatch_matrix(4, 1000, 7168, 8, {0.1, 0.1, 0.1, 0.7});
  CHECK(s[0][3] == doctest::Approx(1000 * 8 * 0.7 * 7168));
  CHECK_THROWS_AS(moe_dispatch_matrix(4, 1000, 7168, 8, {1, 1}), InputError);
}
