// `topoplan model list|show` (roofline lives in cmd_roofline.cpp): flags here, figures from
// model/, text from report/.
#include <iostream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/model_options.hpp"
#include "report/model_report.hpp"
#include "topoplan/error.hpp"
#include "topoplan/model.hpp"

namespace topoplan::cli {

namespace {

struct ModelArgs {
  std::string model;
  bool json = false;
  double batch = 1, context = 4096, prompt = 4096;
  int tp = 1, ep = 1;
  PrecisionOptions precision;
  const CLI::Option* context_flag = nullptr;
  const CLI::Option* prompt_flag = nullptr;
};

int run_list(const ModelArgs& a) {
  std::vector<ModelSpec> models;
  for (const auto& name : builtin_model_names()) models.push_back(load_model(name));
  report::print_model_list(std::cout, models, a.json);
  return 0;
}

int run_show(const ModelArgs& a) {
  ModelSpec m = load_model_with(a.model, a.precision);
  report::ModelShowOptions o;
  o.decode.batch = a.batch;
  o.decode.context = context_of(*a.context_flag, a.context, m);
  // Untyped, the default prompt is capped at the model's context as the context is (GPT-3: 2048).
  o.prefill.new_tokens = context_of(*a.prompt_flag, a.prompt, m);
  o.shard = Shard{.tp = a.tp, .ep = a.ep};
  o.validate(m);
  report::print_model_show(std::cout, m, o, a.json);
  return 0;
}

}  // namespace

void add_model_command(CLI::App& app, Action& action) {
  auto* sub = app.add_subcommand("model", "model catalog: parameters, memory, per-layer cost");
  sub->require_subcommand(1);
  add_example(*sub, "topoplan model show llama-3.1-70b --precision fp8 --tp 4");
  auto args = std::make_shared<ModelArgs>();

  auto* list = sub->add_subcommand("list", "built-in models with parameter counts");
  add_example(*list, "topoplan model list --json");
  list->add_flag("--json", args->json, "print JSON (stable keys, see docs/model-format.md)");
  list->callback([&action, args] { action = [args] { return run_list(*args); }; });

  auto* show =
      sub->add_subcommand("show", "parameters by part, bytes per dtype, KV cache, per-layer FLOPs");
  show->add_option("model", args->model, "built-in name, model JSON or Hugging Face config.json")
      ->required();
  show->add_flag("--json", args->json, "print JSON (stable keys, see docs/model-format.md)");
  show->add_option("--batch", args->batch, "decode batch (sequences)")->capture_default_str();
  args->context_flag =
      show->add_option("--context", args->context, "decode context length already cached")
          ->capture_default_str();
  args->prompt_flag = show->add_option("--prompt", args->prompt,
                                       "prefill prompt length (at most the model's context)")
                          ->capture_default_str();
  show->add_option("--tp", args->tp, "tensor parallel degree")
      ->check(positive_count())
      ->capture_default_str();
  show->add_option("--ep", args->ep, "expert parallel degree")
      ->check(positive_count())
      ->capture_default_str();
  add_precision_flags(*show, args->precision);
  add_example(*show, "topoplan model show deepseek-r1 --tp 8 --ep 8 --batch 64");
  show->callback([&action, args] { action = [args] { return run_show(*args); }; });

  add_model_roofline_subcommand(*sub, action);
}

}  // namespace topoplan::cli
