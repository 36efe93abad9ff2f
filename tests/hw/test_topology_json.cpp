// Topology JSON: ranges, link bandwidth from the catalog, and errors with file + JSON pointer.
#include <doctest/doctest.h>

#include "io/topology_ranges.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology_io.hpp"

using namespace topoplan;

namespace {

std::string with(const std::string& devices, const std::string& links) {
  return R"({"name": "t", "devices": [)" + devices + R"(], "links": [)" + links + "]}";
}

const std::string kDevs =
    R"({"id": "gpu[0-3]", "type": "gpu", "model": "H20"}, {"id": "nvs", "type": "nvswitch"},
       {"id": "psw[0-1]", "type": "pcie-switch"}, {"id": "nic[0-1]", "type": "nic", "model": "ConnectX-7"})";

// The InputError text for `json`, or "" when it parses.
std::string error_of(const std::string& json) {
  try {
    parse_topology_json(json, "t.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("ranges expand: a-b, lists, prefix and suffix") {
  using detail::expand_range;
  CHECK(expand_range("gpu[0-2]", "f", "/p") == std::vector<std::string>{"gpu0", "gpu1", "gpu2"});
  CHECK(expand_range("x[1,3-4]y", "f", "/p") == std::vector<std::string>{"x1y", "x3y", "x4y"});
  CHECK(expand_range("cpu", "f", "/p") == std::vector<std::string>{"cpu"});
  CHECK_THROWS_WITH(expand_range("gpu[7-0]", "f", "/p"), "f: /p: bad range 'gpu[7-0]': 7 > 0");
  CHECK_THROWS_WITH(expand_range("gpu[0-7", "f", "/p"), doctest::Contains("unbalanced"));
  CHECK_THROWS_WITH(expand_range("g[0-1][0-1]", "f", "/p"), doctest::Contains("only one"));
  CHECK_THROWS_WITH(expand_range("gpu[a-b]", "f", "/p"), doctest::Contains("not an index"));
  CHECK_THROWS_WITH(expand_range("gpu[]", "f", "/p"), doctest::Contains("not an index"));
}

TEST_CASE("one-to-one, fan-in and fan-out links, bandwidth = count x unit GBps") {
  Topology t = parse_topology_json(
      with(kDevs, R"({"from": "gpu[0-3]", "to": "nvs", "type": "nvlink4", "count": 18},
                     {"from": "gpu[0-1]", "to": "psw[0-1]", "type": "pcie5", "count": 16},
                     {"from": "psw0", "to": "nic[0-1]", "type": "pcie5", "count": 8, "bw_GBps": 20})"),
      "t.json");
  CHECK(t.name == "t");
  CHECK(t.device_count() == 9);
  REQUIRE(t.link_count() == 4 + 2 + 2);
  // 18 NVLink4 links x 25 GB/s = 450 GB/s per direction.
  CHECK(t.link(0).bw_GBps == doctest::Approx(450));
  CHECK(t.link(0).kind == LinkKind::NVLink);
  CHECK(t.link(0).efficiency == doctest::Approx(0.844));
  CHECK(t.device(t.link(3).a).id == "gpu3");
  // one-to-one: gpu1 -- psw1; x16 Gen5 = 16 x 4 = 64 GB/s.
  CHECK(t.device(t.link(5).a).id == "gpu1");
  CHECK(t.device(t.link(5).b).id == "psw1");
  CHECK(t.link(5).bw_GBps == doctest::Approx(64));
  CHECK(t.link(5).count == 16);
  // fan-out with an explicit bandwidth override.
  CHECK(t.device(t.link(7).b).id == "nic1");
  CHECK(t.link(7).bw_GBps == 20);
  // single-server file: node 0, local_index per type in order of appearance.
  CHECK(t.device(*t.find("gpu2")).local_index == 2);
  CHECK(t.device(*t.find("nic1")).local_index == 1);
  CHECK(t.device(*t.find("psw0")).local_index == 0);
  CHECK(t.device(*t.find("nic1")).node == 0);
  CHECK(t.node_count() == 1);
}

TEST_CASE("malformed JSON reports the line and column") {
  const std::string text = "{\n  \"name\": \"t\",\n  \"devices\": [,]\n}";
  // Line 3 is `  "devices": [,]`: 2 spaces + 10 chars + space + `[` put the comma at column 15.
  CHECK(error_of(text).find("t.json: line 3, column 15: malformed JSON") == 0);
}

TEST_CASE("unknown link type: JSON pointer and did-you-mean") {
  const std::string e =
      error_of(with(kDevs, R"({"from": "gpu0", "to": "nvs", "type": "nvlink4", "count": 18},
      {"from": "gpu1", "to": "nvs", "type": "nvlnk4"})"));
  CHECK(e ==
        "t.json: /links/1/type: unknown link type 'nvlnk4'; did you mean 'nvlink4', 'nvlink3', "
        "'nvlink5'?");
}

TEST_CASE("dangling device id in a range") {
  CHECK(error_of(with(kDevs, R"({"from": "gpu[0-4]", "to": "nvs", "type": "nvlink4"})"))
            .find("t.json: /links/0/from: unknown device id 'gpu4'") == 0);
}

TEST_CASE("range length mismatch") {
  CHECK(error_of(with(kDevs, R"({"from": "gpu[0-3]", "to": "psw[0-1]", "type": "pcie5"})")) ==
        "t.json: /links/0: 'from' expands to 4 devices and 'to' to 2; ranges must have equal "
        "lengths, or one side must be a single device");
}

TEST_CASE("device errors: duplicate id, unknown type, unknown GPU and NIC models, bad range") {
  CHECK(error_of(with(kDevs + R"(, {"id": "gpu[3-4]", "type": "gpu", "model": "H20"})", ""))
            .find("t.json: /devices/4/id: duplicate device id 'gpu3'") == 0);
  CHECK(error_of(with(R"({"id": "x", "type": "gpux"})", ""))
            .find("t.json: /devices/0/type: unknown device type 'gpux'; did you mean 'gpu'") == 0);
  CHECK(error_of(with(R"({"id": "x", "type": "gpu", "model": "H2O"})", ""))
            .find("t.json: /devices/0/model: unknown GPU model 'H2O'; did you mean 'H20'") == 0);
  CHECK(error_of(with(R"({"id": "x", "type": "gpu"})", "")) ==
        "t.json: /devices/0/model: missing field");
  CHECK(error_of(with(R"({"id": "n", "type": "nic", "model": "CX7"})", ""))
            .find("t.json: /devices/0/model: unknown NIC model 'CX7'") == 0);
  CHECK(error_of(with(R"({"id": "g[1-0]", "type": "gpu", "model": "H20"})", ""))
            .find("t.json: /devices/0/id: bad range") == 0);
}

TEST_CASE("field errors: typo'd keys, bad counts, bad overrides, missing arrays") {
  CHECK(error_of(with(kDevs, R"({"from": "gpu0", "to": "nvs", "type": "nvlink4", "cout": 18})"))
            .find("t.json: /links/0/cout: unknown field 'cout'; did you mean 'count'") == 0);
  CHECK(error_of(with(kDevs, R"({"from": "gpu0", "to": "nvs", "type": "nvlink4", "count": 0})")) ==
        "t.json: /links/0/count: must be >= 1, got 0");
  CHECK(
      error_of(with(kDevs, R"({"from": "gpu0", "to": "nvs", "type": "nvlink4", "bw_GBps": -5})")) ==
      "t.json: /links/0/bw_GBps: must be 0.001 to 1000000 GB/s (docs/limits.md), got -5");
  CHECK(error_of(with(kDevs, R"({"from": "gpu0", "to": 3, "type": "nvlink4"})")) ==
        "t.json: /links/0/to: expected a string, got 3");  // the reader names what it found
  CHECK(error_of(R"({"name": "t", "devices": []})") == "t.json: /links: missing field");
  CHECK(error_of(R"({"name": "t", "devices": {}, "links": []})") ==
        "t.json: /devices: expected an array");
  CHECK(error_of("[1]") == "t.json: /: expected an object");
}

TEST_CASE("structural problems are left to validate()") {
  Topology t = parse_topology_json(
      with(kDevs, R"({"from": "gpu[0-1]", "to": "nvs", "type": "nvlink4", "count": 18},
                     {"from": "gpu2", "to": "gpu2", "type": "nvlink4"})"),
      "t.json");
  const auto diags = t.validate();
  CHECK(diags.size() >= 4);  // self-link, gpu2/gpu3 unreachable, idle switches and NICs
  bool self = false, unreachable = false;
  for (const auto& d : diags) {
    self = self || d.message.find("self-link") != std::string::npos;
    unreachable = unreachable ||
                  (d.location == "gpu3" && d.message.find("no path to GPU") != std::string::npos);
  }
  CHECK(self);
  CHECK(unreachable);
}

TEST_CASE("cluster files: the fabric is checked before the cluster is generated") {
  const std::string base =
      R"({"name": "c", "cluster": {"server": "hgx-h20-8", "count": 4, "fabric": )";
  CHECK(error_of(base + R"({"kind": "rail"}}})")
            .find("t.json: /cluster/fabric/kind: unknown fabric 'rail'") == 0);
  CHECK(error_of(base + R"({"link": "ib-ndr"}}})")
            .find("t.json: /cluster/fabric/link: unknown link type") == 0);
  CHECK(
      error_of(R"({"name": "c", "cluster": {"server": "hgx-h2-8", "count": 2}})")
          .find("t.json: /cluster/server: unknown topology 'hgx-h2-8'; did you mean 'hgx-h20-8'") ==
      0);
  CHECK(error_of(R"({"name": "c", "cluster": {"server": "hgx-h20-8", "count": 0}})") ==
        "t.json: /cluster/count: must be >= 1, got 0");
}

TEST_CASE("the example in docs/topology-format.md parses and validates") {
  const std::string doc =
      read_text_file(std::string(TOPOPLAN_SOURCE_DIR) + "/docs/topology-format.md");
  const auto start = doc.find("```json\n");
  REQUIRE(start != std::string::npos);
  const auto end = doc.find("```", start + 8);
  Topology t = parse_topology_json(doc.substr(start + 8, end - start - 8), "docs example");
  CHECK(t.name == "mini-h20-4");
  CHECK(t.gpus().size() == 4);
  CHECK(t.link_count() == 4 + 2 + 2 + 2 + 2);
  CHECK(t.validate().empty());
}

TEST_CASE("every bad entry is reported at once, links to a failed device are not reported twice") {
  const std::string e = error_of(with(
      R"({"id": "gpu[0-1]", "type": "gpu", "model": "H20"}, {"id": "x", "type": "gpu", "model": "H2O"},
         {"id": "nvs", "type": "nvswitch"})",
      R"({"from": "gpu[0-1]", "to": "nvs", "type": "nvlnk4"}, {"from": "x", "to": "nvs", "type": "nvlink4"},
         {"from": "gpu0", "to": "nvz", "type": "nvlink4"})"));
  // First problem in the location, the others on following lines, in file order.
  CHECK(e.find("t.json: /devices/1/model: unknown GPU model 'H2O'") == 0);
  CHECK(e.find("\nt.json: /links/0/type: unknown link type 'nvlnk4'") != std::string::npos);
  CHECK(e.find("\nt.json: /links/2/to: unknown device id 'nvz'") != std::string::npos);
  CHECK(e.find("/links/1") == std::string::npos);  // 'x' already failed as a device
  bool thrown = false;
  try {
    parse_topology_json(with(R"({"id": "x", "type": "gpu", "model": "H2O"})", ""), "t.json");
  } catch (const InputError& err) {
    thrown = true;
    CHECK(err.source() == "t.json");
    CHECK(err.location() == "/devices/0/model");
  }
  CHECK(thrown);
}

TEST_CASE("hand-written multi-server file: \"node\" per device, local_index per node and type") {
  Topology t = parse_topology_json(
      with(R"({"id": "a/gpu[0-1]", "type": "gpu", "model": "H20", "node": 0},
              {"id": "b/gpu[0-1]", "type": "gpu", "model": "H20", "node": 1},
              {"id": "a/nic0", "type": "nic", "model": "ConnectX-7", "node": 0},
              {"id": "b/nic0", "type": "nic", "model": "ConnectX-7", "node": 1},
              {"id": "a/sw", "type": "pcie-switch"}, {"id": "b/sw", "type": "pcie-switch", "node": 1},
              {"id": "leaf0", "type": "net-switch"})",
           R"({"from": "a/gpu[0-1]", "to": "a/sw", "type": "pcie5", "count": 16},
              {"from": "b/gpu[0-1]", "to": "b/sw", "type": "pcie5", "count": 16},
              {"from": "a/nic0", "to": "a/sw", "type": "pcie5", "count": 16},
              {"from": "b/nic0", "to": "b/sw", "type": "pcie5", "count": 16},
              {"from": "a/nic0", "to": "leaf0", "type": "ib-ndr400"},
              {"from": "b/nic0", "to": "leaf0", "type": "ib-ndr400"})"),
      "t.json");
  CHECK(t.node_count() == 2);
  const int b1 = *t.find("b/gpu1");
  CHECK(t.device(b1).node == 1);
  CHECK(t.device(b1).local_index == 1);
  CHECK(t.gpus_of_node(1) == std::vector<int>{*t.find("b/gpu0"), b1});
  CHECK(t.nics_of_node(1) == std::vector<int>{*t.find("b/nic0")});
  CHECK(t.device(*t.find("b/nic0")).local_index == 0);
  CHECK(t.device(*t.find("leaf0")).node == -1);
  CHECK(t.device(*t.find("leaf0")).tier == 1);
  CHECK(t.validate().empty());
  CHECK(error_of(with(R"({"id": "g", "type": "gpu", "model": "H20", "node": -2})", "")) ==
        "t.json: /devices/0/node: must be >= -1, got -2");
}

TEST_CASE("a GPU model given by alias is stored under its catalog name") {
  const Topology t = parse_topology_json(
      with(
          R"({"id": "gpu[0-1]", "type": "gpu", "model": "NVIDIA H100 80GB HBM3"}, {"id": "s", "type": "nvswitch"})",
          R"({"from": "gpu[0-1]", "to": "s", "type": "nvlink4", "count": 18})"),
      "t.json");
  CHECK(t.device(0).model == "H100-SXM");
  CHECK(t.gpu_spec(0).hbm_GBps == 3350);
}

namespace {
// A file defining its own link and GPU kinds (the shape of examples/custom-accelerator).
const std::string kOwnCatalog = R"("catalog": {
  "links": [{"name": "fabric-x", "kind": "nvlink", "GBps": 64, "efficiency": 0.5, "latency_us": 0.3, "source": "s"}],
  "gpus": [{"name": "AccelX", "vendor_name": "x", "sm_version": 90, "memory_GB": 192, "hbm_GBps": 5300,
            "bf16_TFLOPS": 1000, "fp16_TFLOPS": 1000, "nvlink_type": "fabric-x", "nvlink_count": 3,
            "nvlink_GBps": 192, "pcie_type": "pcie5", "pcie_lanes": 16, "power_W": 750, "source": "s"}]},)";

std::string own(const std::string& catalog_text) {
  return "{\"name\": \"own\", " + catalog_text +
         R"( "devices": [{"id": "gpu[0-3]", "type": "gpu", "model": "AccelX"}],
  "links": [{"from": "gpu[0-2]", "to": "gpu[1-3]", "type": "fabric-x", "count": 1},
            {"from": "gpu0", "to": "gpu3", "type": "fabric-x", "count": 1}]})";
}
}  // namespace

TEST_CASE("a topology file can define its own GPU and link kinds beside the built-in catalog") {
  const Topology t = parse_topology_json(own(kOwnCatalog), "own.json");
  CHECK(t.gpu_spec(t.gpus()[0]).hbm_GBps == 5300);
  CHECK(t.catalog().find_gpu("H100") != nullptr);           // the built-in kinds are still there
  CHECK(Catalog::builtin().find_gpu("AccelX") == nullptr);  // and the built-in catalog untouched
  CHECK(t.link(0).bw_GBps == 64);                           // count 1 x 64 GB/s
  CHECK(t.link(0).efficiency == 0.5);
  CHECK(t.validate().empty());  // 2 fabric links per GPU x 64 = 128 <= nvlink_GBps 192
  const Topology copy = t;      // copies share the catalog
  CHECK(copy.gpu_spec(copy.gpus()[3]).name == "AccelX");
}

TEST_CASE("errors in a file's own catalog name the JSON pointer under /catalog") {
  auto with_catalog = [](const std::string& from, const std::string& to) {
    std::string c = kOwnCatalog;
    return own(c.replace(c.find(from), from.size(), to));
  };
  CHECK(error_of(with_catalog("\"hbm_GBps\": 5300", "\"hbm_GBps\": -1")) ==
        "t.json: /catalog/gpus/0/hbm_GBps: must be 1 to 1000000 GB/s (docs/limits.md), got -1");
  // Plausible ranges, not only signs (issue 29): a denormal rate gave a wrong, plausible plan.
  CHECK(error_of(with_catalog("\"hbm_GBps\": 5300", "\"hbm_GBps\": 5e-324")) ==
        "t.json: /catalog/gpus/0/hbm_GBps: must be 1 to 1000000 GB/s (docs/limits.md), got 5e-324");
  CHECK(error_of(with(kDevs,
                      R"({"from": "gpu0", "to": "nvs", "type": "nvlink4", "bw_GBps": 5e-324})")) ==
        "t.json: /links/0/bw_GBps: must be 0.001 to 1000000 GB/s (docs/limits.md), got 5e-324");
  CHECK(error_of(with(kDevs,
                      R"({"from": "gpu0", "to": "nvs", "type": "nvlink4", "efficiency": 1e-9})")) ==
        "t.json: /links/0/efficiency: must be 0.01 to 1 (docs/limits.md), got 1e-09");
  CHECK(error_of(with_catalog("\"nvlink_type\": \"fabric-x\"", "\"nvlink_type\": \"fabric-y\""))
            .find("t.json: /catalog/gpus/0/nvlink_type: unknown link type 'fabric-y'") == 0);
  CHECK(error_of(with_catalog("\"name\": \"fabric-x\"", "\"name\": \"nvlink4\"")) ==
        "t.json: /catalog/links/0/name: duplicate name 'nvlink4'");
  CHECK(error_of(with_catalog("\"gpus\": [", "\"gpu\": ["))
            .find("t.json: /catalog/gpu: unknown field") == 0);
  CHECK(error_of(
            with_catalog("\"name\": \"AccelX\"", "\"name\": \"AccelX\", \"aliases\": [\"H100\"]"))
            .find("/catalog/gpus/0/aliases: name 'H100' already belongs to 'H100-SXM'") !=
        std::string::npos);
}

TEST_CASE("the custom-accelerator example parses: 8 GPUs, every pair one Infinity Fabric link") {
  const std::string path =
      std::string(TOPOPLAN_SOURCE_DIR) + "/examples/custom-accelerator/mi300x-like-8.json";
  const Topology t = load_topology(path);
  REQUIRE(t.gpus().size() == 8);
  int fabric = 0;
  for (std::size_t i = 0; i < t.link_count(); ++i)
    fabric += t.link(static_cast<int>(i)).type == "infinity-fabric";
  CHECK(fabric == 28);  // 8 x 7 / 2 pairs
  const GpuSpec& g = t.gpu_spec(t.gpus()[0]);
  CHECK(g.memory_bytes == doctest::Approx(192e9));
  CHECK(g.nvlink_count * t.catalog().link(g.nvlink_type).GBps ==
        doctest::Approx(g.nvlink_GBps));  // 7 x 64 = 448
  CHECK(t.validate().empty());
}

TEST_CASE("ids: empty, too long and repeated inside one range are located input errors") {
  const std::string gpu = R"("type": "gpu", "model": "H20"})";
  CHECK(error_of(with(R"({"id": "", )" + gpu, "")) == "t.json: /devices/0/id: empty device id");
  CHECK(error_of(with(R"({"id": "gpu[0-3,2]", )" + gpu, "")) ==
        "t.json: /devices/0/id: duplicate device id 'gpu2'");
  CHECK(error_of(with(R"({"id": "gpu[0-7]", )" + gpu + R"(, {"id": "gpu0", )" + gpu, "")) ==
        "t.json: /devices/1/id: duplicate device id 'gpu0'");
  CHECK(error_of(with(R"({"id": ")" + std::string(257, 'g') + R"(", )" + gpu, "")) ==
        "t.json: /devices/0/id: device id longer than 256 characters (docs/limits.md)");
}

TEST_CASE("ranges and totals are capped before anything is allocated") {
  // 131,072 ids in one range is the cap; one more is refused, as is a prefix that would make
  // ids past 256 characters (9 digits of index + 248 of prefix = 257).
  CHECK(detail::expand_range("g[0-131071]", "t.json", "/x").size() == 131072);
  CHECK_THROWS_WITH_AS(detail::expand_range("g[0-131072]", "t.json", "/x"),
                       doctest::Contains("expands to more than 131072 ids"), InputError);
  CHECK_THROWS_WITH_AS(detail::expand_range(std::string(248, 'p') + "[0-1]", "t.json", "/x"),
                       doctest::Contains("ids longer than 256"), InputError);
  // Two ranges of 100,000 GPUs: the second passes the 131,072-GPU cap (and names its entry).
  const std::string two = with(R"({"id": "a[0-99999]", "type": "gpu", "model": "H20"},
                                  {"id": "b[0-99999]", "type": "gpu", "model": "H20"})",
                               "");
  CHECK(error_of(two) ==
        "t.json: /devices/1: more than 131072 GPUs in one topology "
        "(docs/limits.md)");
}

TEST_CASE("link latency, bandwidth and count have upper bounds, a huge node does not wrap") {
  const std::string l = R"({"from": "gpu[0-3]", "to": "nvs", "type": "nvlink4", )";
  CHECK(error_of(with(kDevs, l + R"("latency_us": 1e308})"))
            .find("t.json: /links/0/latency_us: must be 0 to 1000000 us") == 0);
  CHECK(error_of(with(kDevs, l + R"("bw_GBps": 1e300})"))
            .find("t.json: /links/0/bw_GBps: must be 0.001 to 1000000 GB/s") == 0);
  // 1e9 links of 25 GB/s (nvlink4) = 2.5e10 GB/s, past 1e6.
  CHECK(error_of(with(kDevs, l + R"("count": 1000000000})"))
            .find("t.json: /links/0/count: 1000000000 x nvlink4 is more than 1000000") == 0);
  CHECK(error_of(
            with(R"({"id": "g", "type": "gpu", "model": "H20", "node": 18446744073709551615})", ""))
            .find("/devices/0/node: must be <= 1000000000") != std::string::npos);
}

TEST_CASE("a cluster's server count is capped by GPUs and devices before copies are made") {
  ClusterOptions o;
  o.nodes = 16385;  // x 8 GPUs = 131,080 > 131,072
  CHECK_THROWS_WITH_AS(make_cluster(load_topology("hgx-h100-8"), o),
                       doctest::Contains("16385 servers of 8 GPUs"), InputError);
  // From the command line the error names the flag, not make_cluster's option name.
  CHECK_THROWS_WITH_AS(load_topology("hgx-h100-8", o), doctest::Contains("--nodes: 16385 servers"),
                       InputError);
}

// Issue 27: server groups of different kinds on one fabric (docs/topology-format.md, "Mixed
// clusters"), in a cluster file and from make_mixed_cluster.
TEST_CASE("mixed clusters: groups in node order, one fabric, pools rebuilt alone") {
  const Topology h200 = load_topology("hgx-h200-8"), h20 = load_topology("hgx-h20-8");
  ClusterOptions o;
  const Topology t = make_mixed_cluster({{&h200, 2}, {&h20, 3}}, o);
  CHECK(t.node_count() == 5);
  REQUIRE(t.gpus().size() == 40);
  // GPUs in node order: 2 x 8 H200 first, then 3 x 8 H20.
  CHECK(t.device(t.gpus()[15]).model == h200.device(h200.gpus()[0]).model);
  CHECK(t.device(t.gpus()[16]).model == "H20");
  CHECK(t.device(t.gpus()[16]).id.str().rfind("n2/", 0) == 0);
  CHECK(t.device(t.gpus()[16]).id.server() == 2);
  REQUIRE(t.fabric.groups.size() == 2);
  CHECK(t.fabric.groups[1].server == "hgx-h20-8");
  CHECK(t.fabric.groups[1].nodes == 3);
  CHECK(t.name == "hgx-h200-8-x2+hgx-h20-8-x3");
  CHECK(t.validate().empty());
  // Rail-optimized: 8 rails (one leaf each: 5 ports), every server's NIC r on rail r, so the
  // leaves hold 8 x 5 NIC links.
  int leaves = 0, fabric_links = 0;
  for (std::size_t i = 0; i < t.device_count(); ++i)
    leaves += t.device(static_cast<int>(i)).type == DeviceType::NetSwitch;
  for (std::size_t i = 0; i < t.link_count(); ++i)
    fabric_links += t.link(static_cast<int>(i)).kind == LinkKind::Network;
  CHECK(leaves == 8);
  CHECK(fabric_links == 40);
  // A pool priced alone: the H20 group as a 3-server cluster of its own.
  const Topology pool = pool_cluster(t, 2, 3);
  CHECK(pool.gpus().size() == 24);
  CHECK(pool.name == "hgx-h20-8-x3");
  CHECK(pool.uniform_gpu_spec("test").name == "H20");
  CHECK(pool.device(pool.gpus()[0]).id == "n0/" + h20.device(h20.gpus()[0]).id);
  // One group: the same cluster make_cluster generates.
  ClusterOptions two;
  two.nodes = 2;
  const Topology same = make_mixed_cluster({{&h20, 2}}, two), ref = make_cluster(h20, two);
  CHECK(same.name == ref.name);
  CHECK(same.device_count() == ref.device_count());
  CHECK(same.link_count() == ref.link_count());
  CHECK(same.fabric.groups.empty());
}

TEST_CASE("mixed clusters: a cluster file's \"servers\" list, errors located") {
  const Topology t = parse_topology_json(
      R"({"name": "pd", "cluster": {"servers": [{"server": "hgx-h200-8", "count": 1},
          {"server": "hgx-h20-8", "count": 2}], "fabric": {"kind": "rail-optimized"}}})",
      "pd.json");
  CHECK(t.name == "pd");
  CHECK(t.gpus().size() == 24);
  CHECK(t.fabric.groups.size() == 2);
  CHECK(error_of(R"({"name": "c", "cluster": {"server": "hgx-h20-8", "servers": []}})") ==
        "t.json: /cluster/servers: give either \"servers\" or \"server\" and \"count\"");
  CHECK(
      error_of(R"({"name": "c", "cluster": {"servers": [{"server": "hgx-h20-8", "count": 0}]}})") ==
      "t.json: /cluster/servers/0/count: must be >= 1, got 0");
  CHECK(error_of(R"({"name": "c", "cluster": {"servers": [{"server": "hgx-h2-8", "count": 1}]}})")
            .find("t.json: /cluster/servers/0/server: unknown topology 'hgx-h2-8'") == 0);
}
