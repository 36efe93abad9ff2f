// How many CTAs (one SM each) NCCL runs a collective on: its runtime channel count, derived
// from NVIDIA/nccl 5067397c (2.30.7), so that the SM charge of an overlapped collective
// (held_sm_slowdown, comm_sms.hpp) counts what NCCL launches rather than the collective
// engine's channels (one per NIC a ring uses across servers, one inside a server).
#pragma once

namespace topoplan {

// A ring (or tree) across servers whose graph search found `graph_channels` (one per NIC the
// ring uses in a server) on NICs of `nic_GBps`: 8 × 400G NICs on Hopper give 8 channels at
// 48 GB/s, 16 CTAs; one NIC 4.
int nccl_ring_ctas(int graph_channels, double nic_GBps, int sm_version);

// A ring (or tree) inside one server whose GPUs have `nvlinks` NVLinks each to NVSwitches:
// HGX H100 (18 NVLinks) 24 CTAs (the graph NCCL logs in NVIDIA/nccl#1197: "nChannels 12, bw
// 30/30", doubled at run time); A100 (12) 24; B200 (18) 32; H800 (8) 16.
int nccl_intra_ring_ctas(int nvlinks, int sm_version);

// An NVLS (NVLink SHARP) collective: NVLS_NCHANNELS_SM90 16; on sm100 NVLS_NCHANNELS_SM100 32
// across servers, NVLS_NCHANNELS_SM100_NVL 24 inside one (transport/nvls.cc).
int nccl_nvls_ctas(int sm_version, bool across_servers);

}  // namespace topoplan
