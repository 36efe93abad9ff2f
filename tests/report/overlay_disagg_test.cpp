// `plan --disagg --render`: the prefill pool's GPUs in one colour and the decode pool's in
// another, tagged by pool and replica, the KV stream's narrowest link highlighted.
#include <doctest/doctest.h>

#include <set>

#include "report/diagram_overlay.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using namespace topoplan::report;

TEST_CASE("disagg overlay: pools coloured, GPUs tagged by replica, the KV link highlighted") {
  ClusterOptions o;
  o.nodes = 3;
  const Topology t = load_topology("hgx-h100-8", o);
  const Router router(t);
  const ModelSpec m = load_model("llama-3-8b");
  PlanRequest q;
  q.prompt = 2048;
  q.output = 256;
  q.tpot_max_ms = 20;
  const DisaggOutput out = plan_disagg(m, router, q, DisaggRequest{1, 2});
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
