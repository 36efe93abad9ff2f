// Plan overlay: what `plan --json` gives back is drawn as group fills, bottleneck links and a
// caption; malformed documents are errors naming the JSON pointer.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

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
  // The full drawing (--expand) marks those edges.
  DiagramOptions o;
  o.overlay = &tp;
  o.expand = true;
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
      "plan.json: /request: the plan was made for 'hgx-h800-8-x2' (16 x H800-SXM), not "
      "'hgx-h800-8' (8 x H800-SXM): render the topology the plan was made for (same name and "
      "--nodes)",
      InputError);
  // Without a request (a hand-written plan) the strategy itself is checked against the GPUs.
  nlohmann::json doc = nlohmann::json::parse(c.json);
  doc.erase("request");
  CHECK_THROWS_WITH_AS(
      overlay_from_plan_json(single, doc.dump(), "plan.json", ColorBy::Tp),
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

namespace {
const DiagramNode* node_named(const Diagram& d, const std::string& key) {
  for (const DiagramNode& n : d.nodes)
    if (n.key == key) return &n;
  return nullptr;
}
int gpu_of(const Topology& t, int server, int local) {
  for (int g : t.gpus())
    if (t.device(g).node == server && t.device(g).local_index == local) return g;
  return -1;
}
}  // namespace

// Issue 28: at 2 servers the plan drew n1 left of n0 at 5,296 px; at 16 only n0 appeared.
TEST_CASE(
    "overlay: a plan on several servers draws each one compact, in order, with its pipeline") {
  const Case c = r1_on_two_h800();
  const Overlay tp = overlay_from_plan_json(c.t, c.json, "plan.json", ColorBy::Tp);
  REQUIRE(tp.pp_chain.size() == 2);  // pp2: stage 0 on n0, stage 1 on n1
  DiagramOptions o;
  o.overlay = &tp;
  const Diagram d = build_diagram(c.t, o);
  const DiagramNode* n0 = node_named(d, "compact0");
  const DiagramNode* n1 = node_named(d, "compact1");
  REQUIRE(n0 != nullptr);
  REQUIRE(n1 != nullptr);
  CHECK(n0->label.rfind("n0: ", 0) == 0);
  CHECK(n1->label.rfind("n1: ", 0) == 0);
  REQUIRE(n0->cells.size() == 8);
  // Each cell carries its GPU's group colour and tag, in local order.
  for (int local = 0; local < 8; ++local) {
    CHECK(n1->cells[static_cast<std::size_t>(local)].fill == tp.fill.at(gpu_of(c.t, 1, local)));
    CHECK(n1->cells[static_cast<std::size_t>(local)].text == tp.tag.at(gpu_of(c.t, 1, local)));
  }
  CHECK(node_named(d, "more-servers") == nullptr);  // both servers drawn
  bool ordered = false;
  for (const Diagram::Row& r : d.rows)
    ordered |= r.keys == std::vector<std::string>{"compact0", "compact1"};
  CHECK(ordered);
  int chains = 0;
  for (const DiagramEdge& e : d.edges)
    if (e.chain) {
      ++chains;
      CHECK(e.a == "compact0");
      CHECK(e.b == "compact1");
      CHECK(e.label == "PP0→1");
    }
  CHECK(chains == 1);
  // TP's NVLink bottleneck lies inside a server: its text joins that server's header.
  CHECK(n0->label.find("TP bottleneck") != std::string::npos);
  CHECK(diagram_dot(d).find("compact1") != std::string::npos);
}

TEST_CASE("overlay: 16 servers compact, four to a row, switch tiers folded across rails") {
  ClusterOptions co;
  co.nodes = 16;
  const Topology t = load_topology("hgx-h100-8", co);
  Overlay ov;  // one pipeline stage per server, GPU 0 of each
  for (int s = 0; s < 16; ++s) {
    for (int local = 0; local < 8; ++local) ov.fill[gpu_of(t, s, local)] = "#8dd3c7";
    ov.pp_chain.push_back(gpu_of(t, s, 0));
  }
  DiagramOptions o;
  o.overlay = &ov;
  const Diagram d = build_diagram(t, o);
  int compact = 0, chains = 0, stacked = 0, rows = 0;
  for (const DiagramNode& n : d.nodes) compact += !n.cells.empty();
  for (const DiagramEdge& e : d.edges) chains += e.chain, stacked += e.invisible;
  for (const Diagram::Row& r : d.rows)
    if (!r.keys.empty() && r.keys.front().rfind("compact", 0) == 0) {
      ++rows;
      CHECK(r.keys.size() == 4);
    }
  CHECK(compact == 16);
  CHECK(chains == 15);  // stage s → s + 1 on the next server
  CHECK(rows == 4);     // 16 servers, 4 per row
  CHECK(stacked == 3);  // each row below the previous one
  // Every leaf of every rail is one stack: one edge per server to it, not one per rail.
  const DiagramNode* leaves = node_named(d, "all:leaf");
  REQUIRE(leaves != nullptr);
  int to_leaves = 0;
  for (const DiagramEdge& e : d.edges)
    to_leaves += e.b == "all:leaf" && e.a.rfind("compact", 0) == 0;
  CHECK(to_leaves == 16);
}

// Graphviz's layout grows faster than linearly in boxes (256 compact servers took > 100 s):
// at most compact_max are drawn, the first pipeline's servers among them, the rest folded.
TEST_CASE("overlay: past compact_max servers the plan's others fold into one counted box") {
  ClusterOptions co;
  co.nodes = 40;
  const Topology t = load_topology("hgx-h100-8", co);
  Overlay ov;  // every GPU of every server in the plan; the pipeline on servers 0, 13, 26, 39
  for (int s = 0; s < 40; ++s)
    for (int local = 0; local < 8; ++local) ov.fill[gpu_of(t, s, local)] = "#8dd3c7";
  for (int s : {0, 13, 26, 39}) ov.pp_chain.push_back(gpu_of(t, s, 0));
  DiagramOptions o;
  o.overlay = &ov;
  o.compact_max = 10;
  const Diagram d = build_diagram(t, o);
  int compact = 0;
  for (const DiagramNode& n : d.nodes) compact += !n.cells.empty();
  CHECK(compact == 10);
  for (int s : {0, 13, 26, 39, 1, 2, 3, 4, 5, 6})  // the pipeline's four, then in order
    CHECK(node_named(d, "compact" + std::to_string(s)) != nullptr);
  CHECK(node_named(d, "compact7") == nullptr);
  const DiagramNode* folded = node_named(d, "more-plan-servers");
  REQUIRE(folded != nullptr);
  CHECK(folded->label.find("× 30 more servers of the plan") != std::string::npos);
  CHECK(folded->label.find("240 GPUs") != std::string::npos);
  CHECK(node_named(d, "more-servers") == nullptr);  // no server outside the plan
  int chains = 0;
  for (const DiagramEdge& e : d.edges) chains += e.chain;
  CHECK(chains == 3);
}

// Issue 28: an H800 plan drawn on H100s showed the H800 figures under the H100 title.
TEST_CASE("overlay: a plan made for other hardware is refused, naming both") {
  const Case c = r1_on_two_h800();
  ClusterOptions co;
  co.nodes = 2;
  const Topology h100 = load_topology("hgx-h100-8", co);
  CHECK_THROWS_WITH_AS(overlay_from_plan_json(h100, c.json, "plan.json", ColorBy::Tp),
                       doctest::Contains("made for 'hgx-h800-8-x2' (16 x H800-SXM), not "
                                         "'hgx-h100-8-x2' (16 x H100-SXM)"),
                       InputError);
  co.nodes = 4;  // same GPU, more servers
  CHECK_THROWS_AS(
      overlay_from_plan_json(load_topology("hgx-h800-8", co), c.json, "plan.json", ColorBy::Tp),
      InputError);
}
