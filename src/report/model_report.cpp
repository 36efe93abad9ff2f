#include "report/model_report.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "report/json_number.hpp"
#include "report/table.hpp"
#include "report/text_prefix.hpp"
#include "topoplan/error.hpp"
#include "topoplan/units.hpp"

namespace topoplan::report {

namespace {

using nlohmann::ordered_json;

std::string attention_name(const ModelSpec& m) {
  if (m.attention == AttentionKind::Mla) return "MLA";
  if (m.kv_heads == m.heads) return "MHA";
  return m.kv_heads == 1 ? "MQA" : "GQA";
}

std::string arch_name(const ModelSpec& m) {
  return std::string(m.is_moe() ? "MoE " : "dense ") + attention_name(m);
}

std::string format_name(const WeightFormat& f) {
  std::string s(to_string(f.dtype));
  if (f.scale_block_elems > 0) {
    // Appended piecewise: `"+" + std::string(...)` trips GCC 12's -O3 -Wrestrict false positive.
    s += '+';
    s += to_string(f.scale_dtype);
    s += " scales";
  }
  return s;
}

// Parameter counts: "671.03 B", or "2.01 M" when too small to show in billions.
std::string billions(double n) {
  if (n == 0) return "0";
  return n < 1e7 ? fmt("%.2f M", n / 1e6) : fmt("%.2f B", n / 1e9);
}

// The layer types present, with their counts, in order (dense first).
std::vector<std::pair<LayerType, int>> layer_groups(const ModelSpec& m) {
  std::vector<std::pair<LayerType, int>> g;
  for (LayerType t : {LayerType::Dense, LayerType::Moe})
    if (int n = layer_count(m, t); n > 0) g.emplace_back(t, n);
  return g;
}

ordered_json cost_json(const KernelCost& c) {
  return {{"flops", json_number(c.flops)},
          {"bytes", json_number(c.bytes)},
          {"weight_bytes", json_number(c.weight_bytes)},
          {"kv_bytes", json_number(c.kv_bytes)}};
}

ordered_json kernels_json(const std::vector<KernelCost>& ks) {
  ordered_json arr = ordered_json::array();
  for (const auto& k : ks) {
    ordered_json j{
        {"name", k.name}, {"kind", to_string(k.kind)}, {"math_dtype", to_string(k.math_dtype)}};
    j.update(cost_json(k));
    j["m"] = json_number(k.m);
    j["n"] = json_number(k.n);
    j["k"] = json_number(k.k);
    j["groups"] = json_number(k.groups);
    arr.push_back(j);
  }
  return arr;
}

ordered_json workload_json(const Workload& w) {
  return {{"phase", to_string(w.phase)},
          {"batch", json_number(w.batch)},
          {"new_tokens", json_number(w.new_tokens)},
          {"context", json_number(w.context)}};
}

ordered_json breakdown_json(const ParamBreakdown& b) {
  ordered_json j;
  for (std::size_t i = 0; i < kPartCount; ++i)
    j[std::string(to_string(static_cast<Part>(i)))] = json_number(b.by_part[i]);
  j["sum"] = json_number(b.sum());
  return j;
}

// Weight bytes grouped by storage format ("fp8+fp32 scales", "bf16").
std::map<std::string, double> bytes_by_format(const ModelSpec& m, const ParamBreakdown& b) {
  std::map<std::string, double> out;
  for (std::size_t i = 0; i < kPartCount; ++i) {
    WeightFormat f = m.dtypes.format(static_cast<Part>(i));
    if (b.by_part[i] > 0) out[format_name(f)] += b.by_part[i] * f.bytes_per_element();
  }
  return out;
}

// One row of the per-layer cost: a layer type (or the head) with its kernels, computed once
// and rendered by both the JSON and the table.
struct LayerRow {
  std::string type;
  int count = 0;
  std::vector<KernelCost> decode, prefill;
};

std::vector<LayerRow> layer_rows(const ModelSpec& m, const ModelShowOptions& o) {
  std::vector<LayerRow> rows;
  for (auto [t, n] : layer_groups(m))
    rows.push_back({std::string(to_string(t)), n, layer_kernels(m, t, o.decode, o.shard),
                    layer_kernels(m, t, o.prefill, o.shard)});
  rows.push_back(
      {"head", 1, head_kernels(m, o.decode, o.shard), head_kernels(m, o.prefill, o.shard)});
  return rows;
}

ordered_json show_json(const ModelSpec& m, const ModelShowOptions& o) {
  ParamCount c = count_params(m);
  ordered_json j{{"name", m.name}, {"description", m.description}, {"sources", m.sources}};
  j["architecture"] = {{"kind", m.is_moe() ? "moe" : "dense"},
                       {"attention", attention_name(m)},
                       {"hidden_size", m.hidden},
                       {"layers", m.layers},
                       {"vocab_size", m.vocab},
                       {"max_context", m.max_context},
                       {"heads", m.heads},
                       {"kv_heads", m.kv_heads},
                       {"head_dim", m.head_dim},
                       {"tied_embeddings", m.tied_embeddings},
                       {"dense_layers", layer_count(m, LayerType::Dense)},
                       {"moe_layers", layer_count(m, LayerType::Moe)},
                       {"mtp_modules", m.mtp_modules}};
  j["params"] = {{"total", breakdown_json(c.total)},
                 {"active", breakdown_json(c.active)},
                 {"mtp", json_number(c.mtp)}};
  ordered_json fmt_bytes;
  for (const auto& [name, bytes] : bytes_by_format(m, c.total))
    fmt_bytes[name] = json_number(bytes);
  j["weight_bytes"] = {{"total", json_number(weight_bytes(m, c.total))}, {"by_format", fmt_bytes}};
  j["kv_cache"] = {{"dtype", to_string(m.dtypes.kv_cache)},
                   {"bytes_per_token", json_number(kv_bytes_per_token(m))}};
  ShardLayout layout{.shard = o.shard};
  j["per_gpu"] = {{"tp", o.shard.tp},
                  {"ep", o.shard.ep},
                  {"weight_bytes", json_number(weight_bytes_per_gpu(m, layout))},
                  {"kv_bytes_per_token", json_number(kv_bytes_per_token(m, o.shard))}};
  ordered_json layers = ordered_json::array();
  for (const LayerRow& r : layer_rows(m, o))
    layers.push_back({{"type", r.type},
                      {"count", r.count},
                      {"decode", cost_json(total_cost(r.decode))},
                      {"prefill", cost_json(total_cost(r.prefill))},
                      {"decode_kernels", kernels_json(r.decode)}});
  j["per_layer"] = {
      {"shard", {{"tp", o.shard.tp}, {"ep", o.shard.ep}, {"attention_dp", o.shard.attention_dp}}},
      {"decode", workload_json(o.decode)},
      {"prefill", workload_json(o.prefill)},
      {"layers", layers}};
  return j;
}

void print_params(std::ostream& os, const ModelSpec& m, const ParamCount& c) {
  Table t({"part", "total", "active", "format", "bytes"});
  for (std::size_t i = 0; i < kPartCount; ++i) {
    Part p = static_cast<Part>(i);
    if (c.total.by_part[i] == 0 && c.active.by_part[i] == 0) continue;
    WeightFormat f = m.dtypes.format(p);
    t.add_row({std::string(to_string(p)), billions(c.total.by_part[i]),
               billions(c.active.by_part[i]), format_name(f),
               format_bytes_binary(c.total.by_part[i] * f.bytes_per_element())});
  }
  t.add_row({"total", billions(c.total.sum()), billions(c.active.sum()), "",
             format_bytes_binary(weight_bytes(m, c.total))});
  os << "Parameters (active: per token; the embedding is a row gather, not counted)\n";
  t.print(os, "  ");
  if (c.mtp > 0)
    os << "  MTP modules: " << billions(c.mtp) << " more (not in total; embedding/head shared)\n";
}

void print_costs(std::ostream& os, const ModelSpec& m, const ModelShowOptions& o) {
  os << "Per-layer cost per GPU (tp=" << o.shard.tp << ", ep=" << o.shard.ep
     << "): decode step of batch " << o.decode.batch << " at context " << o.decode.context
     << "; prefill of " << o.prefill.new_tokens << " tokens, per token\n";
  Table t({"layer", "count", "decode GFLOP", "decode MB", "of which KV MB", "prefill MFLOP/tok",
           "prefill KB/tok"});
  auto row = [&](const std::string& name, int n, const KernelCost& d, const KernelCost& p) {
    double toks = o.prefill.tokens();
    t.add_row({name, std::to_string(n), fmt("%.3f", d.flops / 1e9), fmt("%.2f", d.bytes / 1e6),
               fmt("%.2f", d.kv_bytes / 1e6), fmt("%.1f", p.flops / toks / 1e6),
               fmt("%.1f", p.bytes / toks / 1e3)});
  };
  for (const LayerRow& r : layer_rows(m, o))
    row(r.type, r.count, total_cost(r.decode), total_cost(r.prefill));
  t.print(os, "  ");
}

}  // namespace

void print_model_list(std::ostream& os, const std::vector<ModelSpec>& models, bool json) {
  if (json) {
    ordered_json arr = ordered_json::array();
    for (const auto& m : models) {
      ParamCount c = count_params(m);
      arr.push_back({{"name", m.name},
                     {"arch", arch_name(m)},
                     {"total_params", json_number(c.total.sum())},
                     {"active_params", json_number(c.active.sum())},
                     {"layers", m.layers},
                     {"hidden_size", m.hidden},
                     {"weight_dtype", to_string(m.dtypes.weights.dtype)},
                     {"expert_dtype", m.is_moe() ? ordered_json(to_string(
                                                       m.dtypes.format(Part::RoutedExperts).dtype))
                                                 : ordered_json(nullptr)},
                     {"max_context", m.max_context},
                     {"kv_bytes_per_token", json_number(kv_bytes_per_token(m))}});
    }
    os << ordered_json{{"models", arr}}.dump(2) << "\n";
    return;
  }
  Table t({"name", "arch", "total", "active", "layers", "hidden", "context", "dtype", "KV/token"});
  for (const auto& m : models) {
    ParamCount c = count_params(m);
    // "bf16/fp4" when the experts are stored differently (gpt-oss: MXFP4 experts).
    std::string dtype(to_string(m.dtypes.weights.dtype));
    const Dtype experts = m.dtypes.format(Part::RoutedExperts).dtype;
    if (m.is_moe() && experts != m.dtypes.weights.dtype)
      dtype += "/" + std::string(to_string(experts));
    // Contexts are powers-of-two multiples of 1024 tokens: "128K" for 131072.
    std::string context = m.max_context % 1024 == 0 ? std::to_string(m.max_context / 1024) + "K"
                                                    : std::to_string(m.max_context);
    t.add_row({m.name, arch_name(m), billions(c.total.sum()), billions(c.active.sum()),
               std::to_string(m.layers), std::to_string(m.hidden), context, dtype,
               format_bytes_binary(kv_bytes_per_token(m))});
  }
  t.print(os);
}

void print_model_show(std::ostream& os, const ModelSpec& m, const ModelShowOptions& o, bool json) {
  if (json) {
    os << show_json(m, o).dump(2) << "\n";
    return;
  }
  ParamCount c = count_params(m);
  os << m.name << ": " << text_prefix(m.description) << "\n";
  os << "  " << arch_name(m) << ", " << m.layers << " layers";
  if (m.is_moe()) {
    os << " (" << layer_count(m, LayerType::Dense) << " dense, " << layer_count(m, LayerType::Moe)
       << " MoE: " << m.moe.num_experts << " experts, top-" << m.moe.top_k << ", "
       << m.moe.num_shared_experts << " shared)";
  }
  os << ", hidden " << m.hidden << ", " << m.heads << " heads";
  if (m.attention == AttentionKind::Mha) os << " / " << m.kv_heads << " KV heads of " << m.head_dim;
  os << ", vocab " << m.vocab << ", context " << m.max_context << "\n";
  os << "  weights " << format_name(m.dtypes.weights) << ", KV cache "
     << to_string(m.dtypes.kv_cache) << ", activations " << to_string(m.dtypes.activations)
     << "\n\n";
  print_params(os, m, c);
  os << "\nKV cache: " << fmt("%.0f", kv_bytes_per_token(m)) << " B per token ("
     << format_bytes_binary(kv_bytes_per_token(m)) << ")\n";
  if (o.shard.tp > 1 || o.shard.ep > 1) {
    os << "Per GPU at tp=" << o.shard.tp << ", ep=" << o.shard.ep << ": weights "
       << format_bytes_binary(weight_bytes_per_gpu(m, ShardLayout{.shard = o.shard}))
       << ", KV cache " << fmt("%.0f", kv_bytes_per_token(m, o.shard)) << " B per token\n";
  }
  os << "\n";
  print_costs(os, m, o);
  for (const auto& s : m.sources)
    os << (&s == &m.sources.front() ? "\nSources:\n" : "") << "  " << s << "\n";
}

void ModelShowOptions::validate(const ModelSpec& m) const {
  require_batch(decode.batch);
  require_prompt_within(prefill.new_tokens, m);  // a prompt is read into the context too
  require_context_within(decode.context, m);
  if (auto problem = shard_problem(m, shard)) throw FieldError("tp/ep", *problem);
}

}  // namespace topoplan::report
