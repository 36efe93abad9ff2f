// Closed forms for symmetric groups: every rank of one server hangs off the same NVSwitch. Then
// each GPU's NVLink bundle carries the same load in each direction and no flow needs routing:
//   ring:  w = steps/n per byte on every GPU↔switch link,  T = w·S / B_gpu
//   NVLS:  w = max(up, down)/nvls_eff,                     T = w·S / B_gpu
// where B_gpu is the achieved bandwidth of the GPU's NVLink bundle. The general engine
// (evaluate_loads) must give the same answer; tests/comm/fast_path_test.cpp checks it.
#include <algorithm>
#include <limits>

#include "comm/closed_form.hpp"
#include "comm/loads.hpp"

namespace topoplan::comm {

namespace {
// The slowest GPU bundle: min over the group's GPUs of (achieved bw ÷ traffic share) over their
// switch links, and the GPU→switch link that attains it. Empty when a GPU has no switch link.
struct Bundle {
  double GBps = std::numeric_limits<double>::infinity();
  DirLink out = -1;
  double share = 1;
};

std::optional<Bundle> slowest_bundle(const Topology& t, const GroupInfo& g) {
  Bundle b;
  for (int gpu : g.gpus) {
    const auto switches = nvswitches_of(t, gpu);
    if (switches.empty()) return std::nullopt;
    for (const Adjacent& a : t.neighbours(gpu)) {
      if (t.device(a.device).type != DeviceType::NvSwitch) continue;
      const double share = t.bw_GBps(a.out) / [&] {
        double total = 0;
        for (const Adjacent& x : t.neighbours(gpu))
          if (t.device(x.device).type == DeviceType::NvSwitch) total += t.bw_GBps(x.out);
        return total;
      }();
      // Both directions of a link have the same rate, so the out-direction stands for both.
      const double per_share = achieved_GBps(t, a.out) / share;
      if (per_share < b.GBps) b = Bundle{per_share, a.out, share};
    }
  }
  return b;
}
}  // namespace

std::optional<GroupLoad> closed_form_load(const Router& r, const GroupInfo& g, Algorithm a,
                                          CollOp op, double nvls_efficiency) {
  const bool reduce_family =
      op == CollOp::AllReduce || op == CollOp::AllGather || op == CollOp::ReduceScatter;
  if (g.nodes != 1 || !g.nvswitch || g.n < 2 || !reduce_family) return std::nullopt;
  if (g.intra_class != PathClass::NVL) return std::nullopt;
  const double n = g.n;
  double w = 0;
  bool inbound = false;  // the receive direction is the busier one (NVLS all-gather)
  if (a == Algorithm::Ring) {
    w = (op == CollOp::AllReduce ? 2 * (n - 1) : n - 1) / n;
  } else if (a == Algorithm::Nvls) {
    const double up = op == CollOp::AllGather ? 1 / n : 1 + (op == CollOp::AllReduce ? 1 / n : 0);
    const double down =
        op == CollOp::ReduceScatter ? 1 / n : 1 + (op == CollOp::AllReduce ? 1 / n : 0);
    w = std::max(up, down) / nvls_efficiency;
    inbound = down > up;
  } else {
    return std::nullopt;
  }
  const auto b = slowest_bundle(r.topology(), g);
  if (!b) return std::nullopt;
  GroupLoad l;
  l.us_per_byte = w / (b->GBps * 1e3);
  l.bottleneck = inbound ? (b->out ^ 1) : b->out;
  l.weight = w * b->share;
  l.worst_class = PathClass::NVL;
  return l;
}

}  // namespace topoplan::comm
