#include "mad/base/types.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

using namespace ibsm;

TEST_CASE("guids and lids print the way the diag tools do", "[base][types]") {
  CHECK(fmt::format("{}", Guid{0x2c9030000abcdULL}) == "0x0002c9030000abcd");
  CHECK(fmt::format("{}", Lid{17}) == "17");
  CHECK(fmt::format("{}", PortNum{3}) == "3");
}

TEST_CASE("lid ranges follow IBA 4.1.3", "[base][types]") {
  CHECK_FALSE(Lid{0}.is_unicast());
  CHECK(Lid{1}.is_unicast());
  CHECK(Lid{0xBFFF}.is_unicast());
  CHECK_FALSE(Lid{0xC000}.is_unicast());
  CHECK(Lid{0xC000}.is_multicast());
  CHECK_FALSE(Lid{0xFFFF}.is_multicast());
}

TEST_CASE("dr paths extend, shrink, print and parse", "[base][types][drpath]") {
  DrPath p;
  CHECK(p.to_string() == "0");
  p = p.extended(1).extended(3);
  CHECK(p.hops() == 2);
  CHECK(p.port(1) == 1);
  CHECK(p.port(2) == 3);
  CHECK(fmt::format("{}", p) == "0,1,3");
  CHECK(p.parent().to_string() == "0,1");

  DrPath q;
  REQUIRE(DrPath::parse("0,1,3", q));
  CHECK(q == p);
  REQUIRE(DrPath::parse("1,3", q));
  CHECK(q == p);
  CHECK_FALSE(DrPath::parse("1,,3", q));
  CHECK_FALSE(DrPath::parse("1,256", q));
  CHECK_FALSE(DrPath::parse("1,x", q));
  CHECK_FALSE(DrPath::parse("1,", q));

  std::string long_path = "0";
  for (int i = 0; i < 64; ++i) long_path += ",1";
  CHECK_FALSE(DrPath::parse(long_path, q));  // 64 hops: one past the spec's limit
}
