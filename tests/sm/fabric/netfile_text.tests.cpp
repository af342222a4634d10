#include "sm/fabric/netfile_text.h"

#include <catch2/catch.hpp>

namespace ibsm::netfile_text {

TEST_CASE("parse_c_number reads numbers as strtoull does", "[fabric][netfile]") {
  CHECK(parse_c_number("36 \"x\"").value == 36);
  CHECK(parse_c_number("36 \"x\"").used == 2);
  CHECK(parse_c_number("  0x200000(200000)").value == 0x200000);
  CHECK(parse_c_number("  0x200000(200000)").used == 10);
  CHECK(parse_c_number("010").value == 8);  // base 0: a leading 0 is octal
  CHECK(parse_c_number("09").value == 0);
  CHECK(parse_c_number("09").used == 1);
  CHECK(parse_c_number("0xg").value == 0);  // "0x" without a hex digit reads the 0
  CHECK(parse_c_number("0xg").used == 1);
  CHECK(parse_c_number("x").used == 0);
  CHECK(parse_c_number("").used == 0);
  CHECK(parse_c_number("2c90300000011)", 16).value == 0x2c90300000011);
  CHECK(parse_c_number("0X1f", 16).value == 0x1f);
  CHECK(parse_c_number("010", 10).value == 10);
  CHECK(parse_c_number("99999999999999999999999").value == UINT64_MAX);
}

TEST_CASE("parse_lid_rate reads what sscanf(\"lid %d %dx%9s\") reads", "[fabric][netfile]") {
  auto r = parse_lid_rate("lid 3 12xQDR");
  REQUIRE(r);
  CHECK(r->lid == 3);
  CHECK(r->width == 12);
  CHECK(r->speed == "QDR");
  r = parse_lid_rate("lid  7\t4x SDR s=1 w=2");
  REQUIRE(r);
  CHECK(r->width == 4);
  CHECK(r->speed == "SDR");
  r = parse_lid_rate("lid 1 4xFDR10abcdefgh");
  REQUIRE(r);
  CHECK(r->speed == "FDR10abcd");  // at most 9 characters
  CHECK_FALSE(parse_lid_rate("lid 6"));
  CHECK_FALSE(parse_lid_rate("lid 6 4 xSDR"));
  CHECK_FALSE(parse_lid_rate("lid x 4xSDR"));
  CHECK_FALSE(parse_lid_rate("lmc 0"));
}

TEST_CASE("text helpers", "[fabric][netfile]") {
  CHECK(trim(" \t a b \r") == "a b");
  CHECK(skip_space("  x ") == "x ");
  CHECK(find_after("# lid 9 lmc 0", "lid ") == std::optional<std::string_view>("9 lmc 0"));
  CHECK_FALSE(find_after("# lmc 0", "lid ").has_value());
}

}  // namespace ibsm::netfile_text
