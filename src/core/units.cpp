#include "topoplan/units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "topoplan/error.hpp"

namespace topoplan {
namespace {

struct NumberAndSuffix {
  double value;
  std::string suffix;  // lower-cased, spaces removed
};

NumberAndSuffix split(std::string_view text, std::string_view what) {
  std::string s;
  for (char c : text) {
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  }
  std::size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(s, &pos);
  } catch (const std::exception&) {
    throw InputError(std::string(what), "",
                     "expected a number with an optional unit, got '" + std::string(text) + "'");
  }
  if (!std::isfinite(v) || v < 0) {
    throw InputError(std::string(what), "",
                     "expected a non-negative value, got '" + std::string(text) + "'");
  }
  std::string suf = s.substr(pos);
  for (auto& c : suf) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return {v, suf};
}

[[noreturn]] void bad_unit(std::string_view what, std::string_view text, const char* expected) {
  throw InputError(std::string(what), "",
                   "unknown unit in '" + std::string(text) + "' (expected " + expected + ")");
}

struct UnitScale {
  const char* s;  // lower-case suffix
  double m;       // multiplier to the result's unit
};
}  // namespace

double parse_bytes(std::string_view text, std::string_view what) {
  // A lower-case b after a prefix ("1Gb", "512Mb") reads as bits in networking: refuse it rather
  // than guess (issue 28).
  if (text.size() >= 2 && text.back() == 'b' &&
      std::isalpha(static_cast<unsigned char>(text[text.size() - 2])))
    throw InputError(std::string(what), "",
                     "'" + std::string(text) +
                         "': a lower-case b means bits; write bytes as GB (10^9), GiB or G "
                         "(2^30, as nccl-tests reads it)");
  auto [v, suf] = split(text, what);
  // P, PiB and PB too, so that the documented limit (1 PiB) can be typed.
  constexpr double kPiB = kTiB * 1024.0, kPB = 1e15;
  static const UnitScale table[] = {
      {"", 1},      {"b", 1},      {"k", kKiB},   {"m", kMiB},   {"g", kGiB},   {"t", kTiB},
      {"p", kPiB},  {"kib", kKiB}, {"mib", kMiB}, {"gib", kGiB}, {"tib", kTiB}, {"pib", kPiB},
      {"kb", kKB},  {"mb", kMB},   {"gb", kGB},   {"tb", kTB},   {"pb", kPB},   {"ki", kKiB},
      {"mi", kMiB}, {"gi", kGiB},  {"ti", kTiB},  {"pi", kPiB}};
  for (const auto& e : table) {
    if (suf != e.s) continue;
    // 1 PiB bounds every buffer a collective or a model can hold (one GPU has at most a few
    // hundred GB), and keeps byte counts exact in doubles and in the 64-bit integers of the
    // JSON output: "1e30B" would otherwise print as INT64_MIN. "-0" is 0, not "-0".
    const double bytes = v * e.m;
    if (!(bytes <= kMaxBytes))
      throw InputError(std::string(what), "",
                       "'" + std::string(text) + "' is larger than the 1 PiB limit");
    return bytes == 0 ? 0.0 : bytes;
  }
  bad_unit(what, text, "B, K/M/G/T/P (binary), KiB/MiB/GiB/TiB/PiB or KB/MB/GB/TB/PB");
}

double parse_bandwidth_GBps(std::string_view text, std::string_view what) {
  auto [v, suf] = split(text, what);
  static const UnitScale table[] = {
      {"", 1},           {"gb/s", 1},        {"gbps", 1},     {"gbyte/s", 1},
      {"tb/s", 1e3},     {"tbps", 1e3},      {"mb/s", 1e-3},  {"mbps", 1e-3},
      {"gbit/s", 0.125}, {"gbits/s", 0.125}, {"gbit", 0.125}, {"tbit/s", 125}};
  // "Gbps" (lower-case b) conventionally means gigabits; "GBps" gigabytes. We lost case above, so
  // check the raw text for a lower-case 'b' directly after G/T/M.
  const auto bits_at = text.find("bps");
  if (bits_at != std::string_view::npos && bits_at > 0) {
    const char p = text[bits_at - 1];
    if (p == 'G') return v * 0.125;
    if (p == 'T') return v * 125;
    if (p == 'M') return v * 0.000125;
  }
  for (const auto& e : table) {
    if (suf == e.s) return v * e.m;
  }
  bad_unit(what, text, "GB/s, GBps, TB/s or Gbps (bits)");
}

namespace {
std::string format_scaled(double v, const char* const* names, double base, int n) {
  int i = 0;
  while (i + 1 < n && std::fabs(v) >= base) {
    v /= base;
    ++i;
  }
  char buf[64];
  // Past the largest unit %.3g would print an exponent ("1.31e+03 PB"): whole units instead.
  if (i == 0 || std::fabs(v - std::round(v)) < 1e-9 || std::fabs(v) >= 1000) {
    std::snprintf(buf, sizeof buf, "%.0f %s", v, names[i]);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g %s", v, names[i]);
  }
  return buf;
}
}  // namespace

std::string format_bytes_binary(double bytes) {
  static const char* const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  return format_scaled(bytes, names, 1024.0, 6);
}

std::string format_bytes_decimal(double bytes) {
  static const char* const names[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  return format_scaled(bytes, names, 1000.0, 6);
}

std::string format_GiB(double bytes) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / kGiB);
  return buf;
}

std::string format_time_us(double us) {
  char buf[64];
  if (us < 1e3) {
    std::snprintf(buf, sizeof buf, "%.3g us", us);
  } else if (us < 1e6) {
    std::snprintf(buf, sizeof buf, "%.4g ms", us / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.4g s", us / 1e6);
  }
  return buf;
}

}  // namespace topoplan
