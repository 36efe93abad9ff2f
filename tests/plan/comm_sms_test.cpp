// held_sm_slowdown (src/plan/comm_sms.hpp): what compute pays beside a communication kernel
// holding SMs, by hand and against the H100 measurement it comes from (2026-12-06,
// tools/measure/probe_overlap.py; raw results topologies/calibration/overlap-h100-2026-12-06.json,
// `summary`, default cuBLAS, no carve-out). Measured values below are the mean over the four
// bf16 GEMM shapes (Llama-70B gate/up and down, 8192², 13B gate/up at 8,192 tokens) of the median
// slowdown of 8 rounds, with the stand-in channel kernel paced to 50 GB/s (one 400G NIC, as the
// network-bound collectives this rule is applied to).
#include <doctest/doctest.h>

#include "plan/comm_sms.hpp"
#include "plan/nccl_ctas.hpp"
#include "plan/train_impl.hpp"

using namespace topoplan;

TEST_CASE("held_sm_slowdown: held / (SMs - held), capped at half the SMs, never negative") {
  CHECK(held_sm_slowdown(20, 132) == doctest::Approx(20.0 / 112));  // DualPipe's 20 SMs
  CHECK(held_sm_slowdown(32, 132) == doctest::Approx(0.32));        // 32 channels: 32 / 100
  CHECK(held_sm_slowdown(0, 132) == 0);
  CHECK(held_sm_slowdown(-4, 132) == 0);
  CHECK(held_sm_slowdown(66, 132) == doctest::Approx(1));   // half the GPU: twice as long
  CHECK(held_sm_slowdown(120, 132) == doctest::Approx(1));  // capped there
  // Monotone in the SMs held.
  for (int k = 1; k < 66; ++k) CHECK(held_sm_slowdown(k, 132) > held_sm_slowdown(k - 1, 132));
}

TEST_CASE("held_sm_slowdown against the H100: within 3% at 24-32 channels, short at 8-16") {
  struct Point {
    int k;
    double measured;  // GEMM time beside the kernel / alone
  };
  // 24 and 32 channels (NCCL's usual counts on 8-GPU H100 servers): the rule holds.
  for (Point p : {Point{24, 1.2096}, Point{32, 1.3408}}) {
    CAPTURE(p.k);
    CHECK(1 + held_sm_slowdown(p.k, 132) == doctest::Approx(p.measured).epsilon(0.03));
  }
  // 8 and 16: the measured loss exceeds the SM share (where the held SMs land; not charged),
  // so the rule is low there, by at most 7% of the compute time.
  for (Point p : {Point{8, 1.0966}, Point{16, 1.2177}}) {
    CAPTURE(p.k);
    CHECK(1 + held_sm_slowdown(p.k, 132) < p.measured);
    CHECK(1 + held_sm_slowdown(p.k, 132) == doctest::Approx(p.measured).epsilon(0.07));
  }
  // The former charge, held / SMs, was below every point (1.15-2.1x short of the loss).
  for (Point p : {Point{8, 1.0966}, Point{16, 1.2177}, Point{24, 1.2096}, Point{32, 1.3408}})
    CHECK(1 + p.k / 132.0 < p.measured);
}

// NCCL's runtime channels across servers (nccl_ring_ctas), by hand from NVIDIA/nccl 5067397c
// search.cc (speed arrays, ncclTopoDupChannels) and connect.cc (ncclTopoPostset).
TEST_CASE("nccl_ring_ctas: graph channels to runtime CTAs, Hopper, Ampere and Blackwell") {
  // H100, 8 x 400G (50 GB/s): 8 channels at 48; no duplication (sm > 80, 48 < 50, 8 > 4);
  // postset x2 = 16; 16 is not < 16, so no more.
  CHECK(nccl_ring_ctas(8, 50, 90) == 16);
  // One NIC: 1 channel at 48, duplicated (1 <= 4) to 2 at 24; postset 4; 24 < 45: done.
  CHECK(nccl_ring_ctas(1, 50, 90) == 4);
  CHECK(nccl_ring_ctas(2, 50, 90) == 8);
  CHECK(nccl_ring_ctas(4, 50, 90) == 16);
  // 6 NICs: no duplication (6 > 4); postset 12; sm90, 48 > 45, 12 < 16: doubled to 24.
  CHECK(nccl_ring_ctas(6, 50, 90) == 24);
  // A100 with 200G HDR (25 GB/s): 24 per channel, under 25, no duplication; postset x2.
  CHECK(nccl_ring_ctas(8, 25, 80) == 16);
  CHECK(nccl_ring_ctas(1, 25, 80) == 2);
  // A100 with 400G: 48 per channel; sm80 is not > 80, so duplicated to 16 at 24; postset 32.
  CHECK(nccl_ring_ctas(8, 50, 80) == 32);
  // Blackwell with 800G (100 GB/s): 96 per channel, 8 channels, no duplication rule applies
  // (96 >= 50): 16 at 48; postset 32.
  CHECK(nccl_ring_ctas(8, 100, 100) == 32);
  // Caps: duplication at 32 ring channels, runtime at 64.
  CHECK(nccl_ring_ctas(32, 50, 90) == 64);
  CHECK(nccl_ring_ctas(20, 100, 100) == 64);
  CHECK(nccl_ring_ctas(0, 50, 90) == 0);
}

// Inside one server (nccl_intra_ring_ctas) and NVLS (nccl_nvls_ctas), by hand from the same
// NCCL sources: NVLink speeds 20.0 (sm80) / 20.6 (sm90) / 40.1 (sm100) GB/s per link.
TEST_CASE("nccl_intra_ring_ctas and nccl_nvls_ctas: NVSwitch servers of each generation") {
  // H100, 18 NVLinks = 370.8: 6 x 60 = 360 (50: 350, 40: 360 not more, 30: 360, 24/60 < 0.49
  // stops); duplicated (60 >= 50) to 12 x 30; postset 24.
  CHECK(nccl_intra_ring_ctas(18, 90) == 24);
  // A100, 12 x 20 = 240: 6 x 40 = 240 fills it (stops); duplicated (sm80 is not > 80) to 12;
  // postset 24.
  CHECK(nccl_intra_ring_ctas(12, 80) == 24);
  // B200, 18 x 40.1 = 721.8: 8 x 90 = 720; duplicated to 16 x 45; postset 32.
  CHECK(nccl_intra_ring_ctas(18, 100) == 32);
  // H800, 8 x 20.6 = 164.8: 2 x 60 = 120, 3 x 50 = 150, 4 x 40 = 160 (best), 5 x 30 = 150,
  // 6 x 24 = 144, 8 x 20 = 160 (not more), 15/40 < 0.49 stops; 40 < 50 but 4 channels is not
  // more than 4, so duplicated to 8; postset 16.
  CHECK(nccl_intra_ring_ctas(8, 90) == 16);
  CHECK(nccl_intra_ring_ctas(0, 90) == 0);
  CHECK(nccl_nvls_ctas(90, false) == 16);
  CHECK(nccl_nvls_ctas(90, true) == 16);
  CHECK(nccl_nvls_ctas(100, false) == 24);
  CHECK(nccl_nvls_ctas(100, true) == 32);
}

// TE userbuffers' SMs (kUb*Sms: TE's default 16 for pipeline and bulk, 1 for ring exchange) on an
// H100 (132 SMs), a layer with 100 µs of column-parallel and 50 µs of row-parallel GEMM forward.
// By hand: ring 1/131, pipeline and bulk 16/116; backward halves 2.19 (kGemmBackward) per dgrad
// and wgrad. bf16: 50·16/116 + 100/131 + 1.095·(2·100·16/116 + 50/131) = 38.2847 µs.
// FP8 (row-parallel fprop by ring exchange): 50/131 + 100/131 + the same backward = 31.7699 µs.
TEST_CASE("ub_sm_us: the GEMMs beside TE userbuffers' overlap kernels, by hand") {
  train::PassTime t;
  t.tp_col_gemm_fwd = 100;
  t.tp_row_gemm_fwd = 50;
  CHECK(train::ub_sm_us(t, false, 132, 1) == doctest::Approx(38.2847).epsilon(1e-5));
  CHECK(train::ub_sm_us(t, true, 132, 1) == doctest::Approx(31.7699).epsilon(1e-5));
  // Full recompute runs the forward twice: the forward part once more (7.6599 µs in bf16).
  CHECK(train::ub_sm_us(t, false, 132, 2) - train::ub_sm_us(t, false, 132, 1) ==
        doctest::Approx(50.0 * 16 / 116 + 100.0 / 131));
  // More SMs, less lost: a B200's 148.
  CHECK(train::ub_sm_us(t, false, 148, 1) < train::ub_sm_us(t, false, 132, 1));
}
