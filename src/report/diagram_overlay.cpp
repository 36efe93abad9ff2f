// Plan overlay: reads the best plan of a `plan --json` document, colours its GPUs by group and
// finds, for each group kind, the narrowest link on the first group's paths (the link the
// planner's GroupSummary reports as its bottleneck) to highlight with that kind's time per step.
#include "report/diagram_overlay.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

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

double number(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

int integer(const json& j, const char* key, const std::string& where, const std::string& source) {
  if (!j.contains(key) || !j[key].is_number_integer())
    throw InputError(source, where + "/" + key, "expected an integer");
  return j[key].get<int>();
}

PlanView read_view(const Topology& t, const json& plan, const std::string& source) {
  PlanView v;
  const json& s = plan.at("strategy");
  v.tp = integer(s, "tp", "/plans/0/strategy", source);
  v.pp = integer(s, "pp", "/plans/0/strategy", source);
  v.dp = integer(s, "dp", "/plans/0/strategy", source);
  v.ep = integer(s, "ep", "/plans/0/strategy", source);
  if (!plan.contains("placement") || !plan["placement"].is_array() || plan["placement"].empty())
    throw InputError(source, "/plans/0/placement", "the best plan has no placement");
  std::size_t i = 0;
  for (const json& r : plan["placement"]) {
    const std::string where = "/plans/0/placement/" + std::to_string(i++);
    const std::string id = r.value("device", "");
    const auto dev = t.find(id);
    if (!dev)
      throw InputError(source, where + "/device",
                       "device '" + id + "' is not in topology '" + t.name +
                           "' (render the topology the plan was made for)");
    v.ranks.push_back({*dev, integer(r, "tp_rank", where, source),
                       integer(r, "pp_rank", where, source), integer(r, "dp_rank", where, source)});
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

// The narrowest link on the paths between consecutive members (all pairs for EP's all-to-all).
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

// The decode-step time term of each group kind (plan JSON breakdown keys, docs/planner.md).
const char* term_of(const std::string& kind) {
  if (kind == "tp") return "tp_allreduce_us";
  if (kind == "ep") return "ep_alltoall_us";
  if (kind == "pp") return "pp_sendrecv_us";
  return "dp_gather_us";
}

void add_highlights(const Topology& t, const PlanView& v, const json& plan, Overlay& o) {
  if (!plan.contains("groups") || !plan["groups"].is_array()) return;
  Router router(t);
  const json& decode = plan["breakdown"]["decode"];
  const double total_us = number(decode, "total_us");
  std::map<int, std::string> labels;
  for (const json& g : plan["groups"]) {
    const std::string kind = g.value("kind", "");
    if (g.value("size", 0) <= 1) continue;
    const int link = bottleneck_link(router, first_group(v, kind), kind == "ep");
    if (link < 0) continue;
    const double us = number(decode, term_of(kind));
    std::string text = kind;
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    text += " bottleneck: " + g.value("bottleneck_link", t.link(link).type) + ", " +
            fmt("%g", number(g, "bottleneck_GBps")) + " GB/s";
    if (total_us > 0)
      text += ", " + fmt("%.3g", us / 1e3) + " ms/step (" + fmt("%.0f", 100 * us / total_us) + "%)";
    std::string& l = labels[link];
    l += (l.empty() ? "" : "\n") + text;
  }
  for (const auto& [link, text] : labels) o.highlights.push_back({link, text});
}

std::string caption_of(const json& doc, const json& plan) {
  const json& r = doc.value("request", json::object());
  std::string c = "plan: " + r.value("model", std::string("?")) + ", ";
  const json& s = plan["strategy"];
  c += "tp" + std::to_string(s.value("tp", 1)) + " pp" + std::to_string(s.value("pp", 1)) + " dp" +
       std::to_string(s.value("dp", 1)) + " ep" + std::to_string(s.value("ep", 1)) +
       (s.value("attention_dp", false) ? " adp" : "");
  c += " | TTFT " + fmt("%.1f", number(plan, "ttft_ms")) + " ms, TPOT " +
       fmt("%.2f", number(plan, "tpot_ms")) + " ms, batch " + fmt("%.0f", number(plan, "batch")) +
       ", " + fmt("%.0f", number(plan, "tokens_per_s")) + " tok/s (" +
       fmt("%.1f", number(plan, "tokens_per_s_per_gpu")) + "/GPU, " +
       fmt("%.1f", number(plan, "tokens_per_s_per_user")) + "/user)";
  return c;
}

}  // namespace

ColorBy parse_color_by(const std::string& text) {
  if (text == "tp") return ColorBy::Tp;
  if (text == "pp") return ColorBy::Pp;
  if (text == "ep") return ColorBy::Ep;
  if (text == "dp") return ColorBy::Dp;
  throw FieldError("color_by", "expected tp, pp, ep or dp, got '" + text + "'");
}

Overlay overlay_from_plan_json(const Topology& t, const std::string& json_text,
                               const std::string& source, ColorBy by) {
  const json doc = io::parse_json_text(json_text, source);  // the one reader: line:column errors
  if (!doc.contains("plans") || !doc["plans"].is_array() || doc["plans"].empty())
    throw InputError(source, "/plans", "no plans (is this `topoplan plan --json` output?)");
  const json& plan = doc["plans"][0];
  if (!plan.value("fits", false))
    throw InputError(source, "/plans/0/fits", "the best plan does not fit; nothing to draw");
  Overlay o;
  try {
    const PlanView v = read_view(t, plan, source);
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
    add_highlights(t, v, plan, o);
  } catch (const json::exception& e) {
    throw InputError(source, "/plans/0", std::string("malformed plan: ") + e.what());
  }
  o.caption = caption_of(doc, plan);
  return o;
}

Overlay overlay_from_plan_file(const Topology& t, const std::string& path, ColorBy by) {
  return overlay_from_plan_json(t, read_text_file(path), path, by);
}

Overlay overlay_from_plan(const Topology& t, const PlanOutput& out, ColorBy by) {
  std::ostringstream json_text;
  print_plan_json(json_text, out);
  return overlay_from_plan_json(t, json_text.str(), "plan", by);
}

void render_plan(const Topology& t, const PlanOutput& out, ColorBy by, const std::string& path) {
  const Overlay overlay = overlay_from_plan(t, out, by);
  DiagramOptions o;
  o.overlay = &overlay;
  write_diagram(build_diagram(t, o), diagram_format_of_path(path), path);
}

}  // namespace topoplan::report
