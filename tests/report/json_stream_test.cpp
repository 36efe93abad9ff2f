// The streamed JSON writer against the nlohmann document writer it replaced: same bytes for the
// same document, on hand-made values (every scalar kind and escape, empty and nested containers)
// and on `topo show --json` of every shipped topology (the old document code is kept here as the
// reference; production writes the stream only).
#include "report/json_stream.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/json_number.hpp"
#include "report/topo_report.hpp"
#include "topoplan/route.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;
using nlohmann::ordered_json;
using report::json_number;
using report::JsonStream;

namespace {

std::string dumped(const ordered_json& j) {
  return j.dump(2);
}

// The `topo show --json` document as src/report/topo_report.cpp built it before streaming.
ordered_json reference_topo_show(const Topology& t, const TopologySummary& s) {
  ordered_json devices = ordered_json::object();
  for (const auto& [type, n] : s.devices) devices[type] = n;
  const FabricInfo& f = t.fabric;
  const ordered_json fabric =
      f.kind.empty()
          ? ordered_json(nullptr)
          : ordered_json{
                {"server", f.server}, {"nodes", f.nodes},
                {"kind", f.kind},     {"link", f.link},
                {"tiers", f.tiers},   {"oversubscription", json_number(f.oversubscription)}};
  ordered_json dev = ordered_json::array(), links = ordered_json::array();
  for (std::size_t i = 0; i < t.device_count(); ++i) {
    const Device& d = t.device(static_cast<int>(i));
    dev.push_back({{"id", d.id},
                   {"type", to_string(d.type)},
                   {"model", d.model},
                   {"node", d.node},
                   {"tier", d.tier}});
  }
  for (std::size_t i = 0; i < t.link_count(); ++i) {
    const Link& l = t.link(static_cast<int>(i));
    links.push_back({{"from", t.device(l.a).id},
                     {"to", t.device(l.b).id},
                     {"type", l.type},
                     {"kind", to_string(l.kind)},
                     {"count", l.count},
                     {"GBps", json_number(l.bw_GBps)}});
  }
  ordered_json models = ordered_json::array(), assumed = ordered_json::array();
  for (const auto& [model, count] : t.gpu_models()) {
    models.push_back({{"model", model}, {"count", count}});
    // Issue 30: GPU figures that are not public, only when a GPU has one.
    if (std::string n = assumed_figures_note(t.catalog().gpu(model)); !n.empty())
      assumed.push_back(n);
  }
  ordered_json doc = {{"name", t.name},
                      {"description", t.description},
                      {"nodes", s.nodes},
                      {"gpus", s.gpus},
                      {"gpu_model", s.gpu_model},
                      {"gpu_models", models},
                      {"gpu_memory_bytes", json_number(s.gpu_memory_bytes)},
                      {"devices", devices},
                      {"links", t.link_count()},
                      {"nvlink_domain", s.nvlink_domain},
                      {"per_gpu",
                       {{"nvlink_GBps", json_number(s.nvlink_GBps)},
                        {"pcie_GBps", json_number(s.pcie_GBps)},
                        {"network_GBps", json_number(s.network_GBps)},
                        {"network_share_GBps", json_number(s.network_share_GBps)}}},
                      {"bisection_GBps", json_number(s.bisection_GBps)},
                      {"switches_per_tier", s.switches_per_tier},
                      {"fabric", fabric},
                      {"device_list", dev},
                      {"link_list", links}};
  if (!assumed.empty()) {
    ordered_json with = ordered_json::object();
    for (auto& [key, value] : doc.items()) {
      if (key == "gpu_memory_bytes") with["assumed_figures"] = assumed;
      with[key] = value;
    }
    return with;
  }
  return doc;
}

void check_topo_show_same(const Topology& t) {
  const Router router(t);
  const TopologySummary s = summarize(router);
  std::ostringstream streamed;
  report::print_topo_show(streamed, report::show_source(t), s, true);
  const std::string expected = dumped(reference_topo_show(t, s)) + "\n";
  CHECK(streamed.str().size() == expected.size());
  CHECK(streamed.str() == expected);
}

}  // namespace

TEST_CASE("json stream: empty containers, nesting and every scalar as nlohmann dumps them") {
  const double inf = std::numeric_limits<double>::infinity();
  std::ostringstream os;
  {
    JsonStream w(os);
    w.begin_object();
    w.key("empty_object").begin_object().end_object();
    w.key("empty_array").begin_array().end_array();
    w.key("nested").begin_array().begin_array().value(1).end_array().begin_object().end_object();
    w.end_array();
    w.field("int", -42).field("big", 18446744073709551615ull).field("min", -9223372036854775807LL);
    // Doubles in each of nlohmann's formats: integral ("450.0"), decimal, small ("1e-05"), large
    // ("1e+20"), signed zero; NaN and infinities become null.
    w.key("doubles").begin_array();
    for (double x : {450.0, 0.1, 1e-5, 1e20, -0.0, 123456.789, 5e-324, std::nan(""), inf, -inf})
      w.value(x);
    w.end_array();
    w.field("yes", true).field("no", false).key("nothing").null();
    // Escapes: quote, backslash, control characters, DEL, UTF-8 (kept as is, ensure_ascii off).
    w.field("text", "a\"b\\c\n\t\x01\x1f\x7f \xc3\xa9 \xe2\x80\xa6");
    w.field("esc\"aped key", "");
    w.end_object();
  }
  const ordered_json j{
      {"empty_object", ordered_json::object()},
      {"empty_array", ordered_json::array()},
      {"nested", ordered_json::array({ordered_json::array({1}), ordered_json::object()})},
      {"int", -42},
      {"big", 18446744073709551615ull},
      {"min", -9223372036854775807LL},
      {"doubles", {450.0, 0.1, 1e-5, 1e20, -0.0, 123456.789, 5e-324, std::nan(""), inf, -inf}},
      {"yes", true},
      {"no", false},
      {"nothing", nullptr},
      {"text", "a\"b\\c\n\t\x01\x1f\x7f \xc3\xa9 \xe2\x80\xa6"},
      {"esc\"aped key", ""}};
  CHECK(os.str() == dumped(j));
  // Spot checks of the format itself, so the test does not rest on nlohmann alone.
  CHECK(os.str().find("\"empty_object\": {},\n  \"empty_array\": [],") != std::string::npos);
  CHECK(os.str().find("    450.0,\n    0.1,\n    1e-05,\n    1e+20,") != std::string::npos);
  CHECK(os.str().find("null,\n    null\n  ],") != std::string::npos);
}

TEST_CASE("json stream: top-level scalars and arrays") {
  for (const ordered_json& j :
       {ordered_json(3), ordered_json("x"), ordered_json::array(), ordered_json::array({1, 2})}) {
    std::ostringstream os;
    {
      JsonStream w(os);
      if (j.is_number()) w.value(3);
      if (j.is_string()) w.value("x");
      if (j.is_array()) {
        w.begin_array();
        for (const auto& v : j) w.value(v.get<int>());
        w.end_array();
      }
    }
    CHECK(os.str() == dumped(j));
  }
}

TEST_CASE("json stream: more than the buffer (1 MiB) is written whole and in order") {
  std::ostringstream os;
  ordered_json j = ordered_json::array();
  {
    JsonStream w(os);
    w.begin_array();
    for (int i = 0; i < 300000; ++i) {
      w.value(i);
      j.push_back(i);
    }
    w.end_array();
  }
  CHECK(os.str().size() > (1u << 20));
  CHECK(os.str() == dumped(j));
}

TEST_CASE("topo show --json streamed: byte-identical to the document on every shipped topology") {
  for (const std::string& name : builtin_topology_names()) {
    CAPTURE(name);
    check_topo_show_same(load_topology(name));
  }
  // Generated clusters (rail and fat-tree fabrics, switches off any server: node -1, tier > 0).
  ClusterOptions fat_tree;
  fat_tree.nodes = 16;
  fat_tree.fabric = FabricKind::FatTree;
  check_topo_show_same(load_topology("hgx-h100-8", fat_tree));
  ClusterOptions rail;
  rail.nodes = 4;
  check_topo_show_same(load_topology("hgx-h20-8", rail));
}

TEST_CASE("topo show --json streamed: escapes in names and descriptions as the document had") {
  const Topology t = parse_topology_json(
      R"({"name": "q\"uote", "description": "tab\there, \u00e9, \u2026, line\nbreak, \u0001",
          "devices": [{"id": "gpu[0-1]", "type": "gpu", "model": "H100-SXM"},
                      {"id": "c\\pu", "type": "cpu", "model": "Intel Xeon 8480+"}],
          "links": [{"from": "gpu0", "to": "gpu1", "type": "nvlink4", "count": 18},
                    {"from": "gpu[0-1]", "to": "c\\pu", "type": "pcie5", "count": 16}]})",
      "escapes.json");
  check_topo_show_same(t);
}
