// Flows made for many servers at once must be the ones made server by server (issue 32): the
// tree's chains reused across servers of one shape, and pairs routed on several threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "comm/loads.hpp"
#include "comm_test_util.hpp"
#include "topoplan/error.hpp"

using namespace topoplan;
using namespace topoplan::test;

namespace {
bool same_bits(const std::vector<comm::Flow>& a, const std::vector<comm::Flow>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].src != b[i].src || a[i].dst != b[i].dst ||
        std::memcmp(&a[i].weight, &b[i].weight, sizeof(double)) != 0)
      return false;
  return true;
}

// The tree's flows with server shapes reused and made afresh for every server.
void check_tree_reuse(const Topology& t, const std::vector<int>& gpus) {
  const Router r(t);
  const comm::GroupInfo g = comm::analyse_group(r, gpus, true);
  std::vector<comm::Flow> reused, fresh;
  comm::tree_flows(g, reused, true);
  comm::tree_flows(g, fresh, false);
  CHECK(!reused.empty());
  CHECK(same_bits(reused, fresh));
}
}  // namespace

TEST_CASE("tree chains reused across servers of one shape are the ones made per server") {
  SUBCASE("every GPU of 16 HGX H100 servers") {
    const Topology t = cluster("hgx-h100-8", 16);
    check_tree_reuse(t, t.gpus());
  }
  SUBCASE("half of each server, alternating halves (two shapes, every other server)") {
    const Topology t = cluster("hgx-h100-8", 6);
    std::vector<int> gpus;
    for (int s = 0; s < 6; ++s)
      for (int k = 0; k < 4; ++k)
        gpus.push_back(t.gpus()[static_cast<std::size_t>(8 * s + k + 4 * (s % 2))]);
    check_tree_reuse(t, gpus);
  }
  SUBCASE("ranks in descending order (no server's list ascends: every one made afresh)") {
    const Topology t = cluster("hgx-h100-8", 4);
    std::vector<int> gpus(t.gpus().rbegin(), t.gpus().rend());
    check_tree_reuse(t, gpus);
  }
  SUBCASE("a server whose GPUs share NICs") {
    const Topology t = cluster("pcie-l40s-8", 5);
    check_tree_reuse(t, t.gpus());
  }
  SUBCASE("two kinds of server in one cluster") {
    const Topology h200 = load_topology("hgx-h200-8"), h20 = load_topology("hgx-h20-8");
    const Topology t = make_mixed_cluster({{&h200, 2}, {&h20, 3}}, ClusterOptions{});
    check_tree_reuse(t, t.gpus());
  }
}

TEST_CASE("pairs routed on several threads load links as one thread does, to the bit") {
  // A tree all-reduce over 1,500 HGX H100 servers: 72,000 flows, above the engine's threshold
  // for splitting (65,536), so two and more threads route it in chunks.
  const Topology t = cluster("hgx-h100-8", 1500);
  const Router r(t);
  const comm::GroupInfo g = comm::analyse_group(r, t.gpus(), true);
  const comm::FlowSource source = [&](std::size_t, std::vector<comm::Flow>& out) {
    comm::tree_flows(g, out);
  };
  std::vector<comm::Flow> probe;
  source(0, probe);
  REQUIRE(probe.size() >= 65536);
  const comm::GroupLoad one = comm::evaluate_loads(r, 1, source, 1).front();
  for (int threads : {2, 3, 8}) {
    const comm::GroupLoad many = comm::evaluate_loads(r, 1, source, threads).front();
    CHECK(std::memcmp(&many.us_per_byte, &one.us_per_byte, sizeof(double)) == 0);
    CHECK(many.bottleneck == one.bottleneck);
    CHECK(std::memcmp(&many.weight, &one.weight, sizeof(double)) == 0);
    CHECK(many.inter_latency_us == one.inter_latency_us);
    CHECK(many.worst_class == one.worst_class);
  }
  CHECK(one.bottleneck >= 0);
  CHECK(one.worst_class == PathClass::NET);
}

TEST_CASE("a pair that cannot be routed fails the same on one thread or several") {
  // The last pair of a large set (its source is the highest device index) lies in a helper's
  // share of the last chunk; it leads to a GPU joined to nothing.
  Topology t = cluster("hgx-h100-8", 1500);
  const std::vector<int> gpus = t.gpus();
  Device lone;
  lone.id = "lone-gpu";
  lone.model = "H100-SXM";
  const int island = t.add_device(lone);
  const Router r(t);
  const comm::GroupInfo g = comm::analyse_group(r, gpus, true);
  const comm::FlowSource source = [&](std::size_t, std::vector<comm::Flow>& out) {
    comm::tree_flows(g, out);
    out.push_back({island, gpus.front(), 1.0});
  };
  const comm::FlowSource clean = [&](std::size_t, std::vector<comm::Flow>& out) {
    comm::tree_flows(g, out);
  };
  const comm::GroupLoad before = comm::evaluate_loads(r, 1, clean, 1).front();
  std::string one, two;
  try {
    comm::evaluate_loads(r, 1, source, 1);
  } catch (const InputError& e) {
    one = e.what();
  }
  try {
    comm::evaluate_loads(r, 1, source, 2);
  } catch (const InputError& e) {
    two = e.what();
  }
  CHECK(one.find("lone-gpu") != std::string::npos);
  CHECK(two == one);
  // The thread's load arrays were cleared on the way out (they were not before: a failed set's
  // partial loads stayed in them), so a later call gives what it gave before.
  const comm::GroupLoad after = comm::evaluate_loads(r, 1, clean, 1).front();
  CHECK(std::memcmp(&after.us_per_byte, &before.us_per_byte, sizeof(double)) == 0);
  CHECK(after.bottleneck == before.bottleneck);
}
