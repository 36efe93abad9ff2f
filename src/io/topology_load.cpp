// Built-in topology names and load_topology(): a file path wins over a built-in server or cluster.
// Loading resolves what parsing leaves as names: a cluster document's server.
#include <algorithm>
#include <filesystem>
#include <variant>

#include "io/cluster_errors.hpp"
#include "io/topology_document.hpp"
#include "topoplan/cluster_shape.hpp"
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

bool looks_like_path(const std::string& name) {
  return name.find('/') != std::string::npos || name.ends_with(".json");
}

// A built-in server or cluster by name, never a file.
LoadedText builtin_text(const std::string& name) {
  for (auto dir : {kClusters, kServers}) {
    if (auto text = embedded_file(std::string(dir) + name + ".json"))
      return {std::string(*text), "builtin:" + name};
  }
  throw UnknownNameError("topology", name, builtin_topology_names());
}

LoadedText read_topology_text(const std::string& name_or_path) {
  std::error_code ec;
  const bool on_disk = std::filesystem::is_regular_file(name_or_path, ec);
  if (!on_disk && is_builtin_cluster(name_or_path)) return builtin_text(name_or_path);
  // Something that looks like a path but does not exist: report the unreadable file, not a name.
  if (!on_disk && looks_like_path(name_or_path))
    return {read_text_file(name_or_path), name_or_path};
  try {
    return load_file_or_builtin(name_or_path, kServers, "topology");
  } catch (const UnknownNameError&) {
    throw UnknownNameError("topology", name_or_path, builtin_topology_names());
  }
}

// The server a cluster file names. A relative path is relative to the folder of the file that
// names it, as users expect of a reference between files (like #include): a cluster file and
// its server copied together work from any working directory. The working directory is not
// searched: a second file of the same name there would silently be a different server. A name
// that is no path and no file beside the cluster file is a built-in; a built-in cluster names
// only built-ins.
LoadedText server_text(const io::ClusterDocument& doc, const std::string& server) {
  namespace fs = std::filesystem;
  // "" would resolve to the cluster file's folder (a directory) or to no built-in name.
  if (server.empty()) throw InputError("empty server name");
  if (doc.source.starts_with("builtin:")) return builtin_text(server);
  if (fs::path(server).is_absolute()) return read_topology_text(server);
  const fs::path dir = fs::path(doc.source).parent_path();
  const std::string beside = dir.empty() ? server : (dir / server).string();
  std::error_code ec;
  if (fs::exists(beside, ec)) return {read_text_file(beside), beside};
  if (!looks_like_path(server)) return builtin_text(server);
  std::string what = "no such file: looked for " + beside +
                     " (a relative path is relative to the folder of the file that names it)";
  if (!dir.empty() && fs::is_regular_file(server, ec))
    what += "; ./" + server + " in the working directory is not used";
  throw InputError(server, "", what);
}

// The same file however it is named ("a.json", "./a.json"): its canonical path, or the name of
// a built-in topology.
std::string file_identity(const std::string& name) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(name, ec)) return name;
  const auto canonical = std::filesystem::weakly_canonical(name, ec);
  return ec ? name : canonical.string();
}

// Cluster files being parsed on this thread, outermost first. A cluster's server must be a
// server, so a cluster met while another is parsed is refused at once, before it loads its own
// server: a file naming itself, or two naming each other, would otherwise recurse until the
// stack overflows.
thread_local std::vector<std::pair<std::string, std::string>> t_cluster_chain;  // {id, name}

struct ClusterChainEntry {
  ClusterChainEntry(const std::string& source, const std::string& server) {
    if (!t_cluster_chain.empty()) {
      std::string cycle;
      const std::string self = file_identity(source), target = file_identity(server);
      bool closed = target == self;
      for (const auto& [id, name] : t_cluster_chain) {
        cycle += name + " -> ";
        closed = closed || id == target;
      }
      // A file naming itself: "a.json -> a.json", not the same name three times.
      if (self != t_cluster_chain.back().first) cycle += source + " -> ";
      cycle += server;
      throw InputError(source, "/cluster/server",
                       closed ? "cluster files form a cycle: " + cycle
                              : "is a cluster, not a server (" + cycle + ")");
    }
    t_cluster_chain.emplace_back(file_identity(source), source);
  }
  ~ClusterChainEntry() { t_cluster_chain.pop_back(); }
  ClusterChainEntry(const ClusterChainEntry&) = delete;
  ClusterChainEntry& operator=(const ClusterChainEntry&) = delete;
};

// One server of a cluster document, loaded by name (errors located at `pointer`).
Topology load_server(const io::ClusterDocument& doc, const std::string& name,
                     const std::string& pointer) {
  const auto at_server = [&](const InputError& e) {
    return InputError(doc.source, pointer, e.what());
  };
  LoadedText text;
  try {
    text = server_text(doc, name);
  } catch (const InputError& e) {
    throw at_server(e);
  }
  const ClusterChainEntry in_chain(doc.source, text.source);
  Topology server;
  try {
    server = parse_topology_json(text.text, text.source);
  } catch (const InputError& e) {
    throw at_server(e);
  }
  if (!server.fabric.kind.empty())
    throw InputError(doc.source, pointer, "'" + server.name + "' is already a cluster");
  return server;
}

// The cluster a document describes: its server(s) loaded by name (errors located at
// /cluster/server or /cluster/servers/<i>/server), then generated (errors at the option's
// pointer under /cluster).
Topology resolve_cluster(const io::ClusterDocument& doc) {
  Topology cluster;
  if (doc.groups.empty()) {
    const Topology server = load_server(doc, doc.server, "/cluster/server");
    try {
      cluster = make_cluster(server, doc.options);
    } catch (const InputError& e) {
      throw detail::locate_cluster_error(e, doc.source, true);
    }
  } else {
    std::vector<Topology> servers;
    std::vector<ServerGroup> groups;
    servers.reserve(doc.groups.size());
    for (std::size_t i = 0; i < doc.groups.size(); ++i)
      servers.push_back(load_server(doc, doc.groups[i].first,
                                    "/cluster/servers/" + std::to_string(i) + "/server"));
    for (std::size_t i = 0; i < doc.groups.size(); ++i)
      groups.push_back({&servers[i], doc.groups[i].second});
    try {
      cluster = make_mixed_cluster(groups, doc.options);
    } catch (const InputError& e) {
      throw detail::locate_cluster_error(e, doc.source, true);
    }
  }
  cluster.name = doc.name;
  if (!doc.description.empty()) cluster.description = doc.description;
  return cluster;
}

}  // namespace

Topology parse_topology_json(const std::string& text, const std::string& source) {
  io::TopologyDocument doc = io::parse_topology_document(text, source);
  if (auto* cluster = std::get_if<io::ClusterDocument>(&doc)) return resolve_cluster(*cluster);
  return std::get<Topology>(std::move(doc));
}

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
  if (options.nodes == 1) return t;  // the count itself is make_cluster's to check
  if (!t.fabric.kind.empty() || t.node_count() > 1) {
    throw InputError(loaded.source, "", "is already a cluster; a node count applies to a server");
  }
  try {
    return make_cluster(t, options);
  } catch (const InputError& e) {
    throw detail::locate_cluster_error(e, loaded.source, false);
  }
}

Topology load_cluster_server(const std::string& name_or_path, const ClusterOptions& options) {
  const LoadedText loaded = read_topology_text(name_or_path);
  Topology t = parse_topology_json(loaded.text, loaded.source);
  if (!t.fabric.kind.empty() || t.node_count() > 1) {
    throw InputError(loaded.source, "", "is already a cluster; a node count applies to a server");
  }
  try {
    cluster_shape(t, options);  // make_cluster's checks, without building the cluster
  } catch (const InputError& e) {
    throw detail::locate_cluster_error(e, loaded.source, false);
  }
  return t;
}

}  // namespace topoplan
