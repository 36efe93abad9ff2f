// Collective prices of a training strategy's groups on the actual placement. A kind of group is
// a strided set of ranks (rank r runs on the r-th GPU of the topology); every group of that kind
// touching the first group's servers runs at once (cost_concurrent), so NICs, NVSwitch ports
// and leaf uplinks shared between them contend. Groups on other servers are congruent on the
// symmetric fabrics generated here and do not share links with these below the spine, so the
// price depends on (op, stride, size, bytes) only, not on the cluster's size.
#include <algorithm>
#include <cmath>
#include <set>

#include "plan/moe_traffic.hpp"
#include "plan/nccl_ctas.hpp"
#include "plan/train_impl.hpp"
#include "topoplan/error.hpp"
#include "topoplan/topology.hpp"

namespace topoplan::train {

namespace {
// Largest window priced directly (GPUs); larger ones are extrapolated from a congruent group.
constexpr std::size_t kWindowRanks = 1024;
}  // namespace

std::vector<int> train_devices(const Topology& t, int gpus) {
  const auto& all = t.gpus();
  if (gpus > static_cast<int>(all.size()))
    throw FieldError("gpus", std::to_string(gpus) + " GPUs asked but " + t.name + " has " +
                                 std::to_string(all.size()));
  // GPUs per server (NVLink domain), from the first server.
  int per_node = 0;
  for (int g : all)
    if (t.device(g).node == t.device(all.front()).node) ++per_node;
  int use = per_node;
  while (use & (use - 1)) use &= use - 1;  // largest power of two <= per_node
  if (gpus <= per_node || use == per_node || gpus > use * (int(all.size()) / per_node))
    return {all.begin(), all.begin() + gpus};
  // A job over several NVL72-class domains runs on a power-of-two share of each (64 of 72),
  // so that no TP/EP/DP group straddles two domains: the Slurm block/segment allocation of
  // NVIDIA's GB200 recipes (dgxc-benchmarking, --segment of 16 four-GPU trays).
  std::vector<int> d;
  for (std::size_t i = 0; i < all.size() && static_cast<int>(d.size()) < gpus; ++i)
    if (t.device(all[i]).local_index < use) d.push_back(all[i]);
  return d;
}

CommPricer::CommPricer(const Router& r, int gpus, const NcclTuning& tuning)
    : router_(&r), model_(r, tuning), devices_(train_devices(r.topology(), gpus)), gpus_(gpus) {}

std::vector<std::vector<int>> CommPricer::window(int stride, int size) const {
  auto key = std::make_tuple(stride, size, 0);
  auto it = windows_.find(key);
  if (it != windows_.end()) return it->second;
  const Topology& t = router_->topology();
  // Servers of group 0 (ranks 0, stride, ..., (size − 1)·stride).
  std::set<int> nodes;
  for (int j = 0; j < size; ++j) nodes.insert(t.device(devices_[j * stride]).node);
  // Every rank on those servers, mapped to the base of its group.
  std::set<int> bases;
  for (int r = 0; r < gpus_; ++r) {
    if (!nodes.count(t.device(devices_[r]).node)) continue;
    int block = stride * size;
    int base = (r / block) * block + r % stride;
    if (base + (size - 1) * stride < gpus_) bases.insert(base);
  }
  std::vector<std::vector<int>> groups;
  for (int b : bases) {
    std::vector<int> g;
    for (int j = 0; j < size; ++j) g.push_back(devices_[b + j * stride]);
    groups.push_back(std::move(g));
  }
  return windows_.emplace(key, std::move(groups)).first->second;
}

bool CommPricer::in_one_server(int stride, int size) const {
  const Topology& t = router_->topology();
  for (int j = 1; j < size; ++j)
    if (t.device(devices_[j * stride]).node != t.device(devices_[0]).node) return false;
  return true;
}

const std::pair<int, Algorithm>* CommPricer::engine_choice(CollOp op, int stride, int size,
                                                           double bytes) const {
  if (cost(op, stride, size, bytes) <= 0) return nullptr;
  auto it = channels_.find(std::make_tuple(static_cast<int>(op), stride, size, bytes));
  return it == channels_.end() ? nullptr : &it->second;
}

int CommPricer::channels(CollOp op, int stride, int size, double bytes) const {
  const auto* c = engine_choice(op, stride, size, bytes);
  return c ? c->first : 0;
}

namespace {
// NVLinks from `gpu` to NVSwitches (bundles counted link by link); 0 without NVSwitches.
int nvswitch_links(const Topology& t, int gpu) {
  int n = 0;
  for (const Adjacent& a : t.neighbours(gpu)) {
    const Link& l = t.link(link_of(a.out));
    if (l.kind == LinkKind::NVLink && t.device(a.device).type == DeviceType::NvSwitch) n += l.count;
  }
  return n;
}
}  // namespace

int CommPricer::ctas(CollOp op, int stride, int size, double bytes) const {
  const auto* c = engine_choice(op, stride, size, bytes);
  if (!c || c->first <= 0) return 0;
  const auto [ch, a] = *c;
  const Topology& t = router_->topology();
  const int gpu = devices_[0], sm = t.gpu_spec(gpu).sm_version;
  const bool one_server = in_one_server(stride, size);
  if (a == Algorithm::Nvls || a == Algorithm::NvlsTree) return nccl_nvls_ctas(sm, !one_server);
  if (one_server) {
    const int nvlinks = nvswitch_links(t, gpu);
    return nvlinks > 0 ? nccl_intra_ring_ctas(nvlinks, sm) : ch;
  }
  const int nic = router_->nic_of_gpu(gpu);
  return nic < 0 ? ch : nccl_ring_ctas(ch, router_->nic_GBps(nic), sm);
}

double CommPricer::deepep(int stride, int size, double tokens, double token_bytes,
                          const MoeSpec& moe) const {
  if (size <= 1 || tokens <= 0) return 0;
  // Keyed apart from cost(): op code -1 with the bytes of one rank's tokens.
  auto key = std::make_tuple(-1, stride, size, tokens * token_bytes);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  const auto groups = window(stride, size);
  std::vector<TrafficMatrix> tm;
  for (const auto& g : groups)
    tm.push_back(deepep_normal_matrix(router_->topology(), g, tokens, token_bytes, moe));
  double t = 0;
  for (const CollectiveCost& c : model_.all_to_all_concurrent(groups, tm))
    t = std::max(t, c.time_us);
  return cache_.emplace(key, t).first->second;
}

double CommPricer::cost(CollOp op, int stride, int size, double bytes) const {
  if (size <= 1 || bytes <= 0) return 0;
  auto key = std::make_tuple(static_cast<int>(op), stride, size, bytes);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  std::vector<std::vector<int>> groups;
  if (op == CollOp::SendRecv) {
    // Pipeline neighbours: every rank of group 0's servers sends to its peer `stride` ranks on.
    const Topology& t = router_->topology();
    int n0 = t.device(devices_[0]).node;
    for (int r = 0; r + stride < gpus_ && t.device(devices_[r]).node == n0; ++r)
      groups.push_back({devices_[r], devices_[r + stride]});
  } else {
    groups = window(stride, size);
  }
  // Large windows (a DP group over 1,024 servers) are priced on a congruent group of fewer
  // ranks (same stride, size halved until the window holds at most kWindowRanks GPUs) and
  // extrapolated: the transfer by the ring volume factor (n−1)/n, the latency by the step count
  // (ring n−1, tree ⌈log2 n⌉). On the symmetric fabrics generated here the bottleneck (NIC or
  // NVLink of each server) is the same for both; docs/training.md, "Collectives at scale".
  int reduced = size;
  auto ranks_of = [&](int n) {
    std::size_t r = 0;
    for (const auto& g : window(stride, n)) r += g.size();
    return r;
  };
  if (op != CollOp::SendRecv && op != CollOp::AllToAll)
    while (reduced > 8 && reduced % 2 == 0 && ranks_of(reduced) > kWindowRanks) reduced /= 2;
  if (reduced != size) groups = window(stride, reduced);
  CollectiveCost worst;
  for (const CollectiveCost& c : model_.cost_concurrent(op, groups, bytes))
    if (c.time_us > worst.time_us) worst = c;
  double t = worst.time_us;
  if (reduced != size) {
    double n = size, r = reduced;
    double transfer = (worst.time_us - worst.latency_us) * ((n - 1) / n) / ((r - 1) / r);
    bool log_steps = worst.algorithm == Algorithm::Tree || worst.algorithm == Algorithm::NvlsTree;
    double lat = worst.latency_us * (log_steps ? std::ceil(std::log2(n)) / std::ceil(std::log2(r))
                                               : (n - 1) / (r - 1));
    t = lat + transfer;
  }
  channels_.emplace(key, std::make_pair(worst.channels, worst.algorithm));
  cache_.emplace(key, t);
  return t;
}

}  // namespace topoplan::train
