// Disaggregated-serving overlay (`plan --disagg --render`): the prefill pool's GPUs in one
// colour and the decode pool's in another (plan_disagg puts the prefill pool on the topology's
// first GPUs and the decode pool on the next, disagg.cpp), each tagged with its pool and replica,
// and the narrowest link of the first KV stream highlighted with the transfer's figures.
#include "report/diagram_overlay.hpp"

#include "report/table.hpp"
#include "topoplan/error.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

// ColorBrewer Set3 orange and blue (the overlay's palette): prefill, decode.
constexpr const char* kPrefillColour = "#fdb462";
constexpr const char* kDecodeColour = "#80b1d3";

std::string pool_text(const char* name, const DisaggPool& p) {
  return std::string(name) + " pool: " + std::to_string(p.gpus) + " x " + p.gpu + ", " +
         to_string(p.strategy);
}

// Fill and tag `p.gpus` GPUs from `first` on: "P r2" is replica 2 of the prefill pool.
void fill_pool(const Topology& t, const DisaggPool& p, std::size_t first, const char* colour,
               const char* letter, Overlay& o) {
  const std::vector<int>& gpus = t.gpus();
  const int per_replica = std::max(1, p.strategy.tp * p.strategy.pp);
  for (int i = 0; i < p.gpus; ++i) {
    const int dev = gpus[first + static_cast<std::size_t>(i)];
    o.fill[dev] = colour;
    o.tag[dev] = std::string(letter) + " r" + std::to_string(i / per_replica);
  }
}

void add_kv_highlight(const Topology& t, const ModelSpec& m, const DisaggResult& r, Overlay& o) {
  const auto pairs = kv_stream_ranks(m, r.prefill.strategy, r.decode.strategy);
  if (pairs.empty()) return;
  const std::vector<int>& gpus = t.gpus();
  const int src = gpus[static_cast<std::size_t>(pairs.front().first)];
  const int dst = gpus[static_cast<std::size_t>(r.prefill.gpus + pairs.front().second)];
  const Router router(t);
  const int link = bottleneck_link(router, {src, dst}, false);
  if (link < 0) return;
  o.highlights.push_back({link, "KV transfer: " + t.link(link).type + ", " +
                                    fmt("%.1f", r.kv.time_ms) + " ms/request over " +
                                    std::to_string(r.kv.streams) + " stream(s), " +
                                    format_bytes_binary(r.kv.bytes_per_request)});
}

}  // namespace

Overlay overlay_from_disagg(const Topology& t, const ModelSpec& m, const DisaggOutput& out) {
  if (!out.best) throw FieldError("disagg", "no split meets the limits; nothing to draw");
  const DisaggResult& r = *out.best;
  const std::size_t used = static_cast<std::size_t>(r.prefill.gpus + r.decode.gpus);
  if (used > t.gpus().size())
    throw InternalError("disagg overlay: pools hold more GPUs than the topology");
  Overlay o;
  fill_pool(t, r.prefill, 0, kPrefillColour, "P", o);
  fill_pool(t, r.decode, static_cast<std::size_t>(r.prefill.gpus), kDecodeColour, "D", o);
  o.fill_legend = {{kPrefillColour, pool_text("prefill", r.prefill)},
                   {kDecodeColour, pool_text("decode", r.decode)}};
  add_kv_highlight(t, m, r, o);
  o.highlight_legend = "narrowest link of the first KV stream (time per request)";
  o.caption = "disaggregated: " + out.model + ", " + r.ratio + " | TTFT " + fmt("%.0f", r.ttft_ms) +
              " ms, TPOT " + fmt("%.1f", r.tpot_ms) + " ms, " + fmt("%.2f", r.requests_per_s) +
              " req/s, goodput " + count_text(r.goodput_tokens_per_s) + " tok/s (" +
              fmt("%.1f", r.goodput_tokens_per_s_per_gpu) + "/GPU), bound by " + r.bottleneck;
  return o;
}

void render_disagg(const Topology& t, const ModelSpec& m, const DisaggOutput& out,
                   const std::string& path) {
  const Overlay overlay = overlay_from_disagg(t, m, out);
  DiagramOptions o;
  o.overlay = &overlay;
  write_diagram(build_diagram(t, o), diagram_format_of_path(path), path);
}

}  // namespace topoplan::report
