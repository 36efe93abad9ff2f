// Plan overlay: what `plan --json` gives back is drawn as group fills, bottleneck links and a
// caption; malformed documents are errors naming the JSON pointer.
#include <doctest/doctest.h>

#include <set>
#include <sstream>

#include "report/diagram_overlay.hpp"
#include "report/plan_report.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using namespace topoplan::report;

namespace {

struct Case {
  Topology t;
  std::string json;
};

// DeepSeek-R1 on 2 x hgx-h800-8: the planner's best plan is tp8 pp2 ep8 with attention DP
// (two pipeline stages, one per server).
Case r1_on_two_h800() {
  ClusterOptions o;
  o.nodes = 2;
  Case c{load_topology("hgx-h800-8", o), ""};
  Router router(c.t);
  std::ostringstream os;
  print_plan_json(os, plan(load_model("deepseek-r1"), router, PlanRequest{}));
  c.json = os.str();
  return c;
}

}  // namespace

TEST_CASE("overlay: GPUs filled by group, bottlenecks highlighted, caption from the plan") {
  const Case c = r1_on_two_h800();
  const Overlay tp = overlay_from_plan_json(c.t, c.json, "plan.json", ColorBy::Tp);
  REQUIRE(tp.caption.find("plan: deepseek-r1, tp8 pp2 dp1 ep8") == 0);
  CHECK(tp.fill.size() == 16);  // every GPU of the plan
  // tp8 pp2: two TP groups (one per stage), so two colours; by PP also two, by DP one.
  auto colours = [](const Overlay& o) {
    std::set<std::string> s;
    for (const auto& [dev, colour] : o.fill) s.insert(colour);
    return s.size();
  };
  CHECK(colours(tp) == 2);
  CHECK(colours(overlay_from_plan_json(c.t, c.json, "plan.json", ColorBy::Pp)) == 2);
  CHECK(colours(overlay_from_plan_json(c.t, c.json, "plan.json", ColorBy::Dp)) == 1);
  // The pipeline crosses servers: its bottleneck is an InfiniBand link (50 GB/s NDR port).
  bool pp_on_network = false, tp_on_nvlink = false;
  for (const OverlayHighlight& h : tp.highlights) {
    const Link& l = c.t.link(h.link);
    pp_on_network |= l.kind == LinkKind::Network && h.label.find("PP bottleneck") == 0;
    tp_on_nvlink |=
        l.kind == LinkKind::NVLink && h.label.find("TP bottleneck") != std::string::npos;
  }
  CHECK(pp_on_network);
  CHECK(tp_on_nvlink);
  // The drawing marks those edges.
  DiagramOptions o;
  o.overlay = &tp;
  const Diagram d = build_diagram(c.t, o);
  int highlighted = 0;
  for (const DiagramEdge& e : d.edges) highlighted += e.highlight;
  CHECK(highlighted == static_cast<int>(tp.highlights.size()));
  CHECK(d.caption == tp.caption);
}

TEST_CASE("overlay: bad documents name the pointer") {
  const Case c = r1_on_two_h800();
  const Topology single = load_topology("hgx-h800-8");
  CHECK_THROWS_WITH_AS(
      overlay_from_plan_json(single, c.json, "plan.json", ColorBy::Tp),
      "plan.json: /plans/0/strategy: tp x pp x dp = 16 is more than the 8 GPUs of topology "
      "'hgx-h800-8'",
      InputError);
  CHECK_THROWS_WITH_AS(overlay_from_plan_json(single, "{", "plan.json", ColorBy::Tp),
                       doctest::Contains("malformed JSON"), InputError);
  CHECK_THROWS_WITH_AS(overlay_from_plan_json(single, "{\"plans\": []}", "plan.json", ColorBy::Tp),
                       doctest::Contains("/plans"), InputError);
  CHECK_THROWS_AS(parse_color_by("tensor"), InputError);
}

namespace {
// The error of the r1 plan with the first `from` replaced by `to`, drawn on its own topology.
std::string error_with(const Case& c, const std::string& from, const std::string& to) {
  std::string text = c.json;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  try {
    overlay_from_plan_json(c.t, text, "plan.json", ColorBy::Ep);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("overlay: a plan file is checked like any input (ranks, required keys, types)") {
  const Case c = r1_on_two_h800();
  // Out-of-range ranks indexed past the group tables (SIGSEGV in Release).
  CHECK(error_with(c, "\"tp_rank\": 0", "\"tp_rank\": -1") ==
        "plan.json: /plans/0/placement/0/tp_rank: must be >= 0, got -1");
  CHECK(error_with(c, "\"pp_rank\": 0", "\"pp_rank\": 2") ==
        "plan.json: /plans/0/placement/0/pp_rank: must be below 2 (the strategy's pp), got 2");
  CHECK(error_with(c, "\"dp_rank\": 0", "\"dp_rank\": 2147483647") ==
        "plan.json: /plans/0/placement/0/dp_rank: must be <= 1000000000, got 2147483647");
  CHECK(error_with(c, "\"tp\": 8", "\"tp\": 100000") ==
        "plan.json: /plans/0/strategy/tp: must be at most 16 (the GPUs of the topology), got "
        "100000");
  // Missing keys and wrong types: located errors, never an internal error.
  CHECK(error_with(c, "\"fits\": true", "\"fits\": \"yes\"") ==
        "plan.json: /plans/0/fits: expected true or false, got \"yes\"");
  CHECK(error_with(c, "\"breakdown\"", "\"breakdown_\"") ==
        "plan.json: /plans/0/breakdown: missing field");
  CHECK(error_with(c, "\"device\": \"n0/gpu0\"", "\"device\": \"n0/nvswitch\"")
            .find("plan.json: /plans/0/placement/0/device: no GPU 'n0/nvswitch'") == 0);
  CHECK(error_with(c, "\"device\": \"n0/gpu0\"", "\"device\": 7") ==
        "plan.json: /plans/0/placement/0/device: expected a string, got 7");
  CHECK(error_with(c, "\"strategy\": {", "\"strategy_\": {") ==
        "plan.json: /plans/0/strategy: missing field");
}
