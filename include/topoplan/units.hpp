// Units used across topoplan.
//
// Quantities are plain doubles whose names carry the unit as a suffix (`_bytes`, `_GBps`, `_us`,
// `_flops`, `_TFLOPS`). Decimal prefixes are powers of 10 (GB/s = 1e9 B/s, as NCCL and
// nccl-tests use them); binary prefixes are powers of 2 (GiB = 2^30 B).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace topoplan {

inline constexpr double kKB = 1e3;
inline constexpr double kMB = 1e6;
inline constexpr double kGB = 1e9;
inline constexpr double kTB = 1e12;
inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kTiB = kGiB * 1024.0;

inline constexpr double kUsPerS = 1e6;
inline constexpr double kMsPerS = 1e3;

// Time in µs to move `bytes` at `GBps` (1e9 B/s): bytes / (GBps * 1e3).
constexpr double transfer_us(double bytes, double GBps) {
  return bytes / (GBps * 1e3);
}
// Bandwidth in GB/s achieved by moving `bytes` in `us`.
constexpr double achieved_GBps(double bytes, double us) {
  return bytes / (us * 1e3);
}

// Largest size parse_bytes accepts (1 PiB): larger values are refused, not wrapped.
inline constexpr double kMaxBytes = 1125899906842624.0;  // 2^50

// Parses a byte count: "4096", "512MiB", "8G", "1.5GB", "96 GiB", "64k". A bare SI letter
// (K, M, G, T) follows nccl-tests' -b/-e and means a binary multiple (8G = 8 GiB); "GB" is 1e9.
// Throws InputError naming `what` on a malformed value.
double parse_bytes(std::string_view text, std::string_view what = "size");

// Parses a bandwidth into GB/s: "450GB/s", "400Gbps", "50GBps", "4TB/s", or a bare number (GB/s).
double parse_bandwidth_GBps(std::string_view text, std::string_view what = "bandwidth");

// Human-readable forms used by tables: "512 MiB", "1.5 GB", "18.3 us" / "2.1 ms".
std::string format_bytes_binary(double bytes);
std::string format_bytes_decimal(double bytes);
// A memory size in GiB with one decimal, "95.6 GiB": every capacity, weight and KV figure of
// the text output uses it (nvidia-smi and the datasheets state capacities in binary units).
std::string format_GiB(double bytes);
std::string format_time_us(double us);

}  // namespace topoplan

namespace topoplan {
// "1 strategy", "3 strategies": the count and the noun in the right number.
inline std::string count_of(long long n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}
}  // namespace topoplan
