// Placements written as runs of whole servers (issue 32): exact for regular and irregular
// placements, and the overlay reads them back to the same ranks as the per-rank list.
#include <doctest/doctest.h>

#include <sstream>

#include "report/diagram_overlay.hpp"
#include "report/placement_runs.hpp"
#include "report/plan_report.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using namespace topoplan::report;

namespace {

RankPlacement at(int rank, int node, int gpu) {
  RankPlacement r;
  r.rank = rank;
  r.node = node;
  r.local_gpu = gpu;
  r.device_id = "n" + std::to_string(node) + "/gpu" + std::to_string(gpu);
  return r;
}

// 520 hgx-h100-8 servers (4,160 GPUs: past kPlacementListRanks) and their router.
struct Cluster520 {
  Topology t = load_topology("hgx-h100-8", [] {
    ClusterOptions o;
    o.nodes = 520;
    return o;
  }());
  Router router{t};
};

}  // namespace

TEST_CASE("placement runs: whole servers in order are one run") {
  std::vector<RankPlacement> ranks;
  for (int n = 0; n < 3; ++n)
    for (int g = 0; g < 8; ++g) ranks.push_back(at(n * 8 + g, n, g));
  const std::vector<PlacementRun> runs = placement_runs(ranks);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].rank == 0);
  CHECK(runs[0].node_first == 0);
  CHECK(runs[0].node_last == 2);
  CHECK(runs[0].gpu_first == 0);
  CHECK(runs[0].gpu_last == 7);
  CHECK(runs[0].count() == 24);
  CHECK(runs[0].first_device == "n0/gpu0");
  CHECK(runs[0].last_device == "n2/gpu7");
}

TEST_CASE("placement runs: half servers and a jump give runs that add up to every rank") {
  // GPUs 0-3 of servers 0 and 1, then GPUs 4-7 of server 0, then GPU 5 of server 3 alone.
  std::vector<RankPlacement> ranks;
  int r = 0;
  for (int n = 0; n < 2; ++n)
    for (int g = 0; g < 4; ++g) ranks.push_back(at(r++, n, g));
  for (int g = 4; g < 8; ++g) ranks.push_back(at(r++, 0, g));
  ranks.push_back(at(r++, 3, 5));
  const std::vector<PlacementRun> runs = placement_runs(ranks);
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].count() == 8);  // servers 0-1, GPUs 0-3
  CHECK(runs[0].node_last == 1);
  CHECK(runs[1].rank == 8);  // server 0, GPUs 4-7
  CHECK(runs[1].gpu_first == 4);
  CHECK(runs[2].rank == 12);  // server 3, GPU 5
  CHECK(runs[2].count() == 1);
  long long total = 0;
  for (const PlacementRun& x : runs) total += x.count();
  CHECK(total == static_cast<long long>(ranks.size()));
}

TEST_CASE("placement runs: plan --json writes runs past 4,096 ranks, the overlay reads them back") {
  const Cluster520 c;
  const Topology& t = c.t;
  const Router& router = c.router;
  PlanRequest q;
  q.top = 1;
  const PlanOutput out = plan(load_model("llama-3-8b"), router, q);
  REQUIRE(out.placement);
  REQUIRE(out.placement->ranks.size() > kPlacementListRanks);
  std::ostringstream compact, detail;
  print_plan_json(compact, out);
  print_plan_json(detail, out, /*placement_detail=*/true);
  CHECK(compact.str().find("\"placement_runs\"") != std::string::npos);
  CHECK(detail.str().find("\"placement_runs\"") == std::string::npos);
  // The per-rank objects (about 150 B each, twice: plans[0] and gpus_used) are gone.
  CHECK(compact.str().find("\"device\": \"n519/gpu7\"") == std::string::npos);
  CHECK(detail.str().find("\"device\": \"n519/gpu7\"") != std::string::npos);
  CHECK(detail.str().size() - compact.str().size() > 4160 * 100);
  // Both forms draw the same overlay: same fills and tags on every GPU.
  const Overlay a = overlay_from_plan_json(t, compact.str(), "compact", ColorBy::Tp);
  const Overlay b = overlay_from_plan_json(t, detail.str(), "detail", ColorBy::Tp);
  CHECK(a.fill == b.fill);
  CHECK(a.tag == b.tag);
  CHECK(a.fill.size() == out.placement->ranks.size());
}

// PlanRequest::rank_lists off (what `plan` asks for without --placement-detail): a top plan past
// 4,096 ranks keeps runs, not ranks, and the JSON is byte for byte the one the lists give.
TEST_CASE("placement runs: a plan without rank lists keeps runs and prints the same JSON") {
  const Cluster520 c;
  const Router& router = c.router;
  PlanRequest q;
  q.top = 3;
  const PlanOutput lists = plan(load_model("llama-3-8b"), router, q);
  q.rank_lists = false;
  const PlanOutput runs = plan(load_model("llama-3-8b"), router, q);
  REQUIRE(lists.plans.size() == runs.plans.size());
  int kept_as_runs = 0;
  for (std::size_t i = 0; i < 3 && i < runs.plans.size(); ++i) {
    const PlanResult &a = lists.plans[i], &b = runs.plans[i];
    if (!a.fits) continue;
    REQUIRE(a.placement.size() == static_cast<std::size_t>(a.strategy.gpus()));
    CHECK(b.placement.empty());
    const std::vector<PlacementRun> want = placement_runs(a.placement);
    REQUIRE(b.placement_runs.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      CHECK(b.placement_runs[k].rank == want[k].rank);
      CHECK(b.placement_runs[k].count() == want[k].count());
      CHECK(b.placement_runs[k].last_device == want[k].last_device);
    }
    ++kept_as_runs;
  }
  CHECK(kept_as_runs >= 2);
  REQUIRE(runs.placement);
  CHECK(runs.placement->ranks.size() == lists.placement->ranks.size());
  std::ostringstream x, y;
  print_plan_json(x, lists);
  print_plan_json(y, runs);
  // The search's timing fields differ between two runs; everything else must not.
  const auto scrub = [](std::string s) {
    for (const char* key : {"\"search_seconds\": ", "\"evaluations_per_s_per_core\": "}) {
      const std::size_t at = s.find(key);
      if (at == std::string::npos) continue;
      const std::size_t from = at + std::string(key).size();
      s.erase(from, s.find_first_of(",\n}", from) - from);
    }
    return s;
  };
  CHECK(scrub(x.str()) == scrub(y.str()));
}

TEST_CASE("placement runs: a run list that does not place every rank once is refused") {
  ClusterOptions o;
  o.nodes = 520;
  const Topology t = load_topology("hgx-h100-8", o);
  Router router(t);
  PlanRequest q;
  q.top = 1;
  const PlanOutput out = plan(load_model("llama-3-8b"), router, q);
  std::ostringstream os;
  print_plan_json(os, out);
  const std::string good = os.str();
  auto with = [&good](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  auto refused = [&t](const std::string& text, const std::string& what) {
    try {
      overlay_from_plan_json(t, text, "p.json", ColorBy::Tp);
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find(what) != std::string::npos);
    }
  };
  // Half the servers: 2,080 of 4,160 ranks.
  refused(with("\"nodes\": [\n              0,\n              519\n            ]",
               "\"nodes\": [\n              0,\n              259\n            ]"),
          "the runs hold 2080 ranks");
  refused(with("\"ranks\": 4160", "\"ranks\": 100"), "must be tp x pp x dp = 4160");
  refused(with("\"order\": \"tp-pp-dp\"", "\"order\": \"zz\""), "/placement_runs/order");
}
