// `plan --disagg --render`: the prefill pool's GPUs in one colour and the decode pool's in
// another, tagged by pool and replica, the KV stream's narrowest link highlighted.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "report/diagram.hpp"
#include "report/diagram_overlay.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using namespace topoplan::report;

namespace {
// 2,048 in / 256 out at a TPOT limit, one prefill server and two decode servers.
DisaggOutput one_prefill_two_decode(const Topology& t, const ModelSpec& m, double tpot_max_ms) {
  const Router router(t);
  PlanRequest q;
  q.prompt = 2048;
  q.output = 256;
  q.tpot_max_ms = tpot_max_ms;
  return plan_disagg(m, router, q, DisaggRequest{1, 2});
}
}  // namespace

TEST_CASE("disagg overlay: pools coloured, GPUs tagged by replica, the KV link highlighted") {
  ClusterOptions o;
  o.nodes = 3;
  const Topology t = load_topology("hgx-h100-8", o);
  const ModelSpec m = load_model("llama-3-8b");
  const DisaggOutput out = one_prefill_two_decode(t, m, 20);
  REQUIRE(out.best);
  const DisaggResult& r = *out.best;
  const Overlay ov = overlay_from_disagg(t, m, out);
  // Every GPU of the pools is filled: the prefill server's 8 in one colour, the decode pool's
  // 16 in another.
  REQUIRE(ov.fill.size() == 24);
  std::set<std::string> prefill, decode;
  for (int i = 0; i < 8; ++i) prefill.insert(ov.fill.at(t.gpus()[i]));
  for (int i = 8; i < 24; ++i) decode.insert(ov.fill.at(t.gpus()[i]));
  CHECK(prefill.size() == 1);
  CHECK(decode.size() == 1);
  CHECK(*prefill.begin() != *decode.begin());
  REQUIRE(ov.fill_legend.size() == 2);
  CHECK(ov.fill_legend[0].second.find("prefill pool: 8 x H100") == 0);
  // Tags: pool letter and replica (GPU i of a pool is in replica i / (tp x pp)).
  const int per = r.decode.strategy.tp * r.decode.strategy.pp;
  CHECK(ov.tag.at(t.gpus()[8]) == "D r0");
  CHECK(ov.tag.at(t.gpus()[8 + per]) == "D r1");
  CHECK(ov.tag.at(t.gpus()[0]) == "P r0");
  // The KV stream leaves the prefill server: its narrowest link is highlighted and labelled.
  REQUIRE(ov.highlights.size() == 1);
  CHECK(ov.highlights[0].label.find("KV transfer: ") == 0);
  CHECK(ov.caption.find(r.ratio) != std::string::npos);
}

TEST_CASE("disagg overlay: no split, nothing to draw") {
  DisaggOutput none;
  const Topology t = load_topology("hgx-h100-8");
  CHECK_THROWS_AS(overlay_from_disagg(t, load_model("llama-3-8b"), none), InputError);
}

// A mixed cluster: each server is named by its own group, the title counts GPUs per model, and
// the highlighted link's legend says it is the KV stream's (it said "bottleneck of a group").
TEST_CASE("disagg overlay on a mixed cluster: servers named per group, GPUs counted per model") {
  const auto path = std::filesystem::temp_directory_path() / "topoplan-overlay-mixed.json";
  std::ofstream(path) << R"({"name": "h200-h20",
    "cluster": {"servers": [{"server": "hgx-h200-8", "count": 1},
                            {"server": "hgx-h20-8", "count": 2}],
                "fabric": {"kind": "rail-optimized", "link": "ib-ndr400"}}})";
  const Topology t = load_topology(path.string());
  const ModelSpec m = load_model("llama-3-8b");
  const DisaggOutput out = one_prefill_two_decode(t, m, 50);
  REQUIRE(out.best);
  const Overlay ov = overlay_from_disagg(t, m, out);
  DiagramOptions o;
  o.overlay = &ov;
  const Diagram d = build_diagram(t, o);
  CHECK(d.title.find("24 GPUs (8 × H200-SXM, 16 × H20)") != std::string::npos);
  std::set<std::string> labels;
  for (const DiagramNode& n : d.nodes)
    if (!n.cells.empty()) labels.insert(n.label.substr(0, n.label.find('\n')));
  CHECK(labels == std::set<std::string>{"n0: hgx-h200-8", "n1: hgx-h20-8", "n2: hgx-h20-8"});
  CHECK(d.highlight_legend.find("KV stream") != std::string::npos);
  const Diagram plain = build_diagram(t, DiagramOptions{});
  CHECK(plain.title.find("(8 × H200-SXM, 16 × H20)") != std::string::npos);
}

TEST_CASE("diagram of a mixed cluster: the folded servers are counted per template") {
  const auto path = std::filesystem::temp_directory_path() / "topoplan-diagram-mixed.json";
  std::ofstream(path) << R"({"name": "mixed",
    "cluster": {"servers": [{"server": "hgx-h200-8", "count": 2},
                            {"server": "hgx-h20-8", "count": 3}],
                "fabric": {"kind": "rail-optimized", "link": "ib-ndr400"}}})";
  const Topology t = load_topology(path.string());
  DiagramOptions o;
  o.full_servers = 1;
  const Diagram d = build_diagram(t, o);
  bool found = false;
  for (const DiagramNode& n : d.nodes)
    if (n.key == "more-servers") {
      found = true;
      CHECK_MESSAGE(n.label.find("× 4 more servers (1 × hgx-h200-8, 3 × hgx-h20-8)") == 0, n.label);
    }
  CHECK(found);
  // The note says the same (it said "4 more like it" of servers of two kinds).
  CHECK(std::find(d.notes.begin(), d.notes.end(),
                  "one server drawn in full, 4 more (1 × hgx-h200-8, 3 × hgx-h20-8) stacked "
                  "(--expand draws all)") != d.notes.end());
}
