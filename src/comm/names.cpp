// Names, nccl-tests bus-bandwidth factors, the ring closed form and MoE traffic matrices.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "core/name_table.hpp"
#include "topoplan/collective.hpp"
#include "topoplan/error.hpp"
#include "topoplan/units.hpp"

namespace topoplan {

namespace {
// Lower-case with '_' and ' ' removed, so "All_Reduce", "allreduce" and "all-reduce" compare
// equal after the '-' is also dropped.
std::string fold(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '_' || c == '-' || c == ' ') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// Table order is the order "did you mean" lists known names in.
constexpr std::array<NameEntry<CollOp>, 10> kCollOpNames{{
    {CollOp::AllReduce, "all-reduce"},
    {CollOp::AllGather, "all-gather"},
    {CollOp::ReduceScatter, "reduce-scatter"},
    {CollOp::Broadcast, "broadcast"},
    {CollOp::Reduce, "reduce"},
    {CollOp::AllToAll, "all-to-all"},
    {CollOp::SendRecv, "send-recv"},
    {CollOp::Gather, "gather"},
    {CollOp::Scatter, "scatter"},
    {CollOp::Hypercube, "hypercube"},
}};
static_assert(names_every_value(kCollOpNames) &&
              kCollOpNames.size() == static_cast<std::size_t>(CollOp::Hypercube) + 1);

constexpr std::array<NameEntry<Algorithm>, 7> kAlgorithmNames{{
    {Algorithm::Auto, "auto"},
    {Algorithm::Ring, "ring"},
    {Algorithm::Tree, "tree"},
    {Algorithm::Nvls, "nvls"},
    {Algorithm::NvlsTree, "nvlstree"},
    {Algorithm::CollNet, "collnet"},
    {Algorithm::Direct, "direct"},
}};
static_assert(names_every_value(kAlgorithmNames) &&
              kAlgorithmNames.size() == static_cast<std::size_t>(Algorithm::Direct) + 1);

constexpr std::array<NameEntry<Protocol>, 4> kProtocolNames{{
    {Protocol::Auto, "auto"},
    {Protocol::LL, "LL"},
    {Protocol::LL128, "LL128"},
    {Protocol::Simple, "Simple"},
}};
static_assert(names_every_value(kProtocolNames) &&
              kProtocolNames.size() == static_cast<std::size_t>(Protocol::Simple) + 1);

bool folded_equal(std::string_view name, std::string_view text) {
  return fold(name) == fold(text);
}
}  // namespace

std::string_view to_string(CollOp op) {
  return name_of(kCollOpNames, op);
}

std::string_view to_string(Algorithm a) {
  return name_of(kAlgorithmNames, a);
}

std::string_view to_string(Protocol p) {
  return name_of(kProtocolNames, p);
}

CollOp parse_coll_op(std::string_view text) {
  std::string f = fold(text);
  // nccl-tests binary names: all_reduce_perf, alltoall_perf, sendrecv_perf, ...
  if (f.size() > 4 && f.ends_with("perf")) f.resize(f.size() - 4);
  if (f == "sendrecv" || f == "p2p") return CollOp::SendRecv;
  if (f == "alltoallv") return CollOp::AllToAll;
  for (const auto& e : kCollOpNames)
    if (fold(e.second) == f) return e.first;
  return value_of(kCollOpNames, text, "collective", folded_equal);  // the error, with hints
}

Algorithm parse_algorithm(std::string_view text) {
  if (fold(text) == "collnetdirect" || fold(text) == "sharp") return Algorithm::CollNet;
  if (fold(text) == "a2a") return Algorithm::Direct;
  return value_of(kAlgorithmNames, text, "algorithm", folded_equal);
}

Protocol parse_protocol(std::string_view text) {
  return value_of(kProtocolNames, text, "protocol", folded_equal);
}

// nccl-tests doc/PERFORMANCE.md and src/*.cu XxxGetBw.
double busbw_factor(CollOp op, int ranks) {
  const double n = ranks;
  switch (op) {
    case CollOp::AllReduce:
      return n > 1 ? 2.0 * (n - 1) / n : 0.0;
    case CollOp::AllGather:
    case CollOp::ReduceScatter:
    case CollOp::AllToAll:
    case CollOp::Gather:  // GatherGetBw, ScatterGetBw
    case CollOp::Scatter:
      return n > 1 ? (n - 1) / n : 0.0;
    case CollOp::Broadcast:
    case CollOp::Reduce:
    case CollOp::SendRecv:
    case CollOp::Hypercube:  // HyperCubeGetBw: factor 1 on its own algbw
      return 1.0;
  }
  return 1.0;
}

// nccl-tests src/hypercube.cu HyperCubeGetBw: baseBw = count × typesize × (nranks − 1) / sec,
// where count × typesize is one rank's share, size / n.
double algbw_bytes_factor(CollOp op, int ranks) {
  if (op != CollOp::Hypercube) return 1.0;
  return ranks > 1 ? (ranks - 1.0) / ranks : 0.0;
}

double ring_closed_form_us(CollOp op, int ranks, double size_bytes, double bw_GBps,
                           double alpha_us) {
  const double n = ranks;
  double steps = 0;
  if (op == CollOp::AllReduce) steps = 2 * (n - 1);
  if (op == CollOp::AllGather || op == CollOp::ReduceScatter) steps = n - 1;
  if (ranks < 2 || steps == 0) return 0;
  // Each step moves one chunk of S/n over every ring edge.
  return steps * transfer_us(size_bytes / n, bw_GBps) + steps * alpha_us;
}

TrafficMatrix moe_dispatch_matrix(int ranks, double tokens, double token_bytes, int top_k,
                                  const std::vector<double>& expert_share) {
  if (ranks < 1 || top_k < 1 || tokens < 0 || token_bytes < 0)
    throw InputError("moe_dispatch_matrix: ranks and top_k must be ≥ 1, tokens and bytes ≥ 0");
  if (!expert_share.empty() && static_cast<int>(expert_share.size()) != ranks)
    throw InputError("moe_dispatch_matrix: expert_share needs one entry per rank");
  std::vector<double> share(static_cast<std::size_t>(ranks), 1.0 / ranks);
  if (!expert_share.empty()) {
    double total = 0;
    for (double s : expert_share) total += std::max(0.0, s);
    if (total <= 0) throw InputError("moe_dispatch_matrix: expert_share sums to zero");
    for (std::size_t r = 0; r < share.size(); ++r)
      share[r] = std::max(0.0, expert_share[r]) / total;
  }
  // Each of the tokens × k routed copies lands on rank j with probability share[j]; copies to
  // the sender's own rank stay local (no bytes on any link).
  TrafficMatrix m(share.size(), std::vector<double>(share.size(), 0.0));
  for (std::size_t i = 0; i < share.size(); ++i)
    for (std::size_t j = 0; j < share.size(); ++j)
      if (i != j) m[i][j] = tokens * top_k * share[j] * token_bytes;
  return m;
}

}  // namespace topoplan
