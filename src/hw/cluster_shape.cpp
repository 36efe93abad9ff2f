// cluster_shape / for_each_cluster_link: make_cluster's enumeration (hw/fabric_builder.hpp) run
// into a sink that counts switches and links instead of adding them. Server copies are k × the
// template's devices and links, so nothing per GPU is allocated beyond the NIC index lists the
// fabric enumeration walks.
#include "topoplan/cluster_shape.hpp"

#include "hw/fabric_builder.hpp"
#include "topoplan/error.hpp"

namespace topoplan {

namespace {

// Counts what make_cluster's TopologySink would add; switch indices follow the servers' devices,
// as there. `visit` (optional) sees each fabric link with its bandwidth.
class CountingSink : public detail::FabricSink {
 public:
  CountingSink(int first_switch, const LinkSpec& link,
               const std::function<void(int, int, double)>* visit)
      : next_(first_switch), link_(link), visit_(visit) {}
  int add_switch(const std::string&, int tier, int) override {
    if (per_tier.size() < static_cast<std::size_t>(tier))
      per_tier.resize(static_cast<std::size_t>(tier));
    ++per_tier[static_cast<std::size_t>(tier) - 1];
    return next_++;
  }
  void connect(int a, int b, int count) override {
    ++links;
    if (visit_) (*visit_)(a, b, link_.GBps * count);  // TopologySink's bw_GBps expression
  }
  std::size_t switches() const {
    std::size_t n = 0;
    for (int k : per_tier) n += static_cast<std::size_t>(k);
    return n;
  }
  std::vector<int> per_tier;
  std::size_t links = 0;

 private:
  int next_;
  const LinkSpec& link_;
  const std::function<void(int, int, double)>* visit_;
};

ClusterShape enumerate(const Topology& server, const ClusterOptions& o,
                       const std::function<void(int, int, double)>* visit) {
  if (o.nodes < 2) throw InputError("cluster", "nodes", "a cluster shape needs at least 2 servers");
  detail::check_cluster_options(server, o);
  const std::vector<int> nics = detail::server_nics(server);
  const LinkSpec& link = detail::fabric_link(server, nics, o);
  const int per_server = static_cast<int>(server.device_count());
  std::vector<std::vector<int>> server_nic(static_cast<std::size_t>(o.nodes));
  for (int k = 0; k < o.nodes; ++k) {
    const int base = k * per_server;
    if (visit)
      for (std::size_t l = 0; l < server.link_count(); ++l) {
        const Link& e = server.link(static_cast<int>(l));
        (*visit)(base + e.a, base + e.b, e.bw_GBps);
      }
    for (int n : nics) server_nic[static_cast<std::size_t>(k)].push_back(base + n);
  }
  CountingSink sink(o.nodes * per_server, link, visit);
  const int tiers = detail::build_fabric(sink, server_nic, o);
  detail::ClusterNames names = detail::cluster_names({{&server, o.nodes}}, o, link.name, tiers);
  ClusterShape s;
  s.name = std::move(names.name);
  s.description = std::move(names.description);
  s.fabric = std::move(names.fabric);
  s.nodes = o.nodes;
  s.devices = static_cast<std::size_t>(o.nodes) * server.device_count() + sink.switches();
  s.links = static_cast<std::size_t>(o.nodes) * server.link_count() + sink.links;
  s.switches_per_tier = std::move(sink.per_tier);
  return s;
}

}  // namespace

namespace detail {
FabricCount count_fabric(const std::vector<std::vector<int>>& server_nic, const ClusterOptions& o) {
  // Switch device indices only name links here; LinkSpec is only read by a visitor (none).
  const LinkSpec unused{};
  CountingSink sink(0, unused, nullptr);
  detail::build_fabric(sink, server_nic, o);
  return {sink.switches(), sink.links};
}
}  // namespace detail

ClusterShape cluster_shape(const Topology& server, const ClusterOptions& o) {
  return enumerate(server, o, nullptr);
}

ClusterShape for_each_cluster_link(const Topology& server, const ClusterOptions& o,
                                   const std::function<void(int a, int b, double bw_GBps)>& visit) {
  return enumerate(server, o, &visit);
}

}  // namespace topoplan
