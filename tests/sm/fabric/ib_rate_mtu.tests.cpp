#include "sm/fabric/ib_rate_mtu.h"

#include <catch2/catch.hpp>

namespace ibsm {

TEST_CASE("mtu by IBA code and by size", "[fabric][partitions]") {
  CHECK(parse_mtu_code("1") == 1);
  CHECK(parse_mtu_code("5") == 5);
  CHECK(parse_mtu_code("256") == 1);
  CHECK(parse_mtu_code("2048") == 4);
  CHECK(parse_mtu_code("4096") == 5);
  CHECK_FALSE(parse_mtu_code("0"));
  CHECK_FALSE(parse_mtu_code("6"));
  CHECK_FALSE(parse_mtu_code("8192"));
  CHECK_FALSE(parse_mtu_code("4k"));
  CHECK_FALSE(parse_mtu_code(""));
}

TEST_CASE("rate by IBA code and by Gb/s name", "[fabric][partitions]") {
  CHECK(parse_rate_code("2") == 2);
  CHECK(parse_rate_code("3") == 3);
  CHECK(parse_rate_code("10") == 10);  // a number is a code: 120 Gb/s
  CHECK(parse_rate_code("24") == 24);
  CHECK_FALSE(parse_rate_code("1"));
  CHECK_FALSE(parse_rate_code("25"));
  CHECK(parse_rate_code("2.5G") == 2);
  CHECK(parse_rate_code("10G") == 3);
  CHECK(parse_rate_code("30G") == 4);
  CHECK(parse_rate_code("5G") == 5);
  CHECK(parse_rate_code("40g") == 7);
  CHECK(parse_rate_code("56G") == 12);
  CHECK(parse_rate_code("25Gb/s") == 15);
  CHECK(parse_rate_code("100G") == 16);
  CHECK(parse_rate_code("200G") == 17);
  CHECK(parse_rate_code("400G") == 21);
  CHECK(parse_rate_code("1200G") == 24);
  CHECK_FALSE(parse_rate_code("fast"));
  CHECK_FALSE(parse_rate_code("15G"));
  CHECK_FALSE(parse_rate_code("G"));
}

}  // namespace ibsm
