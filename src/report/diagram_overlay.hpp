// A plan drawn on its topology: GPUs filled by group, each group kind's bottleneck link
// highlighted with its load, a caption with the strategy and headline figures. Built from the
// `topoplan plan --json` document (the interchange format `topo render --plan` reads back).
#pragma once

#include <string>
#include <vector>

#include "report/diagram.hpp"
#include "topoplan/disagg.hpp"
#include "topoplan/plan.hpp"
#include "topoplan/route.hpp"

namespace topoplan::report {

enum class ColorBy { Tp, Pp, Ep, Dp };
ColorBy parse_color_by(const std::string& text);  // "tp", "pp", "ep", "dp"; InputError otherwise

// From the best plan (plans[0]) of a `plan --json` document. Throws InputError naming `source`
// and the JSON pointer when the document is malformed or names a device `t` does not have.
Overlay overlay_from_plan_json(const Topology& t, const std::string& json_text,
                               const std::string& source, ColorBy by);
Overlay overlay_from_plan_file(const Topology& t, const std::string& path, ColorBy by);
// The overlay of a PlanOutput: its own --json read back (one path for both uses).
Overlay overlay_from_plan(const Topology& t, const PlanOutput& out, ColorBy by);
// The narrowest link on the paths between consecutive `members` (device indices; all pairs for
// an all-to-all): the link an overlay highlights for a group. -1 when they share no link.
int bottleneck_link(const Router& router, const std::vector<int>& members, bool all_pairs);

// `plan --disagg --render FILE`: the prefill and decode pools of the best split coloured, each
// GPU tagged with its pool and replica, the first KV stream's narrowest link highlighted.
Overlay overlay_from_disagg(const Topology& t, const ModelSpec& m, const DisaggOutput& out);
void render_disagg(const Topology& t, const ModelSpec& m, const DisaggOutput& out,
                   const std::string& path);

// `plan --render FILE`: the plan's own JSON read back through overlay_from_plan_json, drawn on
// `t` (format from FILE's extension).
void render_plan(const Topology& t, const PlanOutput& out, ColorBy by, const std::string& path);

}  // namespace topoplan::report
