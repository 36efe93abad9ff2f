#include <doctest/doctest.h>

#include <cmath>

#include "topoplan/error.hpp"
#include "topoplan/units.hpp"

using namespace topoplan;

TEST_CASE("parse_bytes: binary and decimal suffixes") {
  CHECK(parse_bytes("4096") == 4096.0);
  CHECK(parse_bytes("512MiB") == 512.0 * 1024 * 1024);
  CHECK(parse_bytes("8G") == 8.0 * 1024 * 1024 * 1024);  // nccl-tests convention
  CHECK(parse_bytes("1.5GB") == 1.5e9);
  CHECK(parse_bytes("96 GiB") == 96.0 * kGiB);
  CHECK(parse_bytes("64k") == 65536.0);
  CHECK_THROWS_AS(parse_bytes("12 parsecs"), InputError);
  CHECK_THROWS_AS(parse_bytes("abc"), InputError);
  CHECK_THROWS_AS(parse_bytes("-5"), InputError);
  // A lower-case b after a prefix reads as bits: refused, naming the spellings that mean bytes.
  CHECK_THROWS_WITH_AS(parse_bytes("1Gb"), doctest::Contains("lower-case b means bits"),
                       InputError);
  CHECK_THROWS_AS(parse_bytes("512Mb"), InputError);
  CHECK_THROWS_AS(parse_bytes("1Gib"), InputError);
  CHECK(parse_bytes("1GB") == 1e9);
  CHECK(parse_bytes("100b") == 100.0);  // a bare b is bytes (no prefix to be bits of)
}

TEST_CASE("parse_bandwidth_GBps: bytes vs bits") {
  CHECK(parse_bandwidth_GBps("450GB/s") == 450.0);
  CHECK(parse_bandwidth_GBps("400Gbps") == doctest::Approx(50.0));
  CHECK(parse_bandwidth_GBps("50GBps") == 50.0);
  CHECK(parse_bandwidth_GBps("4TB/s") == 4000.0);
  CHECK(parse_bandwidth_GBps("24") == 24.0);
  CHECK_THROWS_AS(parse_bandwidth_GBps("24 furlongs"), InputError);
}

TEST_CASE("transfer_us and achieved_GBps are inverse") {
  CHECK(transfer_us(1e9, 100.0) == doctest::Approx(1e4));  // 1 GB at 100 GB/s = 10 ms
  CHECK(achieved_GBps(1e9, transfer_us(1e9, 123.0)) == doctest::Approx(123.0));
}

TEST_CASE("format helpers") {
  CHECK(format_bytes_binary(512.0 * kMiB) == "512 MiB");
  CHECK(format_bytes_decimal(1.5e9) == "1.5 GB");
  CHECK(format_time_us(18.25) == "18.2 us");
}

TEST_CASE("large byte counts: petabytes, never an exponent") {
  // 1.31e15 B = 1.31 PB (was "1.31e+03 TB"); 2e18 B = 2000 PB in whole units.
  CHECK(format_bytes_decimal(1.31e15) == "1.31 PB");
  CHECK(format_bytes_decimal(2e18) == "2000 PB");
  CHECK(format_bytes_binary(1024.0 * 1024 * 1024 * 1024 * 1024) == "1 PiB");
}

TEST_CASE("count_of: singular for one, plural otherwise") {
  CHECK(count_of(1, "strategy", "strategies") == "1 strategy");
  CHECK(count_of(0, "strategy", "strategies") == "0 strategies");
  CHECK(count_of(2, "tier", "tiers") == "2 tiers");
}

TEST_CASE("parse_bytes: sizes past 1 PiB are refused, -0 is 0 (issue 16)") {
  // 2^50 B = 1 PiB is accepted exactly; one more KiB is not (it would wrap the int64 JSON field
  // past ~9.2e18 B, and no buffer is near 1 PiB).
  CHECK(parse_bytes("1048576G") == kMaxBytes);
  CHECK_THROWS_AS(parse_bytes("1048577G"), InputError);
  CHECK_THROWS_AS(parse_bytes("1e30B"), InputError);
  CHECK_THROWS_AS(parse_bytes("1e300T"), InputError);  // finite number, infinite product
  CHECK(std::signbit(parse_bytes("-0")) == false);
}

TEST_CASE("parse_bytes: the 1 PiB limit can be typed (P, PiB, PB), issue 29") {
  CHECK(parse_bytes("1P") == kMaxBytes);
  CHECK(parse_bytes("1PiB") == kMaxBytes);
  CHECK(parse_bytes("0.5Pi") == kMaxBytes / 2);
  CHECK(parse_bytes("1PB") == 1e15);  // decimal, below 2^50
  CHECK_THROWS_AS(parse_bytes("2P"), InputError);
}
