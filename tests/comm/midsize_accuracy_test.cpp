// Mid-size collectives on one 8-GPU server against measured nccl-tests sweeps (issue 14: "1 MB to
// 128 MB run 10-30% slower than the model says"). Data:
// tests/comm/data/aiconfigurator-nccl-8gpu.csv (ai-dynamo/aiconfigurator's measured tables, source
// and commit in its header).
//
// No mechanism is modelled for this gap (docs/collective-model.md §8c says which of NCCL's rules
// were checked and why none of them produces it), so this test records the gap as it stands and
// fails when the model moves in either direction: a fix must tighten these bounds, a regression
// that makes the model more optimistic trips the upper one.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "comm_test_util.hpp"

using namespace topoplan;
using namespace topoplan::test;

namespace {

struct Point {
  std::string system, op;
  double size_bytes = 0, time_us = 0;
};

std::vector<Point> load_points() {
  std::ifstream in(TOPOPLAN_SOURCE_DIR "/tests/comm/data/aiconfigurator-nccl-8gpu.csv");
  REQUIRE(in.good());
  std::vector<Point> points;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;  // system,op,size_bytes,time_us
      continue;
    }
    std::istringstream s(line);
    Point p;
    std::string size, time;
    std::getline(s, p.system, ',');
    std::getline(s, p.op, ',');
    std::getline(s, size, ',');
    std::getline(s, time, ',');
    p.size_bytes = std::stod(size);
    p.time_us = std::stod(time);
    points.push_back(p);
  }
  return points;
}

CollOp op_of(const std::string& name) {
  if (name == "all_reduce") return CollOp::AllReduce;
  if (name == "all_gather") return CollOp::AllGather;
  REQUIRE(name == "reduce_scatter");
  return CollOp::ReduceScatter;
}

// measured time / model time for every point (> 1: the model is optimistic).
struct Ratio {
  Point p;
  double ratio;
};

std::vector<Ratio> ratios() {
  const Topology h100 = load_topology("hgx-h100-8");
  const Topology a100 = load_topology("dgx-a100-8");
  Router rh(h100), ra(a100);
  CollectiveModel mh(rh), ma(ra);
  std::vector<Ratio> out;
  for (const Point& p : load_points()) {
    const bool is_h100 = p.system == "h100_sxm";
    REQUIRE((is_h100 || p.system == "a100_sxm"));
    CollectiveModel& m = is_h100 ? mh : ma;
    const Topology& t = is_h100 ? h100 : a100;
    const double model_us = m.cost(op_of(p.op), t.gpus(), p.size_bytes).time_us;
    out.push_back({p, p.time_us / model_us});
  }
  return out;
}

}  // namespace

TEST_CASE(
    "mid-size 8-GPU collectives vs aiconfigurator's nccl-tests sweeps: the gap as it stands") {
  const std::vector<Ratio> rs = ratios();
  REQUIRE(rs.size() == 60);  // 2 systems × 3 ops × 10 sizes (1 MiB .. 512 MiB)
  double log_sum = 0;
  int mid = 0;
  for (const Ratio& r : rs) {
    CAPTURE(r.p.system);
    CAPTURE(r.p.op);
    CAPTURE(r.p.size_bytes);
    CAPTURE(r.p.time_us);
    // Measured range (docs/collective-model.md §8c): 0.75 (H100 reduce-scatter 2 MiB, where
    // NCCL is faster than its ring/LL) to 1.46 (H100 NVLS all-reduce 16 MiB).
    CHECK(r.ratio >= 0.70);
    CHECK(r.ratio <= 1.50);
    // From 256 MiB on the gap is the asymptotic bandwidth only: 1.06..1.20.
    if (r.p.size_bytes >= 256 * kMiB) CHECK(std::abs(r.ratio - 1.13) <= 0.08);
    if (r.p.size_bytes <= 128 * kMiB) {
      log_sum += std::log(r.ratio);
      ++mid;
    }
  }
  // The range, 1..128 MiB: the model is optimistic by 12% on geometric mean (1.124 when
  // written), 24% at 8..32 MiB where NCCL's own model switches to Simple/NVLS.
  REQUIRE(mid == 48);
  CHECK(std::exp(log_sum / mid) == doctest::Approx(1.124).epsilon(0.02));
}

TEST_CASE("mid-size gap is largest just after the switch to Simple (the shape, not one point)") {
  // The same data grouped: at 8..32 MiB the measured/model ratio of the Simple-protocol points
  // (H100 NVLS all-reduce, A100 ring all-gather/reduce-scatter at 16..32 MiB) exceeds the
  // ratio of the same op at 512 MiB, i.e. the gap is not a constant bandwidth factor.
  const std::vector<Ratio> rs = ratios();
  auto at = [&](const std::string& sys, const std::string& op, double size) {
    for (const Ratio& r : rs)
      if (r.p.system == sys && r.p.op == op && r.p.size_bytes == size) return r.ratio;
    FAIL("no point");
    return 0.0;
  };
  CHECK(at("h100_sxm", "all_reduce", 16 * kMiB) > at("h100_sxm", "all_reduce", 512 * kMiB) + 0.2);
  CHECK(at("a100_sxm", "all_gather", 16 * kMiB) > at("a100_sxm", "all_gather", 512 * kMiB) + 0.2);
  CHECK(at("a100_sxm", "reduce_scatter", 32 * kMiB) >
        at("a100_sxm", "reduce_scatter", 512 * kMiB) + 0.2);
}
