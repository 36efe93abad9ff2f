// Layout helpers of the launch emitters (launch_internal.hpp).
#include <algorithm>

#include "report/launch_internal.hpp"

namespace topoplan::report {

LaunchNodes launch_nodes(const std::vector<LaunchSlot>& ranks) {
  LaunchNodes n;
  for (const LaunchSlot& s : ranks) {
    const auto it = std::find(n.nodes.begin(), n.nodes.end(), s.node);
    if (it == n.nodes.end()) {
      n.nodes.push_back(s.node);
      n.gpus.push_back({s.gpu});
    } else {
      n.gpus[static_cast<std::size_t>(it - n.nodes.begin())].push_back(s.gpu);
    }
  }
  // The engines give server i ranks [i*k, (i+1)*k): the plan's layout must be the same.
  const std::size_t k = n.nodes.empty() ? 0 : ranks.size() / n.nodes.size();
  for (std::size_t r = 0; r < ranks.size() && k > 0; ++r)
    if (r / k >= n.nodes.size() || ranks[r].node != n.nodes[r / k]) n.contiguous = false;
  return n;
}

std::string visible_devices(const std::vector<int>& gpus) {
  bool natural = true;
  for (std::size_t i = 0; i < gpus.size(); ++i)
    if (gpus[i] != static_cast<int>(i)) natural = false;
  if (natural) return "";
  std::string out;
  for (const int g : gpus) out += (out.empty() ? "" : ",") + std::to_string(g);
  return out;
}

namespace {
std::string span(const std::vector<int>& v) {
  bool run = true;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i] != v[i - 1] + 1) run = false;
  if (v.size() > 1 && run) return std::to_string(v.front()) + "-" + std::to_string(v.back());
  std::string out;
  for (const int x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}
}  // namespace

std::string layout_comment(const LaunchNodes& n, int first_rank) {
  std::string out;
  int rank = first_rank;
  const std::size_t count = n.nodes.size();
  for (std::size_t i = 0; i < count; ++i) {
    const int size = static_cast<int>(n.gpus[i].size());
    // Past four servers: the first two and the last, the others counted.
    if (count > 4 && i >= 2 && i + 1 < count) {
      if (i == 2) out += "#   ... " + std::to_string(count - 3) + " more servers ...\n";
      rank += size;
      continue;
    }
    std::vector<int> ranks;
    for (int r = 0; r < size; ++r) ranks.push_back(rank + r);
    out += "#   n" + std::to_string(n.nodes[i]) + ": GPUs " + span(n.gpus[i]) + " -> ranks " +
           span(ranks) + "\n";
    rank += size;
  }
  return out;
}

std::string model_path_of(const std::vector<std::string>& sources, const std::string& name) {
  const std::string hf = "https://huggingface.co/";
  for (const std::string& s : sources) {
    const auto at = s.find(hf);
    if (at == std::string::npos) continue;
    const std::string rest = s.substr(at + hf.size());
    const auto first = rest.find('/');
    if (first == std::string::npos) continue;
    const auto second = rest.find_first_of("/ ", first + 1);
    return rest.substr(0, second);
  }
  return name;
}

std::string node_addr(int node) {
  return "${N" + std::to_string(node) + "_ADDR}";
}

}  // namespace topoplan::report
