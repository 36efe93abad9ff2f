#!/usr/bin/env python3
"""Whole decoder layers' DECODE step at batch 1-8 on one GPU, kernel by kernel, in one CUDA graph.

Issue 26, point 5 ("small-batch decode is too fast"): the planner prices every kernel as
floor + max(compute, memory) with a 0.84 us floor inside CUDA graphs. This probe measures what a
decode layer's kernels really take at batch 1, 2, 4 and 8 when the layer runs as the engines run
it (one CUDA graph per step), and the GPU idle time between dependent kernels inside a replay.

Models (random weights and inputs, never zeros):
- DeepSeek-R1 MoE layer, one GPU's TP8 shard at EP1 (shapes and most kernels from
  probe_r1_layer.py, imported, not copied), absorbed-MLA decode path as SGLang's
  DeepseekV2AttentionMLA.forward_absorb runs it:
    attn_norm (fused add + RMSNorm) | qkv_a_quant | qkv_a_proj (fused q_a + kv_a, n 2112, block
    FP8) | q_a_norm | kv_a_norm | q_b_quant | q_b_proj (n 3072) | q_absorb (bf16 bmm q_nope x
    W_UK, 16 x [B,128] x [128,512]) | q_absorb_copy (into q_input[..., :512]) | rope (q_pe in
    place, k_pe) | q_pe_copy (into q_input[..., 512:]) | kv_cache_store (latent 512 + rope 64) |
    attn_decode (split-KV MLA decode over `context` cached tokens, 8 splits, MQA over the 576-dim
    latent, v = first 512 dims) | attn_combine (merge of the splits) | v_absorb (bf16 bmm x W_UV,
    16 x [B,512] x [512,128]) | v_out_copy | o_quant | o_proj (n 7168, k 2048) | [all-reduce: not
    run] | mlp_norm | router (bf16 GEMM n 256) | topk (one fused kernel: sigmoid + bias, 4 of 8
    groups, top-8, renormalize) | shared_in_quant | shared_up_gate | shared_act | shared_down_quant
    | shared_down | moe_align (one kernel: slots sorted by expert, padded to BLOCK_M 16) |
    experts_in_quant | experts_up_gate | experts_act | experts_down_quant | experts_down (x routed
    weight) | experts_combine (moe_sum x 2.5) | moe_out_add | [all-reduce: not run]
  Dense block-FP8 linears in two variants: `triton_block` (probe_r1_layer's Triton block-FP8 GEMM,
  the path of SGLang's w8a8_block_fp8_matmul, with the best of DECODE_TILES per GEMM and batch,
  timed in a CUDA graph)
  and `cublaslt_tensor` (torch._scaled_mm per-tensor FP8, m padded to 16 rows as cuBLASLt
  requires). Routed experts: probe_r1_layer's grouped block-FP8 Triton kernel with SGLang's H200
  tile for E=257, N=256 at M <= 8 (BLOCK_M 16, BLOCK_N 128, BLOCK_K 128, 4 warps, 4 stages; grid
  over the worst-case padded slot list, blocks past the real total exit at once, as the engine's
  fused_moe). A `torch` routing variant runs top-k and moe_align as PyTorch ops (about 20 small
  kernels, as probe_r1_layer.py does) for contrast.
- Llama-3-8B dense layer, TP1, bf16: attn_norm | qkv_proj (cuBLAS, n 6144) | rope (q and k in
  place, one kernel) | kv_cache_store (k and v, one kernel) | attn_decode (split-KV GQA decode,
  32 q heads over 8 kv heads, d 128) | attn_combine | o_proj | mlp_norm | gate_up (n 28672) |
  act (silu_and_mul) | down (k 14336).

Attention, top-k and moe_align kernels are written here in Triton after the engines' designs
(SGLang's Triton decode backend: split-KV stage 1 + merge stage 2, 8 KV splits, page size 1 with
a token index; SGLang/vLLM's fused biased grouped top-k and moe_align_block_size); none is the
engines' own code. FlashMLA / FlashInfer are not on the device image.

Method: `--layers` (4) layers with separate weights and KV caches run back to back in ONE CUDA
graph (so that weights are not L2-resident across layers and the layer-to-layer gap is real);
layer time = replay time / layers. The replay is timed with CUDA events (`--replays` replays
queued back to back, an event pair around each, median; one pair around all; and 50 replays each
started from an idle GPU, synchronising after each). Then
`--profile-replays` + 1 replays run under torch.profiler (CUPTI) and the first is dropped: each
kernel's duration and the gap before it (its start minus the previous kernel's end, same replay)
come from those. Which step a kernel belongs to comes from a second capture of one layer with a
marker kernel between steps (same kernels, graph mode). Bytes per step are the fewest bytes the
step must move (inputs once, outputs once; routed experts: the experts actually hit); "small
kernels" are kernels of steps moving < 1 MB. A micro-benchmark repeats the planner's floor
measurement (probe_compute.probe_floor) and times chains of 256 / 1,000 tiny kernels (x.add_ on one
element; Triton kernels of 1, 132 and 1,024 CTAs) in one graph, for reference.

Checks (fp32 references) run first: both attention kernels, the fused top-k against the PyTorch
routing, moe_align against the PyTorch version, the routed experts end to end, the absorbed q,
RoPE and the cache stores.

Usage: python3 tools/measure/probe_r1_decode.py --out r1-decode.json [--batches 1,2,4,8]
       [--context 1024] [--layers 4] [--replays 200] [--profile-replays 5]
"""
import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from probe_r1_layer import (EPS, EXPERT_INTER, EXPERTS, HEADS, HIDDEN, KV_LORA, N_GROUP, NOPE,  # noqa: E402
                            Q_LORA, QK, ROPE, ROUTED_SCALING, SHARED_INTER, TOPK, TOPK_GROUP,
                            V_DIM, DenseW, capture, dequant_act, dequant_w, fused_add_rmsnorm,
                            group_quant, grouped_topk, moe_gemm_kernel, moe_sum, next_pow2, rel,
                            rmsnorm, rope_kernel, silu_mul, store_latent_kernel,
                            time_back_to_back)
from probe_r1_layer import cupti_records  # noqa: E402
from probe_r1_layer import moe_align as moe_align_torch  # noqa: E402

KV_SPLITS = 8                 # SGLang --triton-attention-num-kv-splits default
SMALL_BYTES = 1e6             # "small kernel": its step moves < 1 MB
MOE_BLOCK_M = 16
# SGLang E=257,N=256 H200 fp8 block [128,128] table, keys 1/2/4/8: BLOCK_M 16, BLOCK_N 128,
# BLOCK_K 128, 4 warps, 4 stages; GROUP_M 16 (64 at key 4).
MOE_GROUP_M = {1: 16, 2: 16, 4: 64, 8: 16}
DECODE_TILES = [(16, 32, 4, 4), (16, 64, 4, 3), (16, 64, 4, 5), (16, 128, 4, 3), (32, 64, 4, 4)]
LLAMA = {"hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "inter": 14336,
         "theta": 500000.0}


# --- Triton kernels written here ------------------------------------------------------------------
@triton.jit
def decode_attn_stage1(q_ptr, k_ptr, v_ptr, idx_ptr, mid_o_ptr, mid_lse_ptr, sm_scale,
                       stride_qb, stride_qh, stride_kt, stride_kh, stride_vt, stride_vh,
                       stride_ib, ctx_len, q_heads, VALID_H: tl.constexpr,
                       HB_PER_KV: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr,
                       BLOCK_DPE: tl.constexpr, BLOCK_DV: tl.constexpr, BLOCK_N: tl.constexpr,
                       SPLITS: tl.constexpr):
    # One program per (sequence, block of query heads sharing one kv head, KV split): online
    # softmax over its share of the sequence's cached tokens (gathered through idx), partial
    # output (normalised) and log-sum-exp to mid buffers [B, H, SPLITS, (DV)].
    b = tl.program_id(0)
    hb = tl.program_id(1)
    sp = tl.program_id(2)
    heads = hb * VALID_H + tl.arange(0, BLOCK_H)
    mh = (heads < (hb + 1) * VALID_H) & (heads < q_heads)
    kvh = hb // HB_PER_KV
    offs_d = tl.arange(0, BLOCK_D)
    q_base = q_ptr + b * stride_qb + heads[:, None] * stride_qh
    q = tl.load(q_base + offs_d[None, :], mask=mh[:, None], other=0.0)
    if BLOCK_DPE > 0:
        offs_pe = BLOCK_D + tl.arange(0, BLOCK_DPE)
        qpe = tl.load(q_base + offs_pe[None, :], mask=mh[:, None], other=0.0)
    offs_dv = tl.arange(0, BLOCK_DV)
    split_len = tl.cdiv(ctx_len, SPLITS)
    start = sp * split_len
    end = tl.minimum(start + split_len, ctx_len)
    e_max = tl.full([BLOCK_H], float("-inf"), dtype=tl.float32)
    e_sum = tl.zeros([BLOCK_H], dtype=tl.float32)
    acc = tl.zeros([BLOCK_H, BLOCK_DV], dtype=tl.float32)
    for n0 in range(start, end, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        mn = offs_n < end
        loc = tl.load(idx_ptr + b * stride_ib + offs_n, mask=mn, other=0).to(tl.int64)
        kk = tl.load(k_ptr + loc[None, :] * stride_kt + kvh * stride_kh + offs_d[:, None],
                     mask=mn[None, :], other=0.0)
        qk = tl.dot(q, kk)
        if BLOCK_DPE > 0:
            kpe = tl.load(k_ptr + loc[None, :] * stride_kt + kvh * stride_kh + offs_pe[:, None],
                          mask=mn[None, :], other=0.0)
            qk += tl.dot(qpe, kpe)
        qk = qk * sm_scale
        qk = tl.where(mn[None, :], qk, float("-inf"))
        vv = tl.load(v_ptr + loc[:, None] * stride_vt + kvh * stride_vh + offs_dv[None, :],
                     mask=mn[:, None], other=0.0)
        n_max = tl.maximum(tl.max(qk, 1), e_max)
        re = tl.exp(e_max - n_max)
        p = tl.exp(qk - n_max[:, None])
        acc = acc * re[:, None] + tl.dot(p.to(vv.dtype), vv)
        e_sum = e_sum * re + tl.sum(p, 1)
        e_max = n_max
    row = (b * q_heads + heads) * SPLITS + sp
    tl.store(mid_o_ptr + row[:, None].to(tl.int64) * BLOCK_DV + offs_dv[None, :],
             acc / e_sum[:, None], mask=mh[:, None])
    tl.store(mid_lse_ptr + row, e_max + tl.log(e_sum), mask=mh)


@triton.jit
def decode_attn_stage2(mid_o_ptr, mid_lse_ptr, o_ptr, stride_ob, stride_oh, q_heads,
                       SPLITS: tl.constexpr, BLOCK_DV: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    s = tl.arange(0, SPLITS)
    row = (b * q_heads + h) * SPLITS + s
    lse = tl.load(mid_lse_ptr + row)
    w = tl.exp(lse - tl.max(lse, 0))
    offs_dv = tl.arange(0, BLOCK_DV)
    o = tl.load(mid_o_ptr + row[:, None].to(tl.int64) * BLOCK_DV + offs_dv[None, :])
    out = tl.sum(o * w[:, None], 0) / tl.sum(w, 0)
    tl.store(o_ptr + b * stride_ob + h * stride_oh + offs_dv, out.to(tl.bfloat16))


@triton.jit
def biased_grouped_topk_kernel(logits_ptr, bias_ptr, ids_ptr, w_ptr, E: tl.constexpr,
                               G: tl.constexpr, EPG: tl.constexpr, TOPK_G: tl.constexpr,
                               K: tl.constexpr):
    # One program per token: DeepSeek-V3 routing (sigmoid, + correction bias for the choice, the
    # TOPK_G best of G groups by the sum of each group's two best, top-K experts inside them,
    # weights = the unbiased scores, renormalised).
    t = tl.program_id(0).to(tl.int64)
    g = tl.arange(0, G)
    j = tl.arange(0, EPG)
    offs = g[:, None] * EPG + j[None, :]
    s = tl.sigmoid(tl.load(logits_ptr + t * E + offs).to(tl.float32))
    c = s + tl.load(bias_ptr + offs)
    a1 = tl.argmax(c, axis=1)
    m1 = tl.max(c, axis=1)
    m2 = tl.max(tl.where(j[None, :] == a1[:, None], float("-inf"), c), axis=1)
    gs = m1 + m2
    gsel = g < 0
    for i in tl.static_range(TOPK_G):
        ga = tl.argmax(gs, axis=0)
        gsel = gsel | (g == ga)
        gs = tl.where(g == ga, float("-inf"), gs)
    cm = tl.where(gsel[:, None], c, float("-inf"))
    kk = tl.arange(0, K)
    ids = tl.zeros([K], dtype=tl.int32)
    ws = tl.zeros([K], dtype=tl.float32)
    for i in tl.static_range(K):
        mx = tl.max(tl.max(cm, axis=1), axis=0)
        idx = tl.min(tl.min(tl.where(cm == mx, offs, E), axis=1), axis=0)
        sv = tl.sum(tl.sum(tl.where(offs == idx, s, 0.0), axis=1), axis=0)
        ids = tl.where(kk == i, idx, ids)
        ws = tl.where(kk == i, sv, ws)
        cm = tl.where(offs == idx, float("-inf"), cm)
    tl.store(ids_ptr + t * K + kk, ids)
    tl.store(w_ptr + t * K + kk, ws / tl.sum(ws, axis=0))


@triton.jit
def moe_align_small_kernel(ids_ptr, sorted_ptr, eids_ptr, npost_ptr, numel, em, n_blocks,
                           E: tl.constexpr, BM: tl.constexpr, NP: tl.constexpr,
                           NB: tl.constexpr, FILL: tl.constexpr):
    # One program: slots (token * top_k + k) sorted by expert (stable), each expert's run padded
    # to a multiple of BM with the sentinel numel; eids[b] = expert of M block b; npost = padded
    # total. For small batches (numel <= NP, a few hundred).
    i = tl.arange(0, NP)
    mi = i < numel
    ids = tl.load(ids_ptr + i, mask=mi, other=E)
    e = tl.arange(0, E)
    counts = tl.sum((ids[None, :] == e[:, None]).to(tl.int32), axis=1)
    padded = (counts + BM - 1) // BM * BM
    cum = tl.cumsum(padded, axis=0)
    start = cum - padded
    slot0 = tl.sum(tl.where(ids[:, None] == e[None, :], start[None, :], 0), axis=1)
    rank = tl.sum(((ids[:, None] == ids[None, :]) & (i[None, :] < i[:, None])).to(tl.int32),
                  axis=1)
    for off in range(0, em, FILL):
        o = off + tl.arange(0, FILL)
        tl.store(sorted_ptr + o, numel + tl.zeros([FILL], dtype=tl.int32), mask=o < em)
    tl.debug_barrier()
    tl.store(sorted_ptr + slot0 + rank, i, mask=mi)
    b = tl.arange(0, NB)
    eid = tl.sum((cum[None, :] <= (b * BM)[:, None]).to(tl.int32), axis=1)
    tl.store(eids_ptr + b, tl.minimum(eid, E - 1), mask=b < n_blocks)
    tl.store(npost_ptr, tl.sum(padded, axis=0))


@triton.jit
def rope_neox_kernel(x_ptr, row_stride, pos_ptr, cos_ptr, sin_ptr, H, HP: tl.constexpr,
                     HALF: tl.constexpr):
    # Rotate-half RoPE in place on the first H heads (q heads then k heads) of a qkv row.
    t = tl.program_id(0).to(tl.int64)
    pos = tl.load(pos_ptr + t).to(tl.int64)
    j = tl.arange(0, HALF)
    c = tl.load(cos_ptr + pos * HALF + j)[None, :]
    s = tl.load(sin_ptr + pos * HALF + j)[None, :]
    h = tl.arange(0, HP)
    mh = (h < H)[:, None]
    base = x_ptr + t * row_stride + h[:, None] * (2 * HALF) + j[None, :]
    x1 = tl.load(base, mask=mh, other=0.0).to(tl.float32)
    x2 = tl.load(base + HALF, mask=mh, other=0.0).to(tl.float32)
    tl.store(base, (x1 * c - x2 * s).to(tl.bfloat16), mask=mh)
    tl.store(base + HALF, (x2 * c + x1 * s).to(tl.bfloat16), mask=mh)


@triton.jit
def store_kv_kernel(k_ptr, v_ptr, row_stride, kc_ptr, vc_ptr, loc_ptr, W: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    loc = tl.load(loc_ptr + t).to(tl.int64)
    a = tl.arange(0, W)
    tl.store(kc_ptr + loc * W + a, tl.load(k_ptr + t * row_stride + a))
    tl.store(vc_ptr + loc * W + a, tl.load(v_ptr + t * row_stride + a))


@triton.jit
def silu_mul_cols_kernel(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    # x: R x 2N (gate | up), y: R x N; grid (R, cdiv(N, BLOCK)).
    r = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = c < N
    g = tl.load(x_ptr + r * 2 * N + c, mask=m, other=0.0).to(tl.float32)
    u = tl.load(x_ptr + r * 2 * N + N + c, mask=m, other=0.0).to(tl.float32)
    tl.store(y_ptr + r * N + c, (g * tl.sigmoid(g) * u).to(tl.bfloat16), mask=m)


@triton.jit
def step_marker_kernel(p_ptr):
    tl.store(p_ptr, 1)


@triton.jit
def tiny_kernel(p_ptr):
    tl.store(p_ptr, tl.load(p_ptr) + 1)


@triton.jit
def tiny_grid_kernel(p_ptr):
    i = tl.program_id(0)
    tl.store(p_ptr + i, tl.load(p_ptr + i) + 1)


# --- launchers -------------------------------------------------------------------------------------
class DecodeAttn:
    """Split-KV decode attention (stage 1 + merge). q [B, H, *] rows at (q_sb, q_sh); caches
    [slots, KVH, *] at (k_st, k_sh) / (v_st, v_sh); idx [B, ctx] slot of each cached token."""

    def __init__(self, B, heads, kv_group, dmodel, dpe, dv, sm_scale, block_n, warps, stages):
        self.B, self.heads, self.kv_group = B, heads, kv_group
        self.dmodel, self.dpe, self.dv, self.sm_scale = dmodel, dpe, dv, sm_scale
        self.block_n, self.warps, self.stages = block_n, warps, stages
        self.block_h = 16
        self.valid_h = min(self.block_h, kv_group)
        self.hb_per_kv = triton.cdiv(kv_group, self.block_h)
        self.mid_o = torch.empty(B, heads, KV_SPLITS, dv, device="cuda", dtype=torch.float32)
        self.mid_lse = torch.empty(B, heads, KV_SPLITS, device="cuda", dtype=torch.float32)

    def stage1(self, q, q_sb, q_sh, k, k_st, k_sh, v, v_st, v_sh, idx, ctx):
        grid = (self.B, triton.cdiv(self.heads, self.valid_h), KV_SPLITS)
        decode_attn_stage1[grid](q, k, v, idx, self.mid_o, self.mid_lse, self.sm_scale, q_sb, q_sh,
                                 k_st, k_sh, v_st, v_sh, idx.stride(0), ctx, self.heads,
                                 VALID_H=self.valid_h, HB_PER_KV=self.hb_per_kv,
                                 BLOCK_H=self.block_h, BLOCK_D=self.dmodel, BLOCK_DPE=self.dpe,
                                 BLOCK_DV=self.dv, BLOCK_N=self.block_n, SPLITS=KV_SPLITS,
                                 num_warps=self.warps, num_stages=self.stages)

    def stage2(self, out, o_sb, o_sh):
        decode_attn_stage2[(self.B, self.heads)](self.mid_o, self.mid_lse, out, o_sb, o_sh,
                                                 self.heads, SPLITS=KV_SPLITS, BLOCK_DV=self.dv,
                                                 num_warps=4)


def fused_topk(logits, bias, ids_out, w_out):
    biased_grouped_topk_kernel[(logits.shape[0],)](logits, bias, ids_out, w_out, E=EXPERTS,
                                                   G=N_GROUP, EPG=EXPERTS // N_GROUP,
                                                   TOPK_G=TOPK_GROUP, K=TOPK, num_warps=4)


def moe_align_small(topk_ids, sorted_ids, eids, npost):
    numel = topk_ids.numel()
    em = sorted_ids.shape[0]
    moe_align_small_kernel[(1,)](topk_ids, sorted_ids, eids, npost, numel, em, eids.shape[0],
                                 E=EXPERTS, BM=MOE_BLOCK_M, NP=max(16, next_pow2(numel)),
                                 NB=max(16, next_pow2(eids.shape[0])), FILL=1024, num_warps=8)


def moe_gemm_decode(a, sa, w, ws, c, topk_w, sorted_ids, eids, npost, n, k, num_valid, gather_div,
                    mul_w, group_m):
    em = sorted_ids.shape[0]
    bn = 128
    grid = (triton.cdiv(em, MOE_BLOCK_M) * triton.cdiv(n, bn),)
    moe_gemm_kernel[grid](a, w, c, sa, ws, topk_w, sorted_ids, eids, npost, n, k, em, num_valid,
                          gather_div, MUL_W=mul_w, BLOCK_M=MOE_BLOCK_M, BLOCK_N=bn, BLOCK_K=128,
                          GROUP_M=group_m, num_warps=4, num_stages=4)


def silu_mul_cols(x, y):
    r, n = y.shape
    silu_mul_cols_kernel[(r, triton.cdiv(n, 2048))](x, y, n, BLOCK=2048, num_warps=8)


def rope_tables(ctx, dim, theta):
    inv = 1.0 / (theta ** (torch.arange(0, dim, 2, device="cuda").float() / dim))
    ang = torch.arange(ctx, device="cuda").float()[:, None] * inv[None, :]
    return ang.cos().contiguous(), ang.sin().contiguous()


# --- DeepSeek-R1 decode layer --------------------------------------------------------------------
class R1Weights:
    """One layer's weights (TP8 shard, EP1) and the norms' weights."""

    def __init__(self, gen):
        dev, bf, f8 = "cuda", torch.bfloat16, torch.float8_e4m3fn

        def rnd(*shape, scale=1.0, dtype=bf):
            return (torch.randn(*shape, device=dev, generator=gen) * scale).to(dtype)

        self.w_attn_norm = rnd(HIDDEN, scale=0.1) + 1
        self.w_mlp_norm = rnd(HIDDEN, scale=0.1) + 1
        self.w_qa_norm = rnd(Q_LORA, scale=0.1) + 1
        self.w_kva_norm = rnd(KV_LORA, scale=0.1) + 1
        self.qkv_a = DenseW(Q_LORA + KV_LORA + ROPE, HIDDEN, gen)
        self.q_b = DenseW(HEADS * QK, Q_LORA, gen)
        self.o = DenseW(HIDDEN, HEADS * V_DIM, gen)
        self.sh_up = DenseW(2 * SHARED_INTER, HIDDEN, gen)
        self.sh_down = DenseW(HIDDEN, SHARED_INTER, gen)
        # W_UK / W_UV of kv_b, dequantised to bf16 at load (as SGLang's w_kc / w_vc)
        self.w_kc = rnd(HEADS, NOPE, KV_LORA, scale=0.05)
        self.w_vc = rnd(HEADS, KV_LORA, V_DIM, scale=0.05)
        self.w_router = rnd(EXPERTS, HIDDEN, scale=HIDDEN ** -0.5)
        self.router_bias = torch.rand(EXPERTS, device=dev, generator=gen) * 0.01
        self.w13 = torch.empty(EXPERTS, 2 * EXPERT_INTER, HIDDEN, device=dev, dtype=f8)
        self.w2 = torch.empty(EXPERTS, HIDDEN, EXPERT_INTER, device=dev, dtype=f8)
        for e0 in range(0, EXPERTS, 64):
            self.w13[e0:e0 + 64] = rnd(64, 2 * EXPERT_INTER, HIDDEN, scale=0.05).to(f8)
            self.w2[e0:e0 + 64] = rnd(64, HIDDEN, EXPERT_INTER, scale=0.05).to(f8)
        self.s13 = torch.rand(EXPERTS, 2 * EXPERT_INTER // 128, HIDDEN // 128, device=dev,
                              generator=gen) * 0.5 + 0.5
        self.s2 = torch.rand(EXPERTS, HIDDEN // 128, EXPERT_INTER // 128, device=dev,
                             generator=gen) * 0.5 + 0.5

    def dense(self):
        return {"qkv_a": self.qkv_a, "q_b": self.q_b, "o": self.o, "sh_up": self.sh_up,
                "sh_down": self.sh_down}


class R1Decode:
    """Activations, KV caches and the step list of a decode step of `B` sequences with `ctx`
    tokens each (the new one included) over the given layers' weights."""

    def __init__(self, B, ctx, weights, gen, dense="triton_block", routing="fused"):
        self.B, self.ctx, self.weights = B, ctx, weights
        self.dense, self.routing = dense, routing
        dev, bf, f8, f32 = "cuda", torch.bfloat16, torch.float8_e4m3fn, torch.float32
        MP = max(16, triton.cdiv(B, 16) * 16)  # rows of GEMM operands (cuBLASLt wants m % 16 == 0)
        S = self.S = B * TOPK

        def rnd(*shape, scale=1.0, dtype=bf):
            return (torch.randn(*shape, device=dev, generator=gen) * scale).to(dtype)

        def buf(*shape, dtype=bf):
            # random, not zeros: the padding rows of the GEMM operands are read by cuBLASLt
            if dtype in (torch.int32, torch.int64):
                return torch.zeros(*shape, device=dev, dtype=dtype)
            return rnd(*shape, dtype=dtype) if dtype != f8 else rnd(*shape, scale=0.5).to(f8)

        self.hidden_in, self.residual_in = rnd(B, HIDDEN), rnd(B, HIDDEN)
        self.residual1, self.x_norm = buf(B, HIDDEN), buf(B, HIDDEN)
        self.x_q, self.x_s = buf(MP, HIDDEN, dtype=f8), buf(MP, HIDDEN // 128, dtype=f32).abs()
        self.qkv_out = buf(MP, Q_LORA + KV_LORA + ROPE)
        self.q_lat_n, self.kv_n = buf(B, Q_LORA), buf(B, KV_LORA)
        self.ql_q, self.ql_s = buf(MP, Q_LORA, dtype=f8), buf(MP, Q_LORA // 128, dtype=f32).abs()
        self.q_b_out = buf(MP, HEADS * QK)
        self.q_nope_out = buf(HEADS, B, KV_LORA)
        self.q_input = buf(B, HEADS, KV_LORA + ROPE)
        self.k_pe = buf(B, ROPE)
        self.attn_out = buf(B, HEADS, KV_LORA)
        self.v_out = buf(HEADS, B, V_DIM)
        self.attn_flat = buf(B, HEADS * V_DIM)
        self.ao_q, self.ao_s = buf(MP, HEADS * V_DIM, dtype=f8), buf(MP, HEADS * V_DIM // 128,
                                                                     dtype=f32).abs()
        self.o_out = buf(MP, HIDDEN)
        self.residual2, self.h_norm = buf(B, HIDDEN), buf(B, HIDDEN)
        self.logits = buf(B, EXPERTS)
        self.topk_ids = torch.zeros(B, TOPK, device=dev, dtype=torch.int32)
        self.topk_w = torch.ones(B, TOPK, device=dev, dtype=f32) / TOPK
        self.h_q, self.h_s = buf(MP, HIDDEN, dtype=f8), buf(MP, HIDDEN // 128, dtype=f32).abs()
        self.sh_gu = buf(MP, 2 * SHARED_INTER)
        self.sh_act = buf(B, SHARED_INTER)
        self.sh_aq, self.sh_as = buf(MP, SHARED_INTER, dtype=f8), buf(MP, SHARED_INTER // 128,
                                                                      dtype=f32).abs()
        self.sh_out = buf(MP, HIDDEN)
        # the engine's worst-case padded length: min(numel * BLOCK_M, numel + E * (BLOCK_M - 1))
        self.em = min(S * MOE_BLOCK_M, S + EXPERTS * (MOE_BLOCK_M - 1))
        self.n_blocks = triton.cdiv(self.em, MOE_BLOCK_M)
        self.sorted_ids = torch.zeros(self.em, device=dev, dtype=torch.int32)
        self.eids = torch.zeros(self.n_blocks, device=dev, dtype=torch.int32)
        self.npost = torch.zeros(1, device=dev, dtype=torch.int32)
        self.ones = torch.ones(S, device=dev, dtype=torch.long)
        self.arange_slots = torch.arange(S, device=dev)
        self.block_starts = torch.arange(self.n_blocks, device=dev) * MOE_BLOCK_M
        self.he_q, self.he_s = buf(B, HIDDEN, dtype=f8), buf(B, HIDDEN // 128, dtype=f32).abs()
        self.c1, self.c2 = buf(S, 2 * EXPERT_INTER), buf(S, EXPERT_INTER)
        self.c2_q, self.c2_s = buf(S, EXPERT_INTER, dtype=f8), buf(S, EXPERT_INTER // 128,
                                                                   dtype=f32).abs()
        self.c3, self.routed = buf(S, HIDDEN), buf(B, HIDDEN)
        self.one = torch.ones((), device=dev)
        # positions: every sequence decodes its token number ctx - 1; slots b * ctx + j
        self.positions = torch.full((B,), ctx - 1, device=dev, dtype=torch.int32)
        self.cos, self.sin = rope_tables(ctx, ROPE, 10000.0)
        self.kv_idx = (torch.arange(B, device=dev)[:, None] * ctx +
                       torch.arange(ctx, device=dev)[None, :]).to(torch.int32).contiguous()
        self.cache_loc = (torch.arange(B, device=dev) * ctx + ctx - 1).to(torch.int32)
        self.caches = [rnd(B * ctx, KV_LORA + ROPE) for _ in weights]
        self.attn = DecodeAttn(B, HEADS, HEADS, KV_LORA, ROPE, KV_LORA, QK ** -0.5, block_n=32,
                               warps=4, stages=2)
        self.group_m = MOE_GROUP_M.get(B, 16)
        self.layer_steps = [self.steps(w, c) for w, c in zip(weights, self.caches)]

    def gemm(self, w, a, s, out):
        if self.dense == "cublaslt_tensor":
            w.run("cublaslt_tensor", a, s, out, self.one)
        else:
            B = self.B
            w.run("triton_block", a[:B], s[:B], out[:B], self.one)

    def experts_hit(self):
        return int(torch.unique(self.topk_ids).numel())

    def steps(self, W, cache):
        """[(name, fn, bytes)] of one layer."""
        B, S, ctx = self.B, self.S, self.ctx
        att = self.attn
        E1 = 2 * EXPERT_INTER * HIDDEN * (1 + 4 / 128 / 128)     # one expert's gate+up bytes
        E2 = HIDDEN * EXPERT_INTER * (1 + 4 / 128 / 128)

        def dense_bytes(n, k):
            return n * k * (1 + 4 / 128 / 128) + B * k * (1 + 4 / 128) + B * n * 2

        def quant_bytes(k):
            return B * k * 3 + B * k // 128 * 4

        q_b3 = lambda: self.q_b_out[:B].view(B, HEADS, QK)  # noqa: E731
        st = [
            ("attn_norm", lambda: fused_add_rmsnorm(self.hidden_in, self.residual_in,
                                                     self.residual1, self.x_norm, W.w_attn_norm),
             B * HIDDEN * 8 + HIDDEN * 2),
            ("qkv_a_quant", lambda: group_quant(self.x_norm, self.x_q[:B], self.x_s[:B]),
             quant_bytes(HIDDEN)),
            ("qkv_a_proj", lambda: self.gemm(W.qkv_a, self.x_q, self.x_s, self.qkv_out),
             dense_bytes(Q_LORA + KV_LORA + ROPE, HIDDEN)),
            ("q_a_norm", lambda: rmsnorm(self.qkv_out[:B, :Q_LORA], self.q_lat_n, W.w_qa_norm),
             B * Q_LORA * 4 + Q_LORA * 2),
            ("kv_a_norm", lambda: rmsnorm(self.qkv_out[:B, Q_LORA:Q_LORA + KV_LORA], self.kv_n,
                                          W.w_kva_norm), B * KV_LORA * 4 + KV_LORA * 2),
            ("q_b_quant", lambda: group_quant(self.q_lat_n, self.ql_q[:B], self.ql_s[:B]),
             quant_bytes(Q_LORA)),
            ("q_b_proj", lambda: self.gemm(W.q_b, self.ql_q, self.ql_s, self.q_b_out),
             dense_bytes(HEADS * QK, Q_LORA)),
            ("q_absorb", lambda: torch.bmm(q_b3()[..., :NOPE].transpose(0, 1), W.w_kc,
                                           out=self.q_nope_out),
             HEADS * NOPE * KV_LORA * 2 + B * HEADS * (NOPE + KV_LORA) * 2),
            ("q_absorb_copy", lambda: self.q_input[..., :KV_LORA].copy_(
                self.q_nope_out.transpose(0, 1)), B * HEADS * KV_LORA * 4),
            ("rope", lambda: rope_kernel[(B,)](self.q_b_out, self.qkv_out[:, Q_LORA + KV_LORA:],
                                               self.qkv_out.stride(0), self.k_pe, self.positions,
                                               self.cos, self.sin, H=HEADS, QKD=QK, NOPE_D=NOPE,
                                               HALF=ROPE // 2, num_warps=2),
             B * (HEADS + 1) * ROPE * 4),
            ("q_pe_copy", lambda: self.q_input[..., KV_LORA:].copy_(q_b3()[..., NOPE:]),
             B * HEADS * ROPE * 4),
            ("kv_cache_store", lambda: store_latent_kernel[(B,)](self.kv_n, self.k_pe, cache,
                                                                 self.cache_loc, L=KV_LORA,
                                                                 R=ROPE, num_warps=2),
             B * (KV_LORA + ROPE) * 4),
            ("attn_decode", lambda: att.stage1(self.q_input, HEADS * (KV_LORA + ROPE),
                                               KV_LORA + ROPE, cache, KV_LORA + ROPE, 0, cache,
                                               KV_LORA + ROPE, 0, self.kv_idx, ctx),
             B * ctx * ((KV_LORA + ROPE) * 2 + 4) + B * HEADS * (KV_LORA + ROPE) * 2 +
             B * HEADS * KV_SPLITS * (KV_LORA + 1) * 4),
            ("attn_combine", lambda: att.stage2(self.attn_out, HEADS * KV_LORA, KV_LORA),
             B * HEADS * KV_SPLITS * (KV_LORA + 1) * 4 + B * HEADS * KV_LORA * 2),
            ("v_absorb", lambda: torch.bmm(self.attn_out.transpose(0, 1), W.w_vc, out=self.v_out),
             HEADS * KV_LORA * V_DIM * 2 + B * HEADS * (KV_LORA + V_DIM) * 2),
            ("v_out_copy", lambda: self.attn_flat.view(B, HEADS, V_DIM).copy_(
                self.v_out.transpose(0, 1)), B * HEADS * V_DIM * 4),
            ("o_quant", lambda: group_quant(self.attn_flat, self.ao_q[:B], self.ao_s[:B]),
             quant_bytes(HEADS * V_DIM)),
            ("o_proj", lambda: self.gemm(W.o, self.ao_q, self.ao_s, self.o_out),
             dense_bytes(HIDDEN, HEADS * V_DIM)),
            ("mlp_norm", lambda: fused_add_rmsnorm(self.o_out[:B], self.residual1, self.residual2,
                                                    self.h_norm, W.w_mlp_norm),
             B * HIDDEN * 8 + HIDDEN * 2),
            ("router", lambda: torch.matmul(self.h_norm, W.w_router.t(), out=self.logits),
             EXPERTS * HIDDEN * 2 + B * HIDDEN * 2 + B * EXPERTS * 2),
            ("topk", (lambda: fused_topk(self.logits, W.router_bias, self.topk_ids, self.topk_w))
             if self.routing == "fused" else
             (lambda: grouped_topk(self.logits, W.router_bias, self.topk_ids, self.topk_w)),
             B * EXPERTS * 2 + EXPERTS * 4 + B * TOPK * 8),
            ("shared_in_quant", lambda: group_quant(self.h_norm, self.h_q[:B], self.h_s[:B]),
             quant_bytes(HIDDEN)),
            ("shared_up_gate", lambda: self.gemm(W.sh_up, self.h_q, self.h_s, self.sh_gu),
             dense_bytes(2 * SHARED_INTER, HIDDEN)),
            ("shared_act", lambda: silu_mul(self.sh_gu[:B], self.sh_act),
             B * SHARED_INTER * 6),
            ("shared_down_quant", lambda: group_quant(self.sh_act, self.sh_aq[:B],
                                                      self.sh_as[:B]), quant_bytes(SHARED_INTER)),
            ("shared_down", lambda: self.gemm(W.sh_down, self.sh_aq, self.sh_as, self.sh_out),
             dense_bytes(HIDDEN, SHARED_INTER)),
            ("moe_align", (lambda: moe_align_small(self.topk_ids, self.sorted_ids, self.eids,
                                                   self.npost))
             if self.routing == "fused" else
             (lambda: moe_align_torch(self.topk_ids, MOE_BLOCK_M, self.sorted_ids, self.eids,
                                      self.npost, self.ones, self.arange_slots,
                                      self.block_starts)),
             S * 4 + self.em * 4 + self.n_blocks * 4 + 4),
            ("experts_in_quant", lambda: group_quant(self.h_norm, self.he_q, self.he_s),
             quant_bytes(HIDDEN)),
            ("experts_up_gate", lambda: moe_gemm_decode(
                self.he_q, self.he_s, W.w13, W.s13, self.c1, self.topk_w, self.sorted_ids,
                self.eids, self.npost, 2 * EXPERT_INTER, HIDDEN, S, TOPK, False, self.group_m),
             ("experts", E1, B * HIDDEN * (1 + 4 / 128) + S * 2 * EXPERT_INTER * 2)),
            ("experts_act", lambda: silu_mul(self.c1, self.c2), S * EXPERT_INTER * 6),
            ("experts_down_quant", lambda: group_quant(self.c2, self.c2_q, self.c2_s),
             S * EXPERT_INTER * 3 + S * EXPERT_INTER // 128 * 4),
            ("experts_down", lambda: moe_gemm_decode(
                self.c2_q, self.c2_s, W.w2, W.s2, self.c3, self.topk_w, self.sorted_ids,
                self.eids, self.npost, HIDDEN, EXPERT_INTER, S, 1, True, self.group_m),
             ("experts", E2, S * EXPERT_INTER * (1 + 4 / 128) + S * HIDDEN * 2)),
            ("experts_combine", lambda: moe_sum(self.c3, self.routed, ROUTED_SCALING),
             S * HIDDEN * 2 + B * HIDDEN * 2),
            ("moe_out_add", lambda: self.routed.add_(self.sh_out[:B]), B * HIDDEN * 6),
        ]
        return st

    def step_bytes(self, b):
        """Bytes of a step: a number, or ("experts", per-expert weight bytes, other bytes)."""
        if isinstance(b, tuple):
            return b[1] * self.experts_hit() + b[2]
        return b


# --- Llama-3-8B decode layer (TP1, bf16) ------------------------------------------------------------
class LlamaWeights:
    def __init__(self, gen):
        h, hd, kvh, nh, inter = (LLAMA[k] for k in ("hidden", "head_dim", "kv_heads", "heads",
                                                     "inter"))

        def rnd(*shape, scale=1.0):
            return (torch.randn(*shape, device="cuda", generator=gen) * scale).to(torch.bfloat16)

        self.w_attn_norm = rnd(h, scale=0.1) + 1
        self.w_mlp_norm = rnd(h, scale=0.1) + 1
        self.wqkv = rnd((nh + 2 * kvh) * hd, h, scale=h ** -0.5)
        self.wo = rnd(h, nh * hd, scale=(nh * hd) ** -0.5)
        self.w13 = rnd(2 * inter, h, scale=h ** -0.5)
        self.w2 = rnd(h, inter, scale=inter ** -0.5)


class LlamaDecode:
    def __init__(self, B, ctx, weights, gen):
        self.B, self.ctx, self.weights = B, ctx, weights
        h, hd, kvh, nh, inter = (LLAMA[k] for k in ("hidden", "head_dim", "kv_heads", "heads",
                                                     "inter"))
        self.dims = (h, hd, kvh, nh, inter)

        def rnd(*shape, scale=1.0):
            return (torch.randn(*shape, device="cuda", generator=gen) * scale).to(torch.bfloat16)

        self.hidden_in, self.residual_in = rnd(B, h), rnd(B, h)
        self.residual1, self.x_norm = rnd(B, h), rnd(B, h)
        self.qkv = rnd(B, (nh + 2 * kvh) * hd)
        self.attn_o = rnd(B, nh * hd)
        self.o_out = rnd(B, h)
        self.residual2, self.h_norm = rnd(B, h), rnd(B, h)
        self.gu, self.act, self.down = rnd(B, 2 * inter), rnd(B, inter), rnd(B, h)
        self.positions = torch.full((B,), ctx - 1, device="cuda", dtype=torch.int32)
        self.cos, self.sin = rope_tables(ctx, hd, LLAMA["theta"])
        self.kv_idx = (torch.arange(B, device="cuda")[:, None] * ctx +
                       torch.arange(ctx, device="cuda")[None, :]).to(torch.int32).contiguous()
        self.cache_loc = (torch.arange(B, device="cuda") * ctx + ctx - 1).to(torch.int32)
        self.caches = [(rnd(B * ctx, kvh, hd), rnd(B * ctx, kvh, hd)) for _ in weights]
        self.attn = DecodeAttn(B, nh, nh // kvh, hd, 0, hd, hd ** -0.5, block_n=32, warps=4,
                               stages=2)
        self.layer_steps = [self.steps(w, c) for w, c in zip(weights, self.caches)]

    def steps(self, W, cache):
        B, ctx = self.B, self.ctx
        h, hd, kvh, nh, inter = self.dims
        kc, vc = cache
        qkv_n = (nh + 2 * kvh) * hd
        att = self.attn
        return [
            ("attn_norm", lambda: fused_add_rmsnorm(self.hidden_in, self.residual_in,
                                                     self.residual1, self.x_norm, W.w_attn_norm),
             B * h * 8 + h * 2),
            ("qkv_proj", lambda: torch.matmul(self.x_norm, W.wqkv.t(), out=self.qkv),
             qkv_n * h * 2 + B * (h + qkv_n) * 2),
            ("rope", lambda: rope_neox_kernel[(B,)](self.qkv, qkv_n, self.positions, self.cos,
                                                    self.sin, nh + kvh, HP=next_pow2(nh + kvh),
                                                    HALF=hd // 2, num_warps=4),
             B * (nh + kvh) * hd * 4),
            ("kv_cache_store", lambda: store_kv_kernel[(B,)](self.qkv[:, nh * hd:],
                                                             self.qkv[:, (nh + kvh) * hd:],
                                                             qkv_n, kc, vc, self.cache_loc,
                                                             W=kvh * hd, num_warps=4),
             B * kvh * hd * 8),
            ("attn_decode", lambda: att.stage1(self.qkv, qkv_n, hd, kc, kvh * hd, hd, vc,
                                               kvh * hd, hd, self.kv_idx, ctx),
             B * ctx * (kvh * hd * 4 + 4) + B * nh * hd * 2 + B * nh * KV_SPLITS * (hd + 1) * 4),
            ("attn_combine", lambda: att.stage2(self.attn_o, nh * hd, hd),
             B * nh * KV_SPLITS * (hd + 1) * 4 + B * nh * hd * 2),
            ("o_proj", lambda: torch.matmul(self.attn_o, W.wo.t(), out=self.o_out),
             h * nh * hd * 2 + B * (h + nh * hd) * 2),
            ("mlp_norm", lambda: fused_add_rmsnorm(self.o_out, self.residual1, self.residual2,
                                                    self.h_norm, W.w_mlp_norm),
             B * h * 8 + h * 2),
            ("gate_up", lambda: torch.matmul(self.h_norm, W.w13.t(), out=self.gu),
             2 * inter * h * 2 + B * (h + 2 * inter) * 2),
            ("act", lambda: silu_mul_cols(self.gu, self.act), B * inter * 6),
            ("down", lambda: torch.matmul(self.act, W.w2.t(), out=self.down),
             h * inter * 2 + B * (inter + h) * 2),
        ]

    def step_bytes(self, b):
        return b


# --- profiling and analysis -----------------------------------------------------------------------
def profile_events(fn):
    """CUPTI records (kernels, memcpy, memset) of fn(), sorted by start: [(ts_us, dur_us, name)]."""
    return [(float(e["ts"]), float(e["dur"]), e["name"]) for e in cupti_records(fn)]


def step_kernel_names(steps):
    """Kernel names of each step, in graph mode: one layer captured with a marker kernel before
    each step and after the last, one replay profiled."""
    flag = torch.zeros(1, device="cuda", dtype=torch.int32)

    def marked():
        for _, fn, _ in steps:
            step_marker_kernel[(1,)](flag)
            fn()
        step_marker_kernel[(1,)](flag)

    g = capture(marked)
    ks = profile_events(g.replay)
    del g
    segs, cur = [], None
    for _, _, name in ks:
        if "step_marker_kernel" in name:
            if cur is not None:
                segs.append(cur)
            cur = []
        elif cur is not None:
            cur.append(name)
    if len(segs) != len(steps):
        raise RuntimeError(f"marker split gave {len(segs)} segments for {len(steps)} steps")
    return segs


def st(xs):
    if not xs:
        return None
    s = sorted(xs)
    n = len(s)
    return {"n": n, "median": statistics.median(s), "p10": s[int(0.1 * (n - 1))],
            "p90": s[int(0.9 * (n - 1))], "min": s[0], "max": s[-1], "mean": sum(s) / n}


def r2(x):
    return None if x is None else round(x, 3)


def analyse(events, segs, step_names, step_bytes, n_layers, replays, drop_first=True):
    """Per-kernel durations and gaps of `replays` profiled graph replays of n_layers layers."""
    pos_step = [i for i, names in enumerate(segs) for _ in names]
    pos_name = [n for names in segs for n in names]
    K = len(pos_step)
    per_replay = K * n_layers
    out = {"kernels_per_layer": K, "profiled_records": len(events)}
    if len(events) != per_replay * replays:
        out["error"] = (f"{len(events)} records, expected {replays} x {per_replay}: no step "
                        f"mapping")
        return out
    reps = [events[r * per_replay:(r + 1) * per_replay] for r in range(replays)]
    if drop_first and replays > 1:
        reps = reps[1:]
        out["dropped_first_profiled_replay"] = True
    name_ok = sum(1 for rep in reps for i, e in enumerate(rep) if e[2] == pos_name[i % K])
    out["names_matching_marker_capture"] = name_ok / (len(reps) * per_replay)
    durs = [[] for _ in range(K)]
    gaps = [[] for _ in range(K)]
    all_gaps, neg = [], 0
    rep_stats = []
    for rep in reps:
        busy = sum(e[1] for e in rep)
        gsum = 0.0
        for i, (ts, dur, _) in enumerate(rep):
            durs[i % K].append(dur)
            if i:
                g = ts - (rep[i - 1][0] + rep[i - 1][1])
                neg += g < 0
                g = max(0.0, g)
                gaps[i % K].append(g)
                all_gaps.append(g)
                gsum += g
        span = rep[-1][0] + rep[-1][1] - rep[0][0]
        rep_stats.append({"span_us": span, "busy_us": busy, "gap_us": gsum})
    out["replays_analysed"] = len(reps)
    out["per_replay"] = {k: st([r[k] for r in rep_stats]) for k in ("span_us", "busy_us",
                                                                  "gap_us")}
    med = {k: statistics.median(r[k] for r in rep_stats) for k in ("span_us", "busy_us", "gap_us")}
    out["per_layer"] = {"kernels": K, "span_us": med["span_us"] / n_layers,
                        "kernel_sum_us": med["busy_us"] / n_layers,
                        "gap_sum_us": med["gap_us"] / n_layers}
    out["gaps_us"] = st(all_gaps)
    out["negative_gaps"] = neg
    positions = []
    for i in range(K):
        s = step_names[pos_step[i]]
        positions.append({"pos": i, "step": s, "kernel": pos_name[i][:100],
                          "step_bytes": step_bytes[pos_step[i]],
                          "dur_us": {k: r2(v) for k, v in st(durs[i]).items()
                                     if k not in ("n", "mean")},
                          "gap_before_us": ({k: r2(v) for k, v in st(gaps[i]).items()
                                             if k not in ("n", "mean")} if gaps[i] else None)})
    out["kernels"] = positions
    small = [d for i in range(K) if step_bytes[pos_step[i]] < SMALL_BYTES for d in durs[i]]
    out["small_kernels"] = {"threshold_bytes": SMALL_BYTES,
                            "per_layer": sum(1 for i in range(K)
                                             if step_bytes[pos_step[i]] < SMALL_BYTES),
                            "dur_us": st(small)}
    out["all_kernels_dur_us"] = st([d for i in range(K) for d in durs[i]])
    top = sorted(positions, key=lambda p: -p["dur_us"]["median"])[:10]
    out["top10"] = [{"step": p["step"], "kernel": p["kernel"][:60], "median_us": p["dur_us"]["median"],
                     "min_us": p["dur_us"]["min"], "max_us": p["dur_us"]["max"],
                     "step_bytes": p["step_bytes"]} for p in top]
    steps = []
    for si, name in enumerate(step_names):
        idx = [i for i in range(K) if pos_step[i] == si]
        if not idx:
            steps.append({"step": name, "kernels": 0, "step_bytes": step_bytes[si]})
            continue
        inst = [sum(durs[i][r] for i in idx) for r in range(len(durs[idx[0]]))]
        gb = gaps[idx[0]]
        steps.append({"step": name, "kernels": len(idx), "step_bytes": step_bytes[si],
                      "dur_us": r2(statistics.median(inst)),
                      "gap_before_us": r2(statistics.median(gb)) if gb else None,
                      "inner_gaps_us": r2(sum(statistics.median(gaps[i]) for i in idx[1:]))})
    out["steps"] = steps
    # raw records of the second layer of one replay (the second analysed), for reading by eye:
    # [start from the layer's first kernel, duration, name], us
    rep = reps[min(1, len(reps) - 1)][K * min(1, n_layers - 1):K * min(2, n_layers)]
    t0 = rep[0][0]
    out["one_layer_raw"] = [[round(ts - t0, 2), round(d, 2), n[:60]] for ts, d, n in rep]
    return out


def time_total(fn, n):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    a.record()
    for _ in range(n):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1e3 / n


def time_synced(fn, n):
    """n calls, each from an idle GPU: event pair around it, synchronize after it (the method of
    probe_compute.time_graph, which measured the planner's 0.84 us floor)."""
    t = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        t.append(a.elapsed_time(b) * 1e3)
    return {"median_us": statistics.median(t), "min_us": min(t), "max_us": max(t), "n": n}


def measure(model, label, args):
    """One model config: graph of all layers, CUDA-event replay times, profiled replays."""
    n_layers = len(model.layer_steps)
    steps0 = model.layer_steps[0]

    def run_all():
        for steps in model.layer_steps:
            for _, fn, _ in steps:
                fn()

    run_all()
    torch.cuda.synchronize()
    rec = {"label": label, "batch": model.B, "context": model.ctx, "layers_in_graph": n_layers}
    if isinstance(model, R1Decode):
        rec.update({"dense_gemm": model.dense, "routing": model.routing,
                    "experts_hit_last_layer": model.experts_hit(),
                    "padded_rows": int(model.npost.item()), "slots": model.S,
                    "moe_grid_m_blocks": model.n_blocks})
    step_names = [s[0] for s in steps0]
    step_bytes = [float(model.step_bytes(s[2])) for s in steps0]
    segs = step_kernel_names(steps0)
    rec["step_kernels"] = {n: [k[:80] for k in seg] for n, seg in zip(step_names, segs)}
    g = capture(run_all)
    for _ in range(10):
        g.replay()
    torch.cuda.synchronize()
    ev = time_back_to_back(g.replay, args.replays)
    tot = time_total(g.replay, args.replays)
    ev2 = time_back_to_back(g.replay, args.replays)
    sy = time_synced(g.replay, 50)
    rec["replay_events_us"] = ev
    rec["replay_events_us_again"] = ev2
    rec["replay_total_over_n_us"] = tot
    rec["replay_synced_us"] = sy
    rec["layer_us"] = ev["median_us"] / n_layers
    rec["layer_us_synced"] = sy["median_us"] / n_layers
    R = args.profile_replays + 1
    events = profile_events(lambda: [g.replay() for _ in range(R)])
    prof = analyse(events, segs, step_names, step_bytes, n_layers, R)
    rec["profile"] = prof
    if "per_layer" in prof:
        busy = prof["per_layer"]["kernel_sum_us"]
        K = prof["kernels_per_layer"]
        # GPU time per kernel not spent in kernels when nothing profiles: events minus CUPTI busy
        rec["implied_gap_per_kernel_us"] = (rec["layer_us"] - busy) / K
    del g
    torch.cuda.synchronize()
    p = rec.get("profile", {})
    pl = p.get("per_layer", {})
    gs = p.get("gaps_us") or {}
    sk = (p.get("small_kernels") or {}).get("dur_us") or {}
    print(f"{label:34s} layer {rec['layer_us']:7.1f} us (events, replay {ev['median_us']:.1f} "
          f"[{ev['min_us']:.1f}-{ev['max_us']:.1f}], again {ev2['median_us']:.1f}, total/n "
          f"{tot:.1f}, synced {sy['median_us']:.1f}) | kernels/layer {pl.get('kernels', '?')} sum {pl.get('kernel_sum_us', 0):.1f}"
          f" gaps {pl.get('gap_sum_us', 0):.1f} span {pl.get('span_us', 0):.1f} | gap med "
          f"{gs.get('median', float('nan')):.2f} p10 {gs.get('p10', float('nan')):.2f} p90 "
          f"{gs.get('p90', float('nan')):.2f} | small med {sk.get('median', float('nan')):.2f} "
          f"(n/layer {(p.get('small_kernels') or {}).get('per_layer', '?')}) | implied gap "
          f"{rec.get('implied_gap_per_kernel_us', float('nan')):.2f} {p.get('error', '')}",
          flush=True)
    return rec


def tune_dense(model):
    """Best DECODE_TILES entry per dense GEMM at this batch (Triton block-FP8), timed inside a CUDA
    graph (the GEMM of every layer's weights, 8 rounds: 32 launches; median of 5 replays each from
    an idle GPU, / launches); sets the tile of that GEMM in every layer. (Timing one launch
    eagerly, as do_bench does, measured the host's Triton launch at these sizes.)"""
    B = model.B
    ins = {"qkv_a": (model.x_q, model.x_s, model.qkv_out), "q_b": (model.ql_q, model.ql_s,
                                                                     model.q_b_out),
           "o": (model.ao_q, model.ao_s, model.o_out), "sh_up": (model.h_q, model.h_s,
                                                                 model.sh_gu),
           "sh_down": (model.sh_aq, model.sh_as, model.sh_out)}
    out, chosen = [], {}
    for name, (a, sa, c) in ins.items():
        ws = [lw.dense()[name] for lw in model.weights]
        best = None
        for tile in DECODE_TILES:
            for w in ws:
                w.tile = tile
            fns = [lambda w=w: w.run("triton_block", a[:B], sa[:B], c[:B], model.one)
                   for w in ws] * 8
            try:
                g = capture(lambda: [f() for f in fns])
                for _ in range(3):
                    g.replay()
                us = time_synced(g.replay, 5)["median_us"] / len(fns)
                del g
            except Exception as e:  # noqa: BLE001
                out.append({"gemm": name, "tile": tile, "error": f"{type(e).__name__}: "
                                                               f"{str(e)[:120]}"})
                continue
            out.append({"gemm": name, "m": B, "n": ws[0].n, "k": ws[0].k, "tile": tile,
                        "us_in_graph": us})
            if best is None or us < best[0]:
                best = (us, tile)
        chosen[name] = list(best[1]) if best else list(DECODE_TILES[0])
        for w in ws:
            w.tile = tuple(chosen[name])
    return out, chosen


def micro(args):
    """Chains of tiny kernels in one graph. `floor_graph_probe_compute` is the planner's floor
    measurement itself (probe_compute.probe_floor: 1,000 x.add_(1.0) on one element in one graph,
    median of 7 replays / 1,000; the 0.84 us of 2026-12-02); the chains below time 256 and 1,000
    launches of the same op and of Triton kernels of 1, 132 and 1,024 CTAs (one element each),
    with CUDA events (median of 20 replays queued back to back, and of 7 replays each from an idle
    GPU) and under CUPTI (duration and gap per kernel)."""
    from probe_compute import probe_floor
    res = {}
    pts = []
    probe_floor(pts)
    res["floor_graph_probe_compute"] = pts
    x = torch.zeros(1, device="cuda")
    p = torch.zeros(1, device="cuda", dtype=torch.int32)
    pg = torch.zeros(1024, device="cuda", dtype=torch.int32)
    for name, fn in (("torch_add_1elem", lambda: x.add_(1.0)),
                     ("triton_1elem", lambda: tiny_kernel[(1,)](p)),
                     ("triton_132cta", lambda: tiny_grid_kernel[(132,)](pg)),
                     ("triton_1024cta", lambda: tiny_grid_kernel[(1024,)](pg))):
        for n in (256, 1000):
            def chain(fn=fn, n=n):
                for _ in range(n):
                    fn()
            g = capture(chain)
            ev = time_back_to_back(g.replay, 20)
            sy = time_synced(g.replay, 7)
            events = profile_events(lambda: [g.replay() for _ in range(3)])
            durs = [e[1] for e in events]
            gaps = [max(0.0, events[i][0] - events[i - 1][0] - events[i - 1][1])
                    for i in range(1, len(events)) if i % n]
            key = f"{name}_x{n}"
            res[key] = {"kernels_per_graph": n, "per_kernel_events_us": ev["median_us"] / n,
                        "per_kernel_synced_us": sy["median_us"] / n,
                        "replay_events": ev, "replay_synced": sy, "profiled_records": len(events),
                        "dur_us": st(durs), "gap_us": st(gaps)}
            print(f"micro {key:22s} {ev['median_us'] / n:.3f} us/kernel (events, back to back), "
                  f"{sy['median_us'] / n:.3f} (synced); profiled dur "
                  f"med {res[key]['dur_us']['median']:.2f} gap med "
                  f"{res[key]['gap_us']['median']:.2f}", flush=True)
            del g
    return res


# --- checks ---------------------------------------------------------------------------------------
def attn_ref(q, kc, vc, idx, scale, kv_group):
    """q [B, H, Dk] fp32; kc [slots, KVH, Dk]; vc [slots, KVH, Dv]; idx [B, ctx]."""
    outs = []
    for b in range(q.shape[0]):
        k = kc[idx[b].long()].float().repeat_interleave(kv_group, dim=1)
        v = vc[idx[b].long()].float().repeat_interleave(kv_group, dim=1)
        s = torch.einsum("hd,chd->hc", q[b].float(), k) * scale
        outs.append(torch.einsum("hc,chd->hd", s.softmax(-1), v))
    return torch.stack(outs)


def checks(gen):
    out = []

    def rec(name, r, bound):
        out.append({"check": name, "relative_error": r, "ok": bool(r < bound), "bound": bound})
        print(f"check {name:34s} rel err {r:.2e} {'ok' if r < bound else 'FAIL'}", flush=True)

    def guard(name, fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            out.append({"check": name, "error": f"{type(e).__name__}: {str(e)[:300]}"})
            print(f"check {name} ERROR {type(e).__name__}: {str(e)[:300]}", flush=True)

    def mla():
        for B, ctx in ((2, 1024), (3, 1000)):
            d = KV_LORA + ROPE
            cache = torch.randn(B * ctx + 7, d, device="cuda", dtype=torch.bfloat16)
            idx = torch.randperm(B * ctx + 7, device="cuda")[:B * ctx].view(B, ctx).to(
                torch.int32).contiguous()
            q = torch.randn(B, HEADS, d, device="cuda", dtype=torch.bfloat16)
            o = torch.empty(B, HEADS, KV_LORA, device="cuda", dtype=torch.bfloat16)
            a = DecodeAttn(B, HEADS, HEADS, KV_LORA, ROPE, KV_LORA, QK ** -0.5, 32, 4, 2)
            a.stage1(q, HEADS * d, d, cache, d, 0, cache, d, 0, idx, ctx)
            a.stage2(o, HEADS * KV_LORA, KV_LORA)
            torch.cuda.synchronize()
            ref = attn_ref(q, cache[:, None, :], cache[:, None, :KV_LORA], idx, QK ** -0.5, HEADS)
            rec(f"mla decode B{B} ctx{ctx}", rel(o, ref), 2e-2)

    def gqa():
        h, hd, kvh, nh = (LLAMA[k] for k in ("hidden", "head_dim", "kv_heads", "heads"))
        B, ctx = 3, 1000
        kc = torch.randn(B * ctx, kvh, hd, device="cuda", dtype=torch.bfloat16)
        vc = torch.randn(B * ctx, kvh, hd, device="cuda", dtype=torch.bfloat16)
        idx = torch.randperm(B * ctx, device="cuda").view(B, ctx).to(torch.int32).contiguous()
        qkv = torch.randn(B, (nh + 2 * kvh) * hd, device="cuda", dtype=torch.bfloat16)
        o = torch.empty(B, nh * hd, device="cuda", dtype=torch.bfloat16)
        a = DecodeAttn(B, nh, nh // kvh, hd, 0, hd, hd ** -0.5, 32, 4, 2)
        a.stage1(qkv, qkv.shape[1], hd, kc, kvh * hd, hd, vc, kvh * hd, hd, idx, ctx)
        a.stage2(o, nh * hd, hd)
        torch.cuda.synchronize()
        ref = attn_ref(qkv[:, :nh * hd].view(B, nh, hd), kc, vc, idx, hd ** -0.5, nh // kvh)
        rec("gqa decode B3 ctx1000", rel(o.view(B, nh, hd), ref), 2e-2)

    def topk_align():
        for B in (1, 8, 64):
            logits = torch.randn(B, EXPERTS, device="cuda", generator=gen).to(torch.bfloat16)
            bias = torch.rand(EXPERTS, device="cuda", generator=gen) * 0.01
            ids, w = (torch.zeros(B, TOPK, device="cuda", dtype=torch.int32),
                      torch.zeros(B, TOPK, device="cuda"))
            ids_r, w_r = torch.zeros_like(ids), torch.zeros_like(w)
            fused_topk(logits, bias, ids, w)
            grouped_topk(logits, bias, ids_r, w_r)
            torch.cuda.synchronize()
            si, oi = ids.long().sort(-1)
            sr, orr = ids_r.long().sort(-1)
            rec(f"fused topk ids B{B} (mismatch frac)", float((si != sr).float().mean()), 1e-6)
            rec(f"fused topk weights B{B}", rel(w.gather(1, oi), w_r.gather(1, orr)), 1e-5)
            if B > 8:
                continue
            S = B * TOPK
            em = min(S * MOE_BLOCK_M, S + EXPERTS * (MOE_BLOCK_M - 1))
            nb = triton.cdiv(em, MOE_BLOCK_M)
            srt, eid, npo = (torch.zeros(em, device="cuda", dtype=torch.int32),
                             torch.zeros(nb, device="cuda", dtype=torch.int32),
                             torch.zeros(1, device="cuda", dtype=torch.int32))
            srt_r, eid_r, npo_r = torch.zeros_like(srt), torch.zeros_like(eid), torch.zeros_like(npo)
            moe_align_small(ids, srt, eid, npo)
            moe_align_torch(ids, MOE_BLOCK_M, srt_r, eid_r, npo_r,
                            torch.ones(S, device="cuda", dtype=torch.long),
                            torch.arange(S, device="cuda"),
                            torch.arange(nb, device="cuda") * MOE_BLOCK_M)
            torch.cuda.synchronize()
            n = int(npo_r.item())
            same = (int(npo.item()) == n and bool((srt == srt_r).all()) and
                    bool((eid[:n // MOE_BLOCK_M] == eid_r[:n // MOE_BLOCK_M]).all()))
            rec(f"moe_align_small vs torch B{B}", 0.0 if same else 1.0, 0.5)

    def layer():
        w = R1Weights(gen)
        m = R1Decode(8, 1024, [w], gen)
        for s in m.layer_steps[0]:
            s[1]()
        torch.cuda.synchronize()
        B, S = m.B, m.S
        # absorbed q
        qb = m.q_b_out[:B].view(B, HEADS, QK).float()
        ref = torch.einsum("bhn,hnl->bhl", qb[..., :NOPE], w.w_kc.float())
        rec("q_absorb + copy", rel(m.q_input[..., :KV_LORA], ref), 1e-2)
        # q_pe (rotated in place in q_b_out, then copied) and k_pe
        rec("q_pe_copy", rel(m.q_input[..., KV_LORA:], qb[..., NOPE:]), 1e-6)
        x = m.qkv_out[:B, Q_LORA + KV_LORA:].float()
        c, sn = m.cos[-1], m.sin[-1]
        hh = ROPE // 2
        kref = torch.cat([x[:, :hh] * c - x[:, hh:] * sn, x[:, hh:] * c + x[:, :hh] * sn], 1)
        rec("rope k_pe", rel(m.k_pe, kref), 1e-2)
        rec("kv_cache_store", rel(m.caches[0][m.cache_loc.long()],
                                  torch.cat([m.kv_n, m.k_pe], 1)), 1e-6)
        ref = attn_ref(m.q_input, m.caches[0][:, None, :], m.caches[0][:, None, :KV_LORA],
                       m.kv_idx, QK ** -0.5, HEADS)
        rec("attn in layer", rel(m.attn_out, ref), 2e-2)
        ref = torch.einsum("bhl,hlv->bhv", m.attn_out.float(), w.w_vc.float()).reshape(B, -1)
        rec("v_absorb + copy", rel(m.attn_flat, ref), 1e-2)
        # routed experts end to end
        xin = dequant_act(m.he_q, m.he_s)
        w13, w2 = dequant_w(w.w13, w.s13), dequant_w(w.w2, w.s2)
        ids = m.topk_ids.long().view(-1)
        c1 = torch.stack([xin[s // TOPK] @ w13[ids[s]].t() for s in range(S)])
        rec("experts_up_gate (decode tile)", rel(m.c1, c1), 2e-2)
        a2 = dequant_act(m.c2_q, m.c2_s)
        c3 = torch.stack([(a2[s] @ w2[ids[s]].t()) * m.topk_w.view(-1)[s] for s in range(S)])
        rec("experts_down (decode tile)", rel(m.c3, c3), 2e-2)
        ref = m.c3.float().view(B, TOPK, HIDDEN).sum(1) * ROUTED_SCALING + m.sh_out[:B].float()
        rec("experts_combine + moe_out_add", rel(m.routed, ref), 1e-2)
        for dense in ("triton_block", "cublaslt_tensor"):
            m.dense = dense
            m.layer_steps[0][2][1]()
            torch.cuda.synchronize()
            if dense == "triton_block":
                ref = dequant_act(m.x_q[:B], m.x_s[:B]) @ dequant_w(w.qkv_a.w, w.qkv_a.s).t()
            else:
                ref = m.x_q[:B].float() @ w.qkv_a.w.float().t()
            rec(f"qkv_a_proj {dense} m{B}", rel(m.qkv_out[:B], ref), 2e-2)
        del m, w

    def llama_small():
        w = LlamaWeights(gen)
        m = LlamaDecode(2, 256, [w], gen)
        pre = m.qkv.clone()
        steps = m.layer_steps[0]
        for s in steps[:2]:
            s[1]()
        torch.cuda.synchronize()
        pre = m.qkv.float().clone()
        steps[2][1]()
        steps[3][1]()
        torch.cuda.synchronize()
        h, hd, kvh, nh, inter = m.dims
        x = pre[:, :(nh + kvh) * hd].view(2, nh + kvh, hd)
        c, sn = m.cos[-1], m.sin[-1]
        hh = hd // 2
        ref = torch.cat([x[..., :hh] * c - x[..., hh:] * sn, x[..., hh:] * c + x[..., :hh] * sn],
                        -1)
        rec("llama rope q,k", rel(m.qkv[:, :(nh + kvh) * hd].view(2, nh + kvh, hd), ref), 1e-2)
        kc, vc = m.caches[0]
        loc = m.cache_loc.long()
        rec("llama kv store", rel(torch.cat([kc[loc], vc[loc]], 1).view(2, -1),
                                  m.qkv[:, nh * hd:]), 1e-6)
        for s in steps[4:]:
            s[1]()
        torch.cuda.synchronize()
        g, u = m.gu.float()[:, :inter], m.gu.float()[:, inter:]
        rec("llama silu_mul_cols", rel(m.act, F.silu(g) * u), 1e-2)
        del m, w

    for name, fn in (("mla", mla), ("gqa", gqa), ("topk_align", topk_align), ("layer", layer),
                     ("llama", llama_small)):
        guard(name, fn)
    torch.cuda.empty_cache()
    return out


# --- main ----------------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--batches", default="1,2,4,8")
    ap.add_argument("--dense-batches", default="1,8", help="Llama-3-8B batches")
    ap.add_argument("--torch-routing-batches", default="1,8",
                    help="R1 batches also run with top-k / moe_align as PyTorch ops")
    ap.add_argument("--context", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=4, help="layers (own weights) per graph")
    ap.add_argument("--replays", type=int, default=200)
    ap.add_argument("--profile-replays", type=int, default=5)
    ap.add_argument("--skip", default="", help="comma list of: checks,micro,r1,dense,cublaslt")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    t0 = time.time()
    smi_q = "name,driver_version,clocks.sm,clocks.mem,power.limit"
    smi = subprocess.run(["nvidia-smi", f"--query-gpu={smi_q}", "--format=csv,noheader"],
                         capture_output=True, text=True)
    doc = {"format": "topoplan-decode-layer/1", "tool": "tools/measure/probe_r1_decode.py",
           "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "command": "python3 tools/measure/probe_r1_decode.py " + " ".join(sys.argv[1:]),
           "gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
           "triton": triton.__version__, "cuda": torch.version.cuda,
           "nvidia_smi_before": smi.stdout.strip(),
           "config": {"context": args.context, "layers_per_graph": args.layers,
                      "replays": args.replays, "profiled_replays": args.profile_replays,
                      "kv_splits": KV_SPLITS, "moe_block_m": MOE_BLOCK_M,
                      "moe_group_m": MOE_GROUP_M, "decode_tiles": DECODE_TILES,
                      "small_kernel_bytes": SMALL_BYTES},
           "method": __doc__.split("Method:")[1].split("Checks")[0].strip(),
           "r1": [], "dense": []}

    def save():
        doc["elapsed_s"] = time.time() - t0
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)

    gen = torch.Generator(device="cuda")
    gen.manual_seed(2026)
    if "checks" not in skip:
        doc["checks"] = checks(gen)
        save()
    if "micro" not in skip:
        try:
            doc["micro"] = micro(args)
        except Exception as e:  # noqa: BLE001
            doc["micro"] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
            print("micro failed:", doc["micro"]["error"], flush=True)
        save()
    if "r1" not in skip:
        weights = [R1Weights(gen) for _ in range(args.layers)]
        torch.cuda.synchronize()
        print(f"R1 weights ready ({time.time() - t0:.0f} s)", flush=True)
        doc["dense_tiles"] = {}
        tb = set(int(x) for x in args.torch_routing_batches.split(",") if x)
        for B in (int(x) for x in args.batches.split(",")):
            runs = [("triton_block", "fused")]
            if "cublaslt" not in skip:
                runs.append(("cublaslt_tensor", "fused"))
            if B in tb:
                runs.append(("triton_block", "torch"))
            try:
                m = R1Decode(B, args.context, weights, gen)
                sweep, chosen = tune_dense(m)
                doc["dense_tiles"][str(B)] = {"chosen": chosen, "sweep": sweep}
                print(f"B={B} dense tiles {chosen}", flush=True)
            except Exception as e:  # noqa: BLE001
                doc["r1"].append({"batch": B, "error": f"setup {type(e).__name__}: {str(e)[:300]}"})
                print(f"R1 B={B} setup failed: {doc['r1'][-1]['error']}", flush=True)
                save()
                continue
            for dense, routing in runs:
                label = f"r1 b{B} {dense} {routing}"
                try:
                    m.dense, m.routing = dense, routing
                    m.layer_steps = [m.steps(w, c) for w, c in zip(weights, m.caches)]
                    doc["r1"].append(measure(m, label, args))
                except Exception as e:  # noqa: BLE001
                    doc["r1"].append({"label": label, "batch": B,
                                      "error": f"{type(e).__name__}: {str(e)[:300]}"})
                    print(f"{label} failed: {doc['r1'][-1]['error']}", flush=True)
                save()
            del m
            torch.cuda.empty_cache()
        del weights
        torch.cuda.empty_cache()
    if "dense" not in skip:
        weights = [LlamaWeights(gen) for _ in range(args.layers)]
        for B in (int(x) for x in args.dense_batches.split(",") if x):
            label = f"llama3-8b b{B} bf16"
            try:
                m = LlamaDecode(B, args.context, weights, gen)
                doc["dense"].append(measure(m, label, args))
                del m
            except Exception as e:  # noqa: BLE001
                doc["dense"].append({"label": label, "batch": B,
                                     "error": f"{type(e).__name__}: {str(e)[:300]}"})
                print(f"{label} failed: {doc['dense'][-1]['error']}", flush=True)
            save()
        del weights
    smi = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks.mem",
                          "--format=csv,noheader"], capture_output=True, text=True)
    doc["nvidia_smi_after"] = smi.stdout.strip()
    save()
    print(f"\nsummary (per layer, us; {args.layers} layers per graph, context {args.context})",
          flush=True)
    print(f"{'config':34s} {'layer':>7s} {'synced':>7s} {'kern':>5s} {'sum_k':>7s} {'sum_gap':>7s}"
          f" {'gap_med':>7s} {'small_med':>9s} {'impl_gap':>8s}", flush=True)
    for r in doc["r1"] + doc["dense"]:
        if "profile" not in r:
            print(f"{r.get('label', r.get('batch'))}: {r.get('error')}", flush=True)
            continue
        p = r["profile"]
        pl = p.get("per_layer", {})
        print(f"{r['label']:34s} {r['layer_us']:7.1f} {r['layer_us_synced']:7.1f} "
              f"{pl.get('kernels', 0):5d} "
              f"{pl.get('kernel_sum_us', float('nan')):7.1f} {pl.get('gap_sum_us', float('nan')):7.1f}"
              f" {(p.get('gaps_us') or {}).get('median', float('nan')):7.2f} "
              f"{((p.get('small_kernels') or {}).get('dur_us') or {}).get('median', float('nan')):9.2f}"
              f" {r.get('implied_gap_per_kernel_us', float('nan')):8.2f}", flush=True)
        if r["label"].endswith("triton_block fused") or r["label"].startswith("llama"):
            print("   top: " + "; ".join(f"{t['step']} {t['median_us']:.1f}" for t in p["top10"]),
                  flush=True)
    print(f"elapsed {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
