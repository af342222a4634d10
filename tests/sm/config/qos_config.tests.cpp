// OpenSM's QoS keys: their defaults, a bad value reported with file:line,
// and the tables each port class ends up with.
#include <sstream>

#include <catch2/catch.hpp>

#include "sm/config/sm_config.h"

using namespace ibsm;

namespace {

Status read(const std::string& text, SmConfig& c) {
  std::istringstream in(text);
  return read_config(in, "opensm.conf", c);
}

}  // namespace

TEST_CASE("the QoS keys default as OpenSM's", "[config][qos]") {
  const SmConfig c;
  CHECK_FALSE(c.qos);
  CHECK(find_config_key("qos")->get(c) == "FALSE");
  CHECK(find_config_key("qos_max_vls")->get(c) == "15");
  CHECK(find_config_key("qos_high_limit")->get(c) == "0");
  CHECK(find_config_key("qos_vlarb_high")->get(c) == default_qos_vlarb_high);
  CHECK(find_config_key("qos_vlarb_low")->get(c) == default_qos_vlarb_low);
  CHECK(find_config_key("qos_sl2vl")->get(c) == default_qos_sl2vl);
  CHECK(find_config_key("qos_ca_max_vls")->get(c) == "0");
  CHECK(find_config_key("qos_swe_high_limit")->get(c) == "-1");
  CHECK(find_config_key("qos_rtr_sl2vl")->get(c).empty());
  CHECK(find_config_key("qos_policy_file")->get(c) == "/etc/opensm/qos-policy.conf");
}

TEST_CASE("per-class QoS keys override the general ones for their ports only", "[config][qos]") {
  SmConfig c;
  REQUIRE(read("qos TRUE\nqos_sl2vl 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1\nqos_swe_sl2vl 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2\n"
               "qos_ca_high_limit 7\nqos_sw0_vlarb_low 2:9\nqos_rtr_sl2vl (null)\n",
               c)
              .ok());
  CHECK(c.qos);
  QosTables t = qos_tables(c);
  CHECK(t.of(QosPortClass::ca).sl2vl[0] == 1);
  CHECK(t.of(QosPortClass::swe).sl2vl[0] == 2);
  CHECK(t.of(QosPortClass::rtr).sl2vl[0] == 1);
  CHECK(t.of(QosPortClass::ca).high_limit == 7);
  CHECK(t.of(QosPortClass::swe).high_limit == 0);
  CHECK(t.of(QosPortClass::sw0).vlarb_low[0] == VlWeight{2, 9});
  CHECK(t.of(QosPortClass::ca).vlarb_low == *parse_vlarb_template(default_qos_vlarb_low));
}

TEST_CASE("a bad QoS value is reported with file:line and changes nothing", "[config][qos]") {
  SmConfig c;
  Status s = read("qos TRUE\nqos_sl2vl 0,1,2\nqos_ca_vlarb_high 0:4,99:1\nqos_max_vls 0\nqos_swe_high_limit 256\n", c);
  REQUIRE_FALSE(s.ok());
  CHECK_THAT(s.message(), Catch::Contains("opensm.conf:2: qos_sl2vl: '0,1,2' has 3 VLs, not 16"));
  CHECK_THAT(s.message(), Catch::Contains("opensm.conf:3: qos_ca_vlarb_high: '0:4,99:1' entry '99:1'"));
  CHECK_THAT(s.message(), Catch::Contains("opensm.conf:4: qos_max_vls: '0' is not 1-15"));
  CHECK_THAT(s.message(), Catch::Contains("opensm.conf:5: qos_swe_high_limit: '256' is not -1 (unset) or 0-255"));
  CHECK_FALSE(c.qos);
}
