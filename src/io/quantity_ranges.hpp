// Plausible ranges of the physical quantities files state (docs/limits.md, "Physical
// quantities"): one table, read at every entry through JsonReader::quantity. A value outside its
// range is a unit typo or a hostile file: 5e-324 GB/s (a denormal) made a plausible-looking,
// wrong plan, 1e300 made 300-digit times. Each range spans every real device with room.
#pragma once

#include <string>

namespace topoplan::io {

struct QuantityRange {
  double min, max;
  const char* unit;  // printed after the bounds: "GB/s"
};

namespace ranges {
// A link bundle per direction: 10 Mb/s Ethernet is 0.00125 GB/s; the widest catalog bundle is
// 18 x NVLink5 = 900 GB/s (limits::kMaxLinkGBps).
inline constexpr QuantityRange kLinkGBps{0.001, 1e6, "GB/s"};
// Achieved fraction of a link's rate: measured 0.6-0.95; below 1% is not a link.
inline constexpr QuantityRange kLinkEfficiency{0.01, 1, ""};
// One link's latency: 0.3-5 us real; 1 s is a unit typo (limits::kMaxLinkLatency_us).
inline constexpr QuantityRange kLinkLatency_us{0, 1e6, "us"};
// A NIC's line rate: 1 GbE (0.125 GB/s) to 1.6 Tb/s (200 GB/s), with room.
inline constexpr QuantityRange kNicGBps{0.01, 1e4, "GB/s"};
// A GPU: memory 1 GB (old boards) to 288 GB (B300), HBM 100 GB/s to 8 TB/s, dense TFLOPS
// 1-10,000 (B200 FP4 is 9,000 sparse), board power 10 W to 3 kW.
inline constexpr QuantityRange kGpuMemoryGB{0.1, 1e5, "GB"};
inline constexpr QuantityRange kGpuMemoryMiB{100, 1e8, "MiB"};
inline constexpr QuantityRange kGpuHbmGBps{1, 1e6, "GB/s"};
inline constexpr QuantityRange kGpuTFLOPS{0.01, 1e6, "TFLOPS"};
inline constexpr QuantityRange kGpuPowerW{1, 1e5, "W"};

// NCCL's tuning constants (topologies/tuning/nccl.json, a `calibrate` file): latencies are
// 0.6-31 us (tuning.cc baseLat, hwLat), per-channel and LL caps 10-282 GB/s; the protocol
// factors are fractions of a link's rate (0.5, 0.92, 1); Tree LL divides by 3.8; NCCL's ring
// plateau factor is 1.4 or 1.9; its P2P LL threshold is 16 KiB; NVLS needs sm90 (90, 100, 120).
inline constexpr QuantityRange kTuningLatency_us{0, 1e6, "us"};
inline constexpr QuantityRange kTuningGBps{0.001, 1e6, "GB/s"};
inline constexpr QuantityRange kProtocolFactor{0.01, 1, ""};
inline constexpr QuantityRange kTreeLlDivisor{1, 100, ""};
inline constexpr QuantityRange kRingPlateauFactor{0.1, 10, ""};
inline constexpr QuantityRange kP2pLlThreshold_bytes{0, 1073741824, "B"};
inline constexpr QuantityRange kSmVersion{0, 1000, ""};

// Compute calibration and probe points (topologies/calibration, topoplan-probe): one kernel or
// launch overhead 0.35-10.5 us, a probed kernel's median time up to seconds; sizes of one
// measured transfer or kernel 1 B to 1 PiB (the --size limit), its work up to 10^21 FLOP (a
// minute of a 10,000-TFLOPS GPU); matrix dimensions (GEMM m, n, k, tile, groups) to 2^24.
inline constexpr QuantityRange kKernelTime_us{0.001, 1e7, "us"};
inline constexpr QuantityRange kMeasuredBytes{1, 1125899906842624.0, "B"};
inline constexpr QuantityRange kMeasuredFlops{1, 1e21, "FLOP"};
inline constexpr QuantityRange kMatrixDim{1, 16777216, ""};
// The K of half throughput in the GEMM K-shape fit (89.9 and 380.9 measured on H200).
inline constexpr QuantityRange kKHalf{0.001, 16777216, ""};

// nccl-tests result rows: a collective of up to 1 PiB (kMeasuredBytes) takes 5 us to minutes;
// bandwidths are printed with two decimals, so a tiny size shows 0.00 GB/s.
inline constexpr QuantityRange kCollectiveTime_us{0.001, 1e9, "us"};
inline constexpr QuantityRange kMeasuredGBps{0, 1e6, "GB/s"};

// Flags. --mem-bw: a CPU host's 64 GB/s to a GPU's 8 TB/s, with room (kGpuHbmGBps).
// --train-tokens: the largest published pretraining runs are 36T tokens (Qwen3); 0 = not given.
// --global-batch: published recipes use 1,024-15,360 sequences (DeepSeek-V3).
inline constexpr QuantityRange kTrainTokens{1, 1e16, "tokens"};
inline constexpr QuantityRange kGlobalBatch{1, 16777216, "sequences"};
}  // namespace ranges

// Whether x is within `r` (finite, min <= x <= max; with `zero_ok` also exactly 0).
bool in_range(double x, const QuantityRange& r, bool zero_ok = false);
// "MIN to MAX UNIT (docs/limits.md)", with "0 or " first when `zero_ok`: the text after
// "must be " in every range message.
std::string range_text(const QuantityRange& r, bool zero_ok = false);
// "" when x is within `r`, else "must be <range_text>, got X" (X in the fewest digits that read
// back as x): the message of every range check, for a file's pointer or a flag.
std::string out_of_range(double x, const QuantityRange& r, bool zero_ok = false);
// A flag's value within its range, else FieldError(field, out_of_range(...)), which the CLI
// prints as "--flag: must be ...".
void require_in_range(double x, const QuantityRange& r, const char* field, bool zero_ok = false);

}  // namespace topoplan::io
