// Helpers shared by the launch emitters (launch_serve.cpp, launch_train.cpp). Private to report/.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace topoplan::report {

// `flag` if launch_flags() cites it for `engine`; InternalError otherwise (a flag without a
// source is a bug, never printed).
std::string_view launch_flag(std::string_view engine, std::string_view flag);

// One shell command: environment assignments, the program, then one argument per line.
class LaunchCommand {
 public:
  // `program` is itself a cited row of `engine` ("vllm serve", "torchrun").
  LaunchCommand(std::string_view engine, std::string_view program)
      : program_(launch_flag(engine, program)) {}
  LaunchCommand& env(std::string_view engine, std::string_view var, const std::string& value) {
    env_ += std::string(launch_flag(engine, var)) + "=" + value + " ";
    return *this;
  }
  // A cited flag with an optional value.
  LaunchCommand& arg(std::string_view engine, std::string_view flag,
                     const std::string& value = "") {
    args_.push_back(std::string(launch_flag(engine, flag)) + (value.empty() ? "" : " " + value));
    return *this;
  }
  // A positional argument (the model) or a wrapped program, printed as given.
  LaunchCommand& positional(const std::string& text) {
    args_.push_back(text);
    return *this;
  }
  // Words placed before the program (a launcher such as mpirun and its own flags).
  LaunchCommand& prefix(const std::string& text) {
    prefix_ += text + " ";
    return *this;
  }
  std::string str() const {
    std::string out = env_ + prefix_ + program_;
    for (const std::string& a : args_) out += " \\\n    " + a;
    return out + "\n";
  }

 private:
  std::string env_, prefix_, program_;
  std::vector<std::string> args_;
};

// Where one engine rank of an instance runs.
struct LaunchSlot {
  int node = 0;  // the topology's server index (device ids "n<node>/gpu<gpu>")
  int gpu = 0;   // GPU index on that server
};

// The servers an instance spans, in the order its ranks fill them, and whether the engine's
// contiguous layout (ranks 0..k-1 on the first server, ...) is the plan's.
struct LaunchNodes {
  std::vector<int> nodes;              // server indices
  std::vector<std::vector<int>> gpus;  // per server: its GPUs in rank order
  bool contiguous = true;
};
LaunchNodes launch_nodes(const std::vector<LaunchSlot>& ranks);

// "0,1,2,3" for CUDA_VISIBLE_DEVICES; empty when the GPUs are 0..k-1 in order (the default).
std::string visible_devices(const std::vector<int>& gpus);
// "# n1: GPUs 0-7 -> ranks 8-15" lines describing the layout.
std::string layout_comment(const LaunchNodes& n, int first_rank = 0);
// The Hugging Face repository of a model (from its sources), else its name.
std::string model_path_of(const std::vector<std::string>& sources, const std::string& name);
// Megatron-Core's --pipeline-model-parallel-layout for `layers` decoder layers over pp x vp
// stages, the first layers mod (pp·vp) stages holding one layer more (the plan's split), e.g.
// 56 layers, pp 8, vp 6: "Ett|(tt|)*7(t|)*39tL".
std::string megatron_pipeline_layout(int layers, int pp, int vp);
// "${N<node>_ADDR}": the address placeholder of a server.
std::string node_addr(int node);

}  // namespace topoplan::report
