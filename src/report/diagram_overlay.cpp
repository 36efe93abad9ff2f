// Plan overlay: reads the best plan of a `plan --json` document, colours its GPUs by group and
// finds, for each group kind, the narrowest link on the first group's paths (the link the
// planner's GroupSummary reports as its bottleneck) to highlight with that kind's time per step.
#include "report/diagram_overlay.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "io/json_reader.hpp"
#include "report/plan_report.hpp"
#include "report/table.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/route.hpp"

namespace topoplan::report {

namespace {

using nlohmann::json;

// ColorBrewer Set3 (12 pastel classes, qualitative), readable under black labels.
const char* const kGroupColours[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
                                     "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
                                     "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};
constexpr int kColours = 12;

struct Rank {
  int device = -1;
  int tp = 0, pp = 0, dp = 0;
};

struct PlanView {
  int tp = 1, pp = 1, dp = 1, ep = 1;
  std::vector<Rank> ranks;
};

using io::JsonReader;

// A figure of the plan for the caption: absent or null is 0, anything else a number >= 0.
double figure(const JsonReader& r, const char* key) {
  return r.number(key, 0, false);
}

// A parallel degree of the strategy: 1 to the topology's GPU count.
int degree(const JsonReader& s, const char* key, int gpus) {
  const int d = s.integer(key, 1);
  if (d > gpus)
    s.fail(s.pointer_to(key), "must be at most " + std::to_string(gpus) +
                                  " (the GPUs of the topology), got " + std::to_string(d));
  return d;
}

// A rank index: 0 to `count` - 1 (`count` = the strategy's degree named `of`). A rank out of
// range indexed past the group tables (SIGSEGV).
int rank_index(const JsonReader& r, const char* key, int count, const char* of) {
  const int i = r.integer(key, 0);
  if (i >= count)
    r.fail(r.pointer_to(key), "must be below " + std::to_string(count) + " (the strategy's " + of +
                                  "), got " + std::to_string(i));
  return i;
}

// [first, last] of a run: two whole numbers, first <= last.
std::pair<int, int> range_of(const JsonReader& r, const char* key) {
  const json& a = r.at(key);
  if (!a.is_array() || a.size() != 2 || !a[0].is_number_integer() || !a[1].is_number_integer() ||
      a[0].get<long long>() < 0 || a[1].get<long long>() < a[0].get<long long>() ||
      a[1].get<long long>() > 1'000'000'000)
    r.fail(r.pointer_to(key), "expected [first, last], whole numbers with 0 <= first <= last");
  return {a[0].get<int>(), a[1].get<int>()};
}

// A placement written as runs of whole servers (plan --json beyond 4,096 ranks, issue 32): ranks
// fill servers nodes[0]..nodes[1], each server's GPUs gpus[0]..gpus[1]; tp/pp/dp from the order.
void read_runs(const Topology& t, const JsonReader& plan, PlanView& v) {
  const JsonReader runs = plan.object("placement_runs");
  const Strategy s{.tp = v.tp, .pp = v.pp, .dp = v.dp, .ep = v.ep};
  PlacementOrder order{};
  try {
    order = parse_placement_order(runs.str("order"));
  } catch (const UnknownNameError& e) {
    runs.fail(runs.pointer_to("order"), e.detail());
  }
  const long long ranks = static_cast<long long>(v.tp) * v.pp * v.dp;
  if (runs.number("ranks", 0, true) != static_cast<double>(ranks))
    runs.fail(runs.pointer_to("ranks"), "must be tp x pp x dp = " + std::to_string(ranks));
  std::map<std::pair<int, int>, int> gpu_at;  // (node, local GPU) → device
  std::set<int> used;
  for (int d : t.gpus()) gpu_at[{t.device(d).node, t.device(d).local_index}] = d;
  const json& list = runs.at("runs");
  if (!list.is_array()) runs.fail(runs.pointer_to("runs"), "expected an array");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonReader r = JsonReader::object_at(list[i], plan.source(),
                                               runs.pointer_to("runs") + "/" + std::to_string(i));
    const std::pair<int, int> nodes = range_of(r, "nodes"), gpus = range_of(r, "gpus");
    int rank = r.integer("rank", 0);
    if (rank != static_cast<int>(v.ranks.size()))
      r.fail(r.pointer_to("rank"), "must be " + std::to_string(v.ranks.size()) +
                                       " (the ranks of the runs before it, in rank order)");
    for (int n = nodes.first; n <= nodes.second; ++n)
      for (int g = gpus.first; g <= gpus.second; ++g, ++rank) {
        const auto dev = gpu_at.find({n, g});
        if (dev == gpu_at.end())
          r.fail(r.pointer(), "no GPU " + std::to_string(g) + " on server " + std::to_string(n) +
                                  " of topology '" + t.name + "'");
        if (rank >= ranks) r.fail(r.pointer(), "more ranks than tp x pp x dp");
        if (!used.insert(dev->second).second)
          r.fail(r.pointer(), "GPU " + std::to_string(g) + " of server " + std::to_string(n) +
                                  " holds a rank of an earlier run too");
        const RankCoords c = rank_coords(s, order, rank);
        v.ranks.push_back({dev->second, c.tp, c.pp, c.dp});
      }
  }
  // Every rank once (each run starts where the last ended, so none is missing in between).
  if (static_cast<long long>(v.ranks.size()) != ranks)
    runs.fail(runs.pointer_to("runs"), "the runs hold " + std::to_string(v.ranks.size()) +
                                           " ranks, not tp x pp x dp = " + std::to_string(ranks));
}

// A plan drawn on other hardware would show its figures under the wrong title (an H800 plan's
// TTFT on H100s): the plan's request must name this topology, its GPU and its GPU count. Plans
// without a request (hand-written) are let through.
void check_same_topology(const Topology& t, const JsonReader& top) {
  if (!top.has("request")) return;
  const JsonReader r = top.object("request");
  const std::string name = r.str_or("topology", t.name);
  const std::string gpu = r.str_or("gpu", "");
  const std::string here_gpu = t.gpus().empty() ? "" : t.device(t.gpus().front()).model;
  const long long gpus = r.integer_or("topology_gpus", -1);
  const long long here = static_cast<long long>(t.gpus().size());
  if (name == t.name && (gpu.empty() || gpu == here_gpu) && (gpus < 0 || gpus == here)) return;
  r.fail(r.pointer(), "the plan was made for '" + name + "' (" +
                          (gpus < 0 ? std::string("?") : std::to_string(gpus)) + " x " + gpu +
                          "), not '" + t.name + "' (" + std::to_string(here) + " x " + here_gpu +
                          "): render the topology the plan was made for (same name and --nodes)");
}

PlanView read_view(const Topology& t, const JsonReader& plan) {
  PlanView v;
  const JsonReader s = plan.object("strategy");
  const int gpus = static_cast<int>(t.gpus().size());
  v.tp = degree(s, "tp", gpus);
  v.pp = degree(s, "pp", gpus);
  v.dp = degree(s, "dp", gpus);
  v.ep = degree(s, "ep", gpus);
  if (static_cast<long long>(v.tp) * v.pp * v.dp > gpus)
    s.fail(s.pointer(),
           "tp x pp x dp = " + std::to_string(static_cast<long long>(v.tp) * v.pp * v.dp) +
               " is more than the " + std::to_string(gpus) + " GPUs of topology '" + t.name + "'");
  if (plan.has("placement_runs") && !plan.has("placement")) {
    read_runs(t, plan, v);
    return v;
  }
  const json& placement = plan.at("placement");
  if (!placement.is_array() || placement.empty())
    plan.fail(plan.pointer_to("placement"), "the best plan has no placement");
  for (std::size_t i = 0; i < placement.size(); ++i) {
    const JsonReader r = JsonReader::object_at(
        placement[i], plan.source(), plan.pointer_to("placement") + "/" + std::to_string(i));
    const std::string id = r.str("device");
    const auto dev = t.find(id);
    if (!dev || t.device(*dev).type != DeviceType::Gpu)
      r.fail(r.pointer_to("device"), "no GPU '" + id + "' in topology '" + t.name +
                                         "' (render the topology the plan was made for)");
    v.ranks.push_back({*dev, rank_index(r, "tp_rank", v.tp, "tp"),
                       rank_index(r, "pp_rank", v.pp, "pp"), rank_index(r, "dp_rank", v.dp, "dp")});
  }
  return v;
}

// Group id of a rank for the colouring, and the group's name.
int group_of(const PlanView& v, const Rank& r, ColorBy by) {
  const int tp_group = r.dp * v.pp + r.pp;
  switch (by) {
    case ColorBy::Tp:
      return tp_group;
    case ColorBy::Pp:
      return r.pp;
    case ColorBy::Dp:
      return r.dp;
    case ColorBy::Ep:
      return tp_group * (v.tp / std::max(v.ep, 1)) + r.tp / std::max(v.ep, 1);
  }
  return 0;
}

const char* group_name(ColorBy by) {
  switch (by) {
    case ColorBy::Tp:
      return "TP group";
    case ColorBy::Pp:
      return "PP stage";
    case ColorBy::Ep:
      return "EP group";
    case ColorBy::Dp:
      return "DP replica";
  }
  return "group";
}

// Members (device indices, in ring order) of the first group of `kind`.
std::vector<int> first_group(const PlanView& v, const std::string& kind) {
  std::vector<int> m;
  for (const Rank& r : v.ranks) {
    if (kind == "tp" && r.pp == 0 && r.dp == 0) m.push_back(r.device);
    if (kind == "ep" && r.pp == 0 && r.dp == 0 && r.tp < v.ep) m.push_back(r.device);
    if (kind == "pp" && r.tp == 0 && r.dp == 0) m.push_back(r.device);
    if (kind == "dp" && r.tp == 0 && r.pp == 0) m.push_back(r.device);
  }
  return m;
}

// The decode-step time term of each group kind (plan JSON breakdown keys, docs/planner.md).
const char* term_of(const std::string& kind) {
  if (kind == "tp") return "tp_allreduce_us";
  if (kind == "ep") return "ep_alltoall_us";
  if (kind == "pp") return "pp_sendrecv_us";
  return "dp_gather_us";
}

void add_highlights(const Topology& t, const PlanView& v, const JsonReader& plan, Overlay& o) {
  if (!plan.has("groups")) return;
  const json& groups = plan.at("groups");
  if (!groups.is_array()) plan.fail(plan.pointer_to("groups"), "expected an array");
  const JsonReader decode = plan.object("breakdown").object("decode");
  const double total_us = figure(decode, "total_us");
  Router router(t);
  std::map<int, std::string> labels;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const JsonReader g = JsonReader::object_at(groups[i], plan.source(),
                                               plan.pointer_to("groups") + "/" + std::to_string(i));
    const std::string kind = g.str("kind");
    if (kind != "tp" && kind != "ep" && kind != "pp" && kind != "dp")
      g.fail(g.pointer_to("kind"), "expected tp, ep, pp or dp, got '" + kind + "'");
    if (g.integer_or("size", 0) <= 1) continue;
    const int link = bottleneck_link(router, first_group(v, kind), kind == "ep");
    if (link < 0) continue;
    const double us = figure(decode, term_of(kind));
    std::string text = kind;
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    text += " bottleneck: " + g.str_or("bottleneck_link", t.link(link).type) + ", " +
            fmt("%g", figure(g, "bottleneck_GBps")) + " GB/s";
    if (total_us > 0)
      text += ", " + fmt("%.3g", us / 1e3) + " ms/step (" + fmt("%.0f", 100 * us / total_us) + "%)";
    std::string& l = labels[link];
    l += (l.empty() ? "" : "\n") + text;
  }
  for (const auto& [link, text] : labels) o.highlights.push_back({link, text});
}

std::string caption_of(const JsonReader& doc, const JsonReader& plan, const PlanView& v) {
  const std::string model =
      doc.has("request") ? doc.object("request").str_or("model", "?") : std::string("?");
  std::string c = "plan: " + model + ", ";
  c += "tp" + std::to_string(v.tp) + " pp" + std::to_string(v.pp) + " dp" + std::to_string(v.dp) +
       " ep" + std::to_string(v.ep) +
       (plan.object("strategy").boolean_or("attention_dp", false) ? " adp" : "");
  c += " | TTFT " + fmt("%.1f", figure(plan, "ttft_ms")) + " ms, TPOT " +
       fmt("%.2f", figure(plan, "tpot_ms")) + " ms, batch " + fmt("%.0f", figure(plan, "batch")) +
       ", " + fmt("%.0f", figure(plan, "tokens_per_s")) + " tok/s (" +
       fmt("%.1f", figure(plan, "tokens_per_s_per_gpu")) + "/GPU, " +
       fmt("%.1f", figure(plan, "tokens_per_s_per_user")) + "/user)";
  return c;
}

}  // namespace

int bottleneck_link(const Router& router, const std::vector<int>& members, bool all_pairs) {
  int best = -1;
  double best_bw = 0;
  auto scan = [&](int a, int b) {
    for (DirLink h : router.path(a, b).hops) {
      const double bw = router.topology().bw_GBps(h);
      if (best < 0 || bw < best_bw) best = link_of(h), best_bw = bw;
    }
  };
  const std::size_t n = members.size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = all_pairs ? 0 : i + 1; j < (all_pairs ? n : std::min(i + 2, n)); ++j)
      if (members[i] != members[j % n]) scan(members[i], members[j % n]);
  return best;
}

ColorBy parse_color_by(const std::string& text) {
  if (text == "tp") return ColorBy::Tp;
  if (text == "pp") return ColorBy::Pp;
  if (text == "ep") return ColorBy::Ep;
  if (text == "dp") return ColorBy::Dp;
  throw FieldError("color_by", "expected tp, pp, ep or dp, got '" + text + "'");
}

Overlay overlay_from_plan_json(const Topology& t, const std::string& json_text,
                               const std::string& source, ColorBy by) {
  // The one reader: line:column for syntax, the JSON pointer for every key the overlay uses
  // (a plan file is input like any other: ranks, types and required keys are checked).
  const json doc = io::parse_json_text(json_text, source);
  const JsonReader top = JsonReader::object_at(doc, source, "");
  if (!top.has("plans") || !top.at("plans").is_array() || top.at("plans").empty())
    top.fail("/plans", "no plans (is this `topoplan plan --json` output?)");
  const JsonReader plan = JsonReader::object_at(top.at("plans")[0], source, "/plans/0");
  plan.at("fits");  // "missing field"
  if (!plan.boolean_or("fits", false))
    plan.fail("/plans/0/fits", "the best plan does not fit; nothing to draw");
  check_same_topology(t, top);
  Overlay o;
  const PlanView v = read_view(t, plan);
  int groups = 0;
  for (const Rank& r : v.ranks) {
    const int g = group_of(v, r, by);
    groups = std::max(groups, g + 1);
    o.fill[r.device] = kGroupColours[g % kColours];
    o.tag[r.device] = "TP" + std::to_string(r.dp * v.pp + r.pp) + "." + std::to_string(r.tp) +
                      (v.pp > 1 ? " PP" + std::to_string(r.pp) : "") +
                      (v.dp > 1 ? " DP" + std::to_string(r.dp) : "");
  }
  for (int g = 0; g < std::min(groups, kColours); ++g)
    o.fill_legend.emplace_back(kGroupColours[g],
                               std::string(group_name(by)) + " " + std::to_string(g) +
                                   (groups > kColours ? " (and every 12th after it)" : ""));
  o.pp_chain.assign(static_cast<std::size_t>(v.pp), -1);
  for (const Rank& r : v.ranks)
    if (r.tp == 0 && r.dp == 0) o.pp_chain[static_cast<std::size_t>(r.pp)] = r.device;
  std::erase(o.pp_chain, -1);  // a placement without some stage draws the stages it has
  add_highlights(t, v, plan, o);
  o.caption = caption_of(top, plan, v);
  return o;
}

Overlay overlay_from_plan_file(const Topology& t, const std::string& path, ColorBy by) {
  return overlay_from_plan_json(t, read_text_file(path), path, by);
}

Overlay overlay_from_plan(const Topology& t, const PlanOutput& out, ColorBy by) {
  std::ostringstream json_text;
  print_plan_json(json_text, out, /*placement_detail=*/true);
  return overlay_from_plan_json(t, json_text.str(), "plan", by);
}

void render_plan(const Topology& t, const PlanOutput& out, ColorBy by, const std::string& path) {
  const Overlay overlay = overlay_from_plan(t, out, by);
  DiagramOptions o;
  o.overlay = &overlay;
  write_diagram(build_diagram(t, o), diagram_format_of_path(path), path);
}

}  // namespace topoplan::report
