// Memory per GPU: weights shard, prefill workspace, NCCL buffers, reserve, and what is left for
// the KV cache → the largest batch at the request's sequence length (docs/planner.md, "Memory").
#include <algorithm>
#include <cmath>

#include "plan/planner_impl.hpp"
#include "topoplan/dtype.hpp"
#include "topoplan/units.hpp"

namespace topoplan {

namespace {

// NCCL_BUFFSIZE default: 4 MiB per channel per peer connection for the Simple protocol
// (NCCL docs, "Environment Variables", NCCL_BUFFSIZE: "default is 4194304 (4 MiB)").
constexpr double kNcclBuffBytes = 4 * kMiB;
// Point-to-point channels per peer (NCCL_NCHANNELS_PER_NET_PEER default 2, NCCL docs; NCCL uses
// the same small count for intra-node P2P send/recv).
constexpr double kP2pChannelsPerPeer = 2;
// Collective channels of a communicator inside an NVLink server: NCCL_DEBUG=INFO on 8xH100 prints
// "32 coll channels" (NVIDIA/nccl issue logs); NCCL_MAX_NCHANNELS caps it at 32 by default.
constexpr double kCollChannels = 32;
// Sampler logits for up to 256 sequences in fp32 (vLLM max_num_seqs default 256; the profile
// run sizes the sampler for it, vLLM EngineArgs).
constexpr double kSamplerSeqs = 256;

// Live activation bytes per replica token of one layer while a prefill chunk runs: the residual
// stream and normalised input (2h), the attention projections of the local heads, the MLP's
// gate/up/act outputs (3 × local intermediate), and for MoE the routed copies this rank receives.
double workspace_bytes(const ModelSpec& m, const Strategy& s, const Shard& sh, double chunk) {
  double act = element_bytes(m.dtypes.activations), h = m.hidden, tp = s.tp;
  double heads = query_heads_per_rank(m, sh);
  double qkv = m.attention == AttentionKind::Mla
                   ? heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim)
                   : (heads + 2.0 * kv_heads_per_rank(m, sh)) * m.head_dim;
  double attn_tokens = chunk / attention_ranks(sh);
  double attn = attn_tokens * (3 * h + qkv);
  double mlp = chunk * (2 * h + 3 * m.intermediate / tp);
  if (m.is_moe()) {
    double shared = shared_experts_intermediate(m);
    double routed =
        chunk * m.moe.top_k / s.ep * (2 * h + 3.0 * m.moe.expert_intermediate * s.ep / tp);
    mlp = std::max(mlp, chunk * (2 * h + 3 * shared / tp) + routed);
  }
  return act * std::max(attn, mlp);
}

}  // namespace

MemoryPerGpu Planner::memory(const Strategy& s) const {
  return impl_->memory(s);
}

MemoryPerGpu Planner::Impl::memory(const Strategy& s) const {
  const Impl& x = *this;
  const ModelSpec& m = x.model;
  MemoryPerGpu r;
  r.capacity_bytes = x.gpu.usable_memory_bytes();
  r.reserve_bytes = (1 - x.req.mem_util) * r.capacity_bytes;
  ShardLayout layout{
      .shard = x.shard(s), .pp = s.pp, .load_mtp = x.req.mtp_accept > 0 && m.mtp_modules > 0};
  r.weights_bytes = weight_bytes_per_gpu(m, layout);
  double logits =
      kSamplerSeqs * m.vocab / (s.attention_dp ? 1.0 : s.tp) * element_bytes(Dtype::FP32);
  r.activations_bytes = workspace_bytes(m, s, layout.shard, x.req.prefill_chunk) + logits;
  // A ring communicator keeps a buffer per channel for each of its two ring neighbours (NVLS
  // buffers, allocated when NVLS is on, are not counted: docs/planner.md).
  if (s.tp > 1) {
    r.comm_buffers_bytes += kCollChannels * 2 * kNcclBuffBytes;
    if (s.attention_dp && s.ep == s.tp)  // all-to-all: send + receive buffers to every peer
      r.comm_buffers_bytes += (s.ep - 1) * 2 * kP2pChannelsPerPeer * kNcclBuffBytes;
  }
  // Pipeline: a stage's two neighbours (previous and next stage) × send + receive buffers.
  if (s.pp > 1) r.comm_buffers_bytes += 2 * 2 * kP2pChannelsPerPeer * kNcclBuffBytes;
  // Per token of the longest sequence: sliding-window layers hold at most their window.
  const double seq = x.req.max_sequence();
  r.kv_bytes_per_token = kv_bytes_per_token(m, layout.shard, s.pp) * kv_tokens_held(m, seq) / seq;
  r.kv_capacity_bytes = r.capacity_bytes - r.reserve_bytes - r.weights_bytes - r.activations_bytes -
                        r.comm_buffers_bytes;
  return r;
}

double Planner::max_batch(const Strategy& s) const {
  return impl_->max_batch(s);
}

double Planner::Impl::max_batch(const Strategy& s) const {
  return max_batch_for(memory(s), s, req.max_sequence());
}

double max_batch_for(const MemoryPerGpu& mem, const Strategy& s, double max_sequence) {
  double per_seq = mem.kv_bytes_per_token * max_sequence;
  if (mem.kv_capacity_bytes < per_seq || per_seq <= 0) return 0;
  // Without attention DP every TP rank holds (its share of) every sequence; with it, each rank
  // holds whole caches of 1/tp of the sequences: per GPU × the batch shape's unit.
  double per_gpu = std::floor(mem.kv_capacity_bytes / per_seq);
  return per_gpu * batch_shape(s, 0).unit;
}

}  // namespace topoplan
