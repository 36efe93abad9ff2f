// Built-in topology names and load_topology(): a file path wins over a built-in server or cluster.
#include <algorithm>
#include <filesystem>

#include "io/cluster_errors.hpp"
#include "topoplan/embedded.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology_io.hpp"

namespace topoplan {
namespace {

constexpr std::string_view kServers = "topologies/servers/";
constexpr std::string_view kClusters = "topologies/clusters/";

std::string stem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

bool is_builtin_cluster(const std::string& name) {
  return embedded_file(std::string(kClusters) + name + ".json").has_value();
}

LoadedText read_topology_text(const std::string& name_or_path) {
  std::error_code ec;
  const bool on_disk = std::filesystem::is_regular_file(name_or_path, ec);
  if (!on_disk && is_builtin_cluster(name_or_path)) {
    return {std::string(*embedded_file(std::string(kClusters) + name_or_path + ".json")),
            "builtin:" + name_or_path};
  }
  // Something that looks like a path but does not exist: report the unreadable file, not a name.
  const bool looks_like_path =
      name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json");
  if (!on_disk && looks_like_path) return {read_text_file(name_or_path), name_or_path};
  try {
    return load_file_or_builtin(name_or_path, kServers, "topology");
  } catch (const UnknownNameError&) {
    throw UnknownNameError("topology", name_or_path, builtin_topology_names());
  }
}

}  // namespace

std::vector<std::string> builtin_topology_names() {
  std::vector<std::string> names;
  for (auto dir : {kServers, kClusters}) {
    for (const std::string& p : embedded_files(dir)) {
      if (p.ends_with(".json")) names.push_back(stem(p));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

Topology load_topology(const std::string& name_or_path, const ClusterOptions& options) {
  const LoadedText loaded = read_topology_text(name_or_path);
  Topology t = parse_topology_json(loaded.text, loaded.source);
  if (options.nodes <= 1) return t;
  if (!t.fabric.kind.empty() || t.node_count() > 1) {
    throw InputError(loaded.source, "", "is already a cluster; a node count applies to a server");
  }
  try {
    return make_cluster(t, options);
  } catch (const InputError& e) {
    throw detail::locate_cluster_error(e, loaded.source, false);
  }
}

}  // namespace topoplan
