// The JSON document of every result, as a string: the same text, byte for byte, that the
// matching `topoplan ... --json` command prints (its keys are the contract documented in
// docs/planner.md, docs/training.md, docs/collective-model.md, docs/model-format.md,
// docs/compute-model.md and docs/report.md). A library user builds the result with the library
// and renders it here; nlohmann/json stays inside the library.
#pragma once

#include <string>
#include <vector>

#include "topoplan/collective.hpp"
#include "topoplan/disagg.hpp"
#include "topoplan/model.hpp"
#include "topoplan/perf.hpp"
#include "topoplan/plan.hpp"
#include "topoplan/train.hpp"

namespace topoplan {

namespace report {

// What `collective` reports besides the costs: which ranks, on which topology, in which dtype.
struct CollectiveReport {
  CollOp op = CollOp::AllReduce;
  std::string topology;            // topology name
  int nodes = 1;                   // servers spanned by the ranks
  std::vector<std::string> ranks;  // device ids in rank order (the first group's)
  // Several groups priced at once (--ranks repeated): each group's ids; empty for one group.
  // results then hold the slowest group's cost per size.
  std::vector<std::vector<std::string>> groups;
  std::string pattern;  // send-recv: "ring" or "pair" (JSON "pattern"); empty for other ops
  std::string dtype = "fp32";
  double element_bytes = 4;
  std::vector<CollectiveCost> results;  // one per message size
  // --algo all: every algorithm/protocol that can run, at every size (JSON "alternatives").
  std::vector<CollectiveCost> alternatives;
};

// The per-layer cost section of `model show`: one decode step and one prefill, on one shard.
struct ModelShowOptions {
  Workload decode{.phase = Phase::Decode, .batch = 1, .new_tokens = 1, .context = 4096};
  Workload prefill{.phase = Phase::Prefill, .batch = 1, .new_tokens = 4096, .context = 0};
  Shard shard;
  // The shared field rules (batch, prompt = prefill tokens, context) and shard_problem as
  // FieldError("tp/ep").
  void validate(const ModelSpec& m) const;
};

// What `model roofline` reports besides the kernels: the GPU, where its curves come from, the
// workload and shard priced.
struct RooflineContext {
  std::string model, gpu;
  double peak_hbm_GBps = 0;
  bool bandwidth_override = false;
  bool curves_measured = false;
  std::string provenance;
  Workload workload;
  Shard shard;
  std::string weight_format;                 // describe_gemm_formats of the model as run
  std::vector<std::string> precision_notes;  // formats run weight-only on this GPU
};

struct Comparison;  // topoplan/compare.hpp

}  // namespace report

std::string to_json(const PlanOutput& plan);                      // plan
std::string to_json(const TrainingResult& train);                 // plan --mode train
std::string to_json(const report::CollectiveReport& collective);  // collective
std::string to_json(const ModelSpec& model,
                    const report::ModelShowOptions& options = {});  // model show
std::string to_json(const report::RooflineContext& context,
                    const RooflineResult& roofline);        // model roofline
std::string to_json(const report::Comparison& comparison);  // compare
std::string to_json(const DisaggOutput& disagg);            // plan --disagg

}  // namespace topoplan
