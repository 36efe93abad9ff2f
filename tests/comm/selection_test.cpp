// NCCL's enable rules and automatic (algorithm, protocol) choice.
#include <doctest/doctest.h>

#include <limits>
#include <utility>

#include "comm_test_util.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using namespace topoplan::test;

TEST_CASE("NVLS needs an NVSwitch and sm90+, NVLSTree is off on one node, --no-nvls") {
  const Topology h = load_topology("hgx-h100-8");
  Router rh(h);
  CollectiveModel mh(rh);
  CHECK(mh.cost(CollOp::AllReduce, h.gpus(), 4 * kGiB).algorithm == Algorithm::Nvls);
  CHECK_THROWS_AS(mh.cost(CollOp::AllReduce, h.gpus(), kGiB, force(Algorithm::NvlsTree)),
                  InputError);
  CollectiveOptions no_nvls;
  no_nvls.allow_nvls = false;
  CHECK(mh.cost(CollOp::AllReduce, h.gpus(), 4 * kGiB, no_nvls).algorithm == Algorithm::Ring);
  // A100 (sm80) has an NVSwitch but no NVLS.
  const Topology a = load_topology("dgx-a100-8");
  Router ra(a);
  CollectiveModel ma(ra);
  CHECK_THROWS_WITH_AS(ma.cost(CollOp::AllReduce, a.gpus(), kGiB, force(Algorithm::Nvls)),
                       doctest::Contains("sm90"), InputError);
}

TEST_CASE("multi-node: NVLSTree on Hopper, NVLS only with SHARP, CollNet only with SHARP") {
  const Topology t = cluster("hgx-h100-8", 2);
  Router r(t);
  CollectiveModel m(r);
  CHECK(m.cost(CollOp::AllReduce, t.gpus(), 4 * kGiB).algorithm == Algorithm::NvlsTree);
  CHECK_THROWS_AS(m.cost(CollOp::AllReduce, t.gpus(), kGiB, force(Algorithm::Nvls)), InputError);
  CHECK_THROWS_WITH_AS(m.cost(CollOp::AllReduce, t.gpus(), kGiB, force(Algorithm::CollNet)),
                       doctest::Contains("SHARP"), InputError);
  CollectiveOptions sharp = force(Algorithm::CollNet);
  sharp.fabric_has_sharp = true;
  const CollectiveCost c = m.cost(CollOp::AllReduce, t.gpus(), kGiB, sharp);
  CHECK(c.algorithm == Algorithm::CollNet);
  CHECK(c.protocol == Protocol::Simple);
}

TEST_CASE(
    "protocol choice follows size: LL small, Simple large, LL128 only where NCCL enables it") {
  const Topology t = load_topology("hgx-h100-8");
  Router r(t);
  CollectiveModel m(r);
  CollectiveOptions ring = force(Algorithm::Ring);
  CHECK(m.cost(CollOp::AllReduce, t.gpus(), 1024, ring).protocol == Protocol::LL);
  CHECK(m.cost(CollOp::AllReduce, t.gpus(), 4 * kGiB, ring).protocol == Protocol::Simple);
  // LL128 is enabled on NVLink (typeIntra NVL ≤ NVB) and beats both somewhere in between.
  bool saw_ll128 = false;
  for (double s = 1024; s < 4 * kGiB; s *= 2)
    saw_ll128 |= m.cost(CollOp::AllReduce, t.gpus(), s, ring).protocol == Protocol::LL128;
  CHECK(saw_ll128);
  // LL bandwidth is half of Simple's (and capped by llMaxBw 141 GB/s bus on one Hopper node).
  const auto ll =
      m.cost(CollOp::AllReduce, t.gpus(), 4 * kGiB, force(Algorithm::Ring, Protocol::LL));
  CHECK(ll.busbw_GBps == doctest::Approx(141).epsilon(0.01));
}

TEST_CASE("broadcast and reduce use a pipelined chain, forced mismatches are input errors") {
  const Topology t = load_topology("hgx-h100-8");
  Router r(t);
  CollectiveModel m(r);
  // Chain: every hop carries the whole buffer once → busbw (factor 1) ≈ link rate 379.8.
  CHECK(m.cost(CollOp::Broadcast, t.gpus(), 8 * kGiB).busbw_GBps ==
        doctest::Approx(379.8).epsilon(0.01));
  CHECK(m.cost(CollOp::Reduce, t.gpus(), 8 * kGiB).busbw_GBps ==
        doctest::Approx(379.8).epsilon(0.01));
  CHECK_THROWS_AS(m.cost(CollOp::Broadcast, t.gpus(), kGiB, force(Algorithm::Tree)), InputError);
  CHECK_THROWS_AS(m.cost(CollOp::AllToAll, t.gpus(), kGiB, force(Algorithm::Ring)), InputError);
  CHECK_THROWS_AS(m.cost(CollOp::AllReduce, {}, kGiB), InputError);
  CHECK_THROWS_AS(m.cost(CollOp::AllReduce, {t.gpus()[0], t.gpus()[0]}, kGiB), InputError);
  CollectiveOptions bad_root;
  bad_root.root = 8;
  CHECK_THROWS_AS(m.cost(CollOp::Broadcast, t.gpus(), kGiB, bad_root), InputError);
  // One rank moves nothing.
  CHECK(m.cost(CollOp::AllReduce, {t.gpus()[0]}, kGiB).time_us == 0);
}

TEST_CASE("every operation runs on every built-in topology") {
  for (const std::string& name : builtin_topology_names()) {
    CAPTURE(name);
    const Topology t = load_topology(name);
    Router r(t);
    CollectiveModel m(r);
    for (CollOp op : {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter,
                      CollOp::Broadcast, CollOp::Reduce, CollOp::AllToAll}) {
      const CollectiveCost c = m.cost(op, t.gpus(), 64 * kMiB);
      CHECK(c.time_us > 0);
      CHECK(c.busbw_GBps > 0);
    }
    CHECK(m.send_recv(t.gpus().front(), t.gpus().back(), 64 * kMiB).time_us > 0);
  }
}

TEST_CASE("NVLS and NVLSTree need two or more GPUs of the group per server") {
  const Topology t = cluster("hgx-h100-8", 4);
  Router r(t);
  CollectiveModel m(r);
  std::vector<int> rail;  // GPU 0 of every server: a DP group under TP=8
  for (int n = 0; n < 4; ++n) rail.push_back(t.gpus_of_node(n).front());
  CHECK_THROWS_AS(m.cost(CollOp::AllReduce, rail, kGiB, force(Algorithm::NvlsTree)), InputError);
  const CollectiveCost c = m.cost(CollOp::AllReduce, rail, kGiB);
  CHECK((c.algorithm == Algorithm::Ring || c.algorithm == Algorithm::Tree));
  // One NDR400 NIC per rank: ring busbw ≈ 48 at large sizes.
  CHECK(m.cost(CollOp::AllReduce, rail, 8 * kGiB, force(Algorithm::Ring)).busbw_GBps ==
        doctest::Approx(48).epsilon(0.02));
}

// choose() prices candidates in order of their latency floor and skips those whose floor already
// loses; this must give the choice that pricing every candidate gives: the least time, the first
// in NCCL's order (ring, tree, NVLS, NVLSTree, CollNet; LL, LL128, Simple) among equals. Small
// sizes (latency-bound) and large ones, one server to 64, a PCIe server and an AMD one too;
// with one thread and with two (CollectiveOptions::threads).
TEST_CASE("the automatic choice is the fastest forced candidate at every size and scale") {
  const Algorithm algos[] = {Algorithm::Ring, Algorithm::Tree, Algorithm::Nvls, Algorithm::NvlsTree,
                             Algorithm::CollNet};
  const Protocol protos[] = {Protocol::LL, Protocol::LL128, Protocol::Simple};
  const std::pair<const char*, int> shapes[] = {{"hgx-h100-8", 1},  {"hgx-h100-8", 2},
                                                {"hgx-h100-8", 64}, {"dgx-a100-8", 16},
                                                {"pcie-l40s-8", 4}, {"amd-mi300x-8", 8}};
  for (const auto& shape : shapes) {
    const std::string server = shape.first;
    const int nodes = shape.second;
    const Topology t = cluster(server, nodes);
    Router r(t);
    CollectiveModel m(r);
    for (CollOp op :
         {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter, CollOp::Broadcast})
      for (double size : {8.0, 64.0 * 1024, 4.0 * 1024 * 1024, 1.0 * kGiB}) {
        CAPTURE(server);
        CAPTURE(nodes);
        CAPTURE(size);
        double best = std::numeric_limits<double>::infinity();
        std::pair<Algorithm, Protocol> pick{Algorithm::Auto, Protocol::Auto};
        for (Algorithm a : algos)
          for (Protocol p : protos) {
            CollectiveOptions o = force(a);
            o.protocol = p;
            try {
              const CollectiveCost c = m.cost(op, t.gpus(), size, o);
              if (c.time_us < best) best = c.time_us, pick = {a, p};
            } catch (const InputError&) {
              // not available for this op or group
            }
          }
        const CollectiveCost chosen = m.cost(op, t.gpus(), size);
        CHECK(chosen.algorithm == pick.first);
        CHECK(chosen.protocol == pick.second);
        CHECK(chosen.time_us == best);
        // A fresh model (nothing priced yet, so the floors decide what is priced), on one
        // thread and on two (two algorithms priced at once), chooses the same, to the bit and
        // the bottleneck link.
        for (const int threads : {1, 2}) {
          CAPTURE(threads);
          CollectiveModel fresh(r);
          CollectiveOptions o;
          o.threads = threads;
          const CollectiveCost again = fresh.cost(op, t.gpus(), size, o);
          CHECK(again.algorithm == chosen.algorithm);
          CHECK(again.protocol == chosen.protocol);
          CHECK(again.time_us == chosen.time_us);
          CHECK(again.bottleneck.dirlink == chosen.bottleneck.dirlink);
        }
      }
  }
}
