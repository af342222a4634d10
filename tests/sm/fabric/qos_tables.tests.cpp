// OpenSM's QoS table templates: the text forms, their checks, and the
// fallback from a port class's keys to the general ones to OpenSM's defaults.
#include "sm/fabric/qos_tables.h"

#include <catch2/catch.hpp>

using namespace ibsm;

TEST_CASE("a VLArb template reads VL:weight pairs, the rest VL0 weight 0", "[fabric][qos]") {
  auto t = parse_vlarb_template("0:4, 1:0,14:255");
  REQUIRE(t.ok());
  CHECK((*t)[0] == VlWeight{0, 4});
  CHECK((*t)[1] == VlWeight{1, 0});
  CHECK((*t)[2] == VlWeight{14, 255});
  CHECK((*t)[3] == VlWeight{0, 0});
  CHECK((*t)[63] == VlWeight{0, 0});
}

TEST_CASE("a bad VLArb template says what is wrong", "[fabric][qos]") {
  CHECK_FALSE(parse_vlarb_template("").ok());
  CHECK_THAT(parse_vlarb_template("0:4,16:1").status().message(), Catch::Contains("'16:1'"));
  CHECK_THAT(parse_vlarb_template("0:256").status().message(), Catch::Contains("weight 0-255"));
  CHECK_FALSE(parse_vlarb_template("0-4").ok());
  std::string many;
  for (int i = 0; i < 65; ++i) many += (i ? "," : "") + std::string("1:1");
  CHECK_THAT(parse_vlarb_template(many).status().message(), Catch::Contains("more than 64"));
}

TEST_CASE("an SL2VL template needs exactly 16 VLs 0-15", "[fabric][qos]") {
  auto t = parse_sl2vl_template(default_qos_sl2vl);
  REQUIRE(t.ok());
  CHECK((*t)[0] == 0);
  CHECK((*t)[14] == 14);
  CHECK((*t)[15] == 7);
  CHECK_THAT(parse_sl2vl_template("0,1,2").status().message(), Catch::Contains("has 3 VLs, not 16"));
  CHECK_THAT(parse_sl2vl_template("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,16").status().message(),
             Catch::Contains("SL15"));
  CHECK_FALSE(parse_sl2vl_template("0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0").ok());
}

TEST_CASE("a class's tables fall back to the general keys, then to OpenSM's defaults", "[fabric][qos]") {
  QosClassKeys general;
  general.sl2vl = "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1";
  general.high_limit = 9;
  QosClassKeys ca;
  ca.vlarb_low = "3:7";
  ca.max_vls = 4;
  QosClassTables t = resolve_qos_class(ca, general);
  CHECK(t.max_vls == 4);
  CHECK(t.high_limit == 9);
  CHECK(t.sl2vl[15] == 1);
  CHECK(t.vlarb_low[0] == VlWeight{3, 7});
  CHECK(t.vlarb_high == *parse_vlarb_template(default_qos_vlarb_high));
  QosClassTables d = resolve_qos_class({}, {});
  CHECK(d.max_vls == 15);
  CHECK(d.high_limit == 0);
  CHECK(d.sl2vl == *parse_sl2vl_template(default_qos_sl2vl));
  CHECK(d.vlarb_low == *parse_vlarb_template(default_qos_vlarb_low));
}
