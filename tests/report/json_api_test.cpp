// The public to_json API (topoplan/json.hpp): the documents `--json` prints, read back and checked
// against the result they came from and against hand-derived identities.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report/disagg_report.hpp"
#include "report/plan_report.hpp"
#include "topoplan/json.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using nlohmann::json;

TEST_CASE("json api: an all-reduce on 8 x H20 as `collective --json` writes it") {
  const Topology t = load_topology("hgx-h20-8");
  const Router router(t);
  CollectiveModel model(router);
  report::CollectiveReport r;
  r.topology = t.name;
  for (int g : t.gpus()) r.ranks.push_back(t.device(g).id);
  const double size = 1024.0 * 1024 * 1024;  // 1 GiB
  r.results.push_back(model.cost(CollOp::AllReduce, t.gpus(), size));
  const json doc = json::parse(to_json(r));
  CHECK(doc["op"] == "all-reduce");
  CHECK(doc["ranks"] == 8);
  CHECK(doc["devices"][7] == t.device(t.gpus()[7]).id.str());
  const json& res = doc["results"][0];
  CHECK(res["size_bytes"] == 1073741824);
  // fp32 (the report's default dtype): count = 2^30 B / 4 B.
  CHECK(res["count"] == 268435456);
  // algbw = size / time; all-reduce busbw = algbw x 2(n-1)/n = algbw x 14/8 (nccl-tests'
  // PERFORMANCE.md); the document rounds to 6 significant digits.
  const double algbw_GBps = size / (res["time_us"].get<double>() * 1e-6) / 1e9;
  CHECK(res["algbw_GBps"].get<double>() == doctest::Approx(algbw_GBps).epsilon(1e-5));
  CHECK(res["busbw_GBps"].get<double>() ==
        doctest::Approx(res["algbw_GBps"].get<double>() * 14 / 8).epsilon(1e-5));
}

TEST_CASE("json api: a plan's document is the one `plan --json` prints") {
  const Topology t = load_topology("hgx-h20-8");
  const Router router(t);
  const PlanOutput out = plan(load_model("llama-3-8b"), router, PlanRequest{});
  std::ostringstream cli;
  report::print_plan_json(cli, out);
  CHECK(to_json(out) == cli.str());
  const json doc = json::parse(to_json(out));
  CHECK(doc["request"]["model"] == "llama-3-8b");
  CHECK(doc["request"]["topology"] == "hgx-h20-8");
  REQUIRE(doc["plans"].size() == out.plans.size());
  CHECK(doc["status"] == out.status);
}

TEST_CASE("json api: model show's architecture section") {
  const json doc = json::parse(to_json(load_model("llama-3-8b")));
  // models/llama-3-8b.json: num_layers 32, hidden_size 4096 (Meta's config.json).
  CHECK(doc["name"] == "llama-3-8b");
  CHECK(doc["architecture"]["layers"] == 32);
  CHECK(doc["architecture"]["hidden_size"] == 4096);
}

TEST_CASE("json api: a disaggregated plan's document is the one `plan --disagg --json` prints") {
  ClusterOptions co;
  co.nodes = 2;
  const Topology t = load_topology("hgx-h100-8", co);
  const Router router(t);
  PlanRequest q;
  q.prompt = 2048;
  q.output = 256;
  const DisaggOutput out = plan_disagg(load_model("llama-3-8b"), router, q, DisaggRequest{});
  REQUIRE(out.best);
  std::ostringstream cli;
  report::print_disagg_json(cli, out);
  CHECK(to_json(out) == cli.str());
  const json doc = json::parse(to_json(out));
  // Two servers split one way: 1 prefill + 1 decode server, 8 GPUs each.
  CHECK(doc["disagg"]["ratio"] == "1P:1D");
  CHECK(doc["disagg"]["prefill"]["gpus"] == 8);
  CHECK(doc["disagg"]["decode"]["gpus"] == 8);
}
