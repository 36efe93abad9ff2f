// Topology: devices and links behind a pimpl, plus caches that routing and the collective models
// hit in their inner loops (a flat adjacency index, GPU rank order, id hash map). Graph
// algorithms run on a Boost.Graph built from them where needed (topology_validate.cpp).
#include "topoplan/topology.hpp"

#include <algorithm>
#include <utility>
#include "hw/kind_names.hpp"
#include "hw/topology_impl.hpp"
#include "topoplan/error.hpp"

namespace topoplan {

std::string_view to_string(DeviceType type) {
  return name_of(detail::kDeviceTypeNames, type, "unknown");
}

std::string_view to_string(LinkKind kind) {
  return name_of(detail::kLinkKindNames, kind, "unknown");
}

Topology::Topology() : impl_(std::make_unique<Impl>()) {
  refresh_views();
}
Topology::~Topology() = default;
// A move keeps the Impl (and its vectors' storage), so the views move with it; the moved-from
// topology is left with no Impl and empty views.
Topology::Topology(Topology&& other) noexcept
    : name(std::move(other.name)),
      description(std::move(other.description)),
      fabric(std::move(other.fabric)),
      impl_(std::move(other.impl_)),
      devices_(std::exchange(other.devices_, nullptr)),
      links_(std::exchange(other.links_, nullptr)),
      link_properties_(std::exchange(other.link_properties_, nullptr)),
      adjacency_(std::exchange(other.adjacency_, nullptr)),
      device_count_(std::exchange(other.device_count_, 0)),
      link_count_(std::exchange(other.link_count_, 0)) {}
Topology& Topology::operator=(Topology&& other) noexcept {
  if (this != &other) {
    name = std::move(other.name);
    description = std::move(other.description);
    fabric = std::move(other.fabric);
    impl_ = std::move(other.impl_);
    devices_ = std::exchange(other.devices_, nullptr);
    links_ = std::exchange(other.links_, nullptr);
    link_properties_ = std::exchange(other.link_properties_, nullptr);
    adjacency_ = std::exchange(other.adjacency_, nullptr);
    device_count_ = std::exchange(other.device_count_, 0);
    link_count_ = std::exchange(other.link_count_, 0);
  }
  return *this;
}
Topology::Topology(const Topology& other)
    : name(other.name),
      description(other.description),
      fabric(other.fabric),
      impl_(std::make_unique<Impl>(*other.impl_)) {
  refresh_views();
}

void Topology::refresh_views() {
  devices_ = impl_->devices.data();
  device_count_ = impl_->devices.size();
  links_ = impl_->links.data();
  link_count_ = impl_->links.size();
  link_properties_ = impl_->link_properties.sets().data();
  adjacency_ = &impl_->adjacency;
}

void Topology::out_of_range(const char* what, int index) {
  throw InternalError(std::string(what) + " index " + std::to_string(index) + " out of range");
}
Topology& Topology::operator=(const Topology& other) {
  if (this != &other) {
    Topology copy(other);
    *this = std::move(copy);
  }
  return *this;
}

int Topology::add_device(Device d) {
  if (d.id.empty()) throw InternalError("device with an empty id");
  const int index = static_cast<int>(device_count());
  {
    IdIndex& ids = impl_->ids;
    std::lock_guard<std::mutex> lock(ids.mutex);
    if (ids.active) {
      if (!ids.map.emplace(d.id, index).second)
        throw InternalError("duplicate device id '" + d.id + "'");
      ids.covered = static_cast<std::size_t>(index) + 1;
    }
  }
  const DeviceType type = d.type;
  const int node = d.node;
  impl_->devices.push_back(std::move(d));
  refresh_views();
  impl_->adjacency.invalidate();
  impl_->max_node = std::max(impl_->max_node, node);
  if (type == DeviceType::Gpu) {
    impl_->insert_gpu(index);
    impl_->add_to_node(impl_->node_gpus, node, index);
  } else if (type == DeviceType::Nic) {
    impl_->add_to_node(impl_->node_nics, node, index);
  }
  return index;
}

int Topology::add_link(Link l) {
  const int n = static_cast<int>(device_count());
  if (l.a < 0 || l.a >= n || l.b < 0 || l.b >= n) {
    throw InternalError("link endpoint out of range (" + std::to_string(l.a) + ", " +
                        std::to_string(l.b) + ")");
  }
  const int index = static_cast<int>(impl_->links.size());
  impl_->adjacency.invalidate();
  impl_->links.push_back({l.a, l.b, impl_->link_properties.intern(l)});
  refresh_views();
  return index;
}

void Topology::reserve(std::size_t devices, std::size_t links) {
  impl_->devices.reserve(devices);
  impl_->links.reserve(links);
  refresh_views();
}

std::optional<int> Topology::find(const std::string& id) const {
  IdIndex& ids = impl_->ids;
  std::lock_guard<std::mutex> lock(ids.mutex);
  ids.active = true;
  const std::size_t n = device_count();
  if (ids.covered < n) ids.map.reserve(n);
  for (; ids.covered < n; ++ids.covered) {
    const std::string& known = impl_->devices[ids.covered].id;
    if (!ids.map.emplace(known, static_cast<int>(ids.covered)).second)
      throw InternalError("duplicate device id '" + known + "'");
  }
  auto it = ids.map.find(id);
  if (it == ids.map.end()) return std::nullopt;
  return it->second;
}

const std::vector<int>& Topology::gpus() const {
  return impl_->gpus;
}

int Topology::node_count() const {
  if (impl_->max_node >= 0) return impl_->max_node + 1;
  return impl_->gpus.empty() ? 0 : 1;
}

std::vector<int> Topology::gpus_of_node(int node) const {
  if (node < 0 || static_cast<std::size_t>(node) >= impl_->node_gpus.size()) return {};
  std::vector<int> out = impl_->node_gpus[node];
  std::stable_sort(out.begin(), out.end(),
                   [&](int a, int b) { return device(a).local_index < device(b).local_index; });
  return out;
}

std::vector<int> Topology::nics_of_node(int node) const {
  if (node < 0 || static_cast<std::size_t>(node) >= impl_->node_nics.size()) return {};
  std::vector<int> out = impl_->node_nics[node];
  std::stable_sort(out.begin(), out.end(),
                   [&](int a, int b) { return device(a).local_index < device(b).local_index; });
  return out;
}

void Topology::build_adjacency() const {
  impl_->adjacency.build(device_count(), impl_->links);
}

const Catalog& Topology::catalog() const {
  return impl_->catalog ? *impl_->catalog : Catalog::builtin();
}
std::shared_ptr<const Catalog> Topology::shared_catalog() const {
  return impl_->catalog;
}
void Topology::set_catalog(std::shared_ptr<const Catalog> catalog) {
  impl_->catalog = std::move(catalog);
}

const GpuSpec& Topology::gpu_spec(int device_index) const {
  const Device& d = device(device_index);
  if (d.type != DeviceType::Gpu) {
    throw InternalError("gpu_spec of non-GPU device '" + d.id + "'");
  }
  return catalog().gpu(d.model);
}

std::vector<std::pair<std::string, int>> Topology::gpu_models() const {
  std::vector<std::pair<std::string, int>> out;
  for (int g : gpus()) {
    const std::string& m = device(g).model;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == m; });
    if (it == out.end())
      out.emplace_back(m, 1);
    else
      ++it->second;
  }
  return out;
}

std::string gpu_models_text(const std::vector<std::pair<std::string, int>>& models) {
  std::string out;
  for (const auto& [model, count] : models)
    out += (out.empty() ? "" : " + ") + std::to_string(count) + " x " + model;
  return out;
}

std::string Topology::gpu_models_text() const {
  return topoplan::gpu_models_text(gpu_models());
}

const GpuSpec& Topology::uniform_gpu_spec(std::string_view what) const {
  if (gpus().empty()) throw InputError(name, "", "the topology has no GPUs to plan on");
  if (gpu_models().size() > 1)
    throw InputError(name, "",
                     "its GPUs differ (" + gpu_models_text() + ") and " + std::string(what) +
                         " prices every GPU as one kind; plan each kind on its own topology "
                         "(or cluster group) rather than have some priced as another");
  return gpu_spec(gpus().front());
}

}  // namespace topoplan
