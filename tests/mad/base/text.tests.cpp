#include "mad/base/text.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

namespace ibsm {
namespace {

TEST_CASE("trim takes the C library's blanks off both ends only", "[base][text]") {
  CHECK(trim(" \t a b \r\n") == "a b");
  CHECK(trim("") == "");
  CHECK(trim(" \v\f ") == "");
}

TEST_CASE("a quoted value is whole when short, and cut with its length when long", "[base][text]") {
  CHECK(quoted("updnx") == "'updnx'");
  CHECK(quoted("a\n\tb") == "'a b'");
  const std::string huge(20 * 1024 * 1024, 'A');
  const std::string q = quoted(huge);
  CHECK(q == "'" + std::string(60, 'A') + "...' (20971520 bytes)");
  CHECK(quoted("abcdef", 3) == "'abc...' (6 bytes)");
  CHECK(quoted("abc", 3) == "'abc'");
}

// Two digits per byte, the vector loop's 16 at a time and the tail's one
// at a time alike: every byte value, at lengths around the 16-byte steps,
// appended after what the string held.
TEST_CASE("append_hex_bytes writes two lower-case digits per byte", "[base][text]") {
  std::vector<uint8_t> bytes(256 + 17);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 167 + 3);
  for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{32}, size_t{33}, bytes.size()}) {
    INFO(n);
    std::string want = "x ";
    for (size_t i = 0; i < n; ++i) want += fmt::format("{:02x}", bytes[i]);
    std::string out = "x ";
    append_hex_bytes(out, std::span(bytes).first(n));
    CHECK(out == want);
  }
}

TEST_CASE("scan_unsigned reads the front of a text as strtoull does", "[base][text]") {
  CHECK(scan_unsigned("36 \"x\"", Notation::c).value == 36);
  CHECK(scan_unsigned("36 \"x\"", Notation::c).used == 2);
  CHECK(scan_unsigned("010", Notation::c).value == 8);  // a leading 0 is octal
  CHECK(scan_unsigned("09", Notation::c).used == 1);
  CHECK(scan_unsigned("0xg", Notation::c).used == 1);  // "0x" without a hex digit reads the 0
  CHECK(scan_unsigned("0x1fz", Notation::c).value == 0x1f);
  CHECK(scan_unsigned("0x1fz", Notation::c).used == 4);
  CHECK(scan_unsigned("010", Notation::decimal_or_hex).value == 10);
  CHECK(scan_unsigned("0X1f", Notation::hex_optional_0x).value == 0x1f);
  CHECK(scan_unsigned("1f", Notation::hex_optional_0x).value == 0x1f);
  CHECK(scan_unsigned("0x1f", Notation::hex).used == 1);
  CHECK(scan_unsigned("1f", Notation::hex_0x).used == 0);
  CHECK(scan_unsigned(" 1", Notation::decimal).used == 0);  // no blanks
  CHECK(scan_unsigned("-1", Notation::decimal).used == 0);  // no sign
  CHECK(scan_unsigned("", Notation::c).used == 0);
  const NumberScan big = scan_unsigned("99999999999999999999999", Notation::c);
  CHECK(big.value == UINT64_MAX);
  CHECK(big.overflow);
  CHECK(big.used == 23);
}

TEST_CASE("parse_unsigned reads a whole text in one notation, up to a maximum", "[base][text]") {
  CHECK(parse_unsigned("0x10", Notation::c) == 16u);
  CHECK(parse_unsigned("010", Notation::c) == 8u);
  CHECK(parse_unsigned("0", Notation::c) == 0u);
  CHECK(parse_unsigned("08", Notation::c) == std::nullopt);
  CHECK(parse_unsigned("0x", Notation::c) == std::nullopt);
  CHECK(parse_unsigned("010", Notation::decimal_or_hex) == 10u);
  CHECK(parse_unsigned("0X1F", Notation::decimal_or_hex) == 31u);
  CHECK(parse_unsigned("0x", Notation::decimal_or_hex) == std::nullopt);
  CHECK(parse_unsigned("0x10", Notation::decimal) == std::nullopt);
  CHECK(parse_unsigned("ff", Notation::hex) == 255u);
  CHECK(parse_unsigned("0xff", Notation::hex) == std::nullopt);
  CHECK(parse_unsigned("0xff", Notation::hex_0x) == 255u);
  CHECK(parse_unsigned("ff", Notation::hex_0x) == std::nullopt);
  CHECK(parse_unsigned("ff", Notation::hex_optional_0x) == 255u);
  for (const Notation n : {Notation::c, Notation::decimal_or_hex, Notation::decimal}) {
    CHECK(parse_unsigned("", n) == std::nullopt);
    CHECK(parse_unsigned(" 1", n) == std::nullopt);
    CHECK(parse_unsigned("1 ", n) == std::nullopt);
    CHECK(parse_unsigned("+1", n) == std::nullopt);
    CHECK(parse_unsigned("-1", n) == std::nullopt);
    CHECK(parse_unsigned("12ab", n) == std::nullopt);
  }
  CHECK(parse_unsigned("18446744073709551615", Notation::decimal) == UINT64_MAX);
  CHECK(parse_unsigned("18446744073709551616", Notation::decimal) == std::nullopt);
  CHECK(parse_unsigned("65535", Notation::decimal, 65535) == 65535u);
  CHECK(parse_unsigned("65536", Notation::decimal, 65535) == std::nullopt);
}

TEST_CASE("parse_signed reads a decimal number with an optional minus", "[base][text]") {
  CHECK(parse_signed("-5") == -5);
  CHECK(parse_signed("5") == 5);
  CHECK(parse_signed("-0") == 0);
  CHECK(parse_signed("+5") == std::nullopt);
  CHECK(parse_signed("-") == std::nullopt);
  CHECK(parse_signed("--5") == std::nullopt);
  CHECK(parse_signed("0x5") == std::nullopt);
  CHECK(parse_signed("-9223372036854775808") == INT64_MIN);
  CHECK(parse_signed("9223372036854775807") == INT64_MAX);
  CHECK(parse_signed("9223372036854775808") == std::nullopt);
  CHECK(parse_signed("-9223372036854775809") == std::nullopt);
  CHECK(parse_signed("2147483648", INT32_MIN, INT32_MAX) == std::nullopt);
  CHECK(parse_signed("-2147483648", INT32_MIN, INT32_MAX) == INT32_MIN);
}

TEST_CASE("parse_guid reads a GUID in its own notation or a format's", "[base][text]") {
  CHECK(parse_guid("0x0002c90300001234") == Guid{0x0002c90300001234});
  CHECK(parse_guid("0X1") == Guid{1});
  CHECK(parse_guid("0x0") == Guid{0});  // read; refusing zero is the caller's
  CHECK(parse_guid("0x00000000000000001") == std::nullopt);  // 17 digits
  CHECK(parse_guid("0xffffffffffffffff") == Guid{UINT64_MAX});
  CHECK(parse_guid("2c90300001234") == std::nullopt);  // no 0x
  CHECK(parse_guid("0x12g4") == std::nullopt);
  CHECK(parse_guid("0x") == std::nullopt);
  CHECK(parse_guid("") == std::nullopt);
  CHECK(parse_guid("2c90300001234", Notation::hex) == Guid{0x2c90300001234});
  CHECK(parse_guid("1234", Notation::c) == Guid{1234});
  CHECK(parse_guid("010", Notation::c) == Guid{8});
  CHECK(parse_guid("0x10000000000000000", Notation::c) == std::nullopt);  // more than 64 bits
}

}  // namespace
}  // namespace ibsm
