// The fast path (closed forms + cached link-load patterns) equals the general engine.
#include <doctest/doctest.h>

#include "comm_test_util.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using namespace topoplan::test;

namespace {
void check_same(const CollectiveCost& fast, const CollectiveCost& slow) {
  CHECK(fast.time_us == doctest::Approx(slow.time_us).epsilon(1e-12));
  CHECK(fast.algorithm == slow.algorithm);
  CHECK(fast.protocol == slow.protocol);
  CHECK(fast.bottleneck.load_bytes == doctest::Approx(slow.bottleneck.load_bytes).epsilon(1e-12));
  CHECK(fast.bottleneck.achieved_GBps == doctest::Approx(slow.bottleneck.achieved_GBps));
}
}  // namespace

TEST_CASE("fast path == general engine on every built-in server, op, algorithm and GPU count") {
  for (const char* name : {"hgx-h100-8", "hgx-h20-8", "dgx-a100-8", "hgx-b200-8", "gb200-nvl72",
                           "pcie-l40s-8", "pcie-rtx4090-8"}) {
    CAPTURE(name);
    const Topology t = load_topology(name);
    Router r(t);
    CollectiveModel m(r);
    for (int n : {2, 3, 5, 8}) {
      const std::vector<int> g = first(t, n);
      for (CollOp op : {CollOp::AllReduce, CollOp::AllGather, CollOp::ReduceScatter}) {
        for (Algorithm a : {Algorithm::Auto, Algorithm::Ring, Algorithm::Nvls}) {
          CAPTURE(n);
          CAPTURE(to_string(op));
          CAPTURE(to_string(a));
          const CollectiveOptions o = force(a);
          for (double s : {1e3, 3e6, 1e9}) {
            bool ran = true;
            CollectiveCost fast, slow;
            try {
              fast = m.cost(op, g, s, o);
              slow = m.cost_uncached(op, g, s, o);
            } catch (const InputError&) {
              ran = false;  // e.g. NVLS on a PCIe server
            }
            if (ran) check_same(fast, slow);
          }
        }
      }
    }
  }
}

TEST_CASE("cached multi-node patterns give the same answer on repeated and fresh calls") {
  const Topology t = cluster("hgx-h100-8", 4);
  Router r(t);
  CollectiveModel m(r);
  for (double s : {8.0, 1e6, 1e9}) {
    const CollectiveCost a = m.cost(CollOp::AllReduce, t.gpus(), s);
    const CollectiveCost b = m.cost(CollOp::AllReduce, t.gpus(), s);
    check_same(a, b);
    check_same(a, m.cost_uncached(CollOp::AllReduce, t.gpus(), s));
  }
}

TEST_CASE("the closed form is actually taken for a symmetric NVSwitch group") {
  // A uniform 8-GPU NVSwitch server: closed-form ring all-reduce load per GPU link is
  // 2·7/8 = 1.75 × S; the general engine finds the same load on gpu0→nvswitch.
  const Topology t = nvswitch_server(8, "H100-SXM", 450, 0.844);
  Router r(t);
  CollectiveModel m(r);
  const CollectiveCost c = m.cost(CollOp::AllReduce, t.gpus(), 1e9, force(Algorithm::Ring));
  CHECK(c.bottleneck.load_bytes == doctest::Approx(1.75e9));
  CHECK(c.bottleneck.from == "gpu0");
  check_same(c, m.cost_uncached(CollOp::AllReduce, t.gpus(), 1e9, force(Algorithm::Ring)));
}
