// Plausible ranges of the physical quantities files state (docs/limits.md, "Physical
// quantities"): one table, read at every entry through JsonReader::quantity. A value outside its
// range is a unit typo or a hostile file: 5e-324 GB/s (a denormal) made a plausible-looking,
// wrong plan, 1e300 made 300-digit times. Each range spans every real device with room.
#pragma once

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
}  // namespace ranges

}  // namespace topoplan::io
