#include "sm/config/listen_address.h"

#include <catch2/catch.hpp>

#include "sm/config/sm_config.h"

using namespace ibsm;

TEST_CASE("listen addresses: ADDRESS:PORT, [IPV6]:PORT, or off", "[config][listen]") {
  auto a = parse_listen_address("127.0.0.1:9464");
  REQUIRE(a.ok());
  REQUIRE(*a);
  CHECK(**a == ListenAddress{"127.0.0.1", 9464});
  CHECK((*a)->loopback());

  auto v6 = parse_listen_address("[::1]:0");
  REQUIRE(v6.ok());
  REQUIRE(*v6);
  CHECK(**v6 == ListenAddress{"::1", 0});
  CHECK((*v6)->loopback());

  auto any = parse_listen_address("0.0.0.0:9464");
  REQUIRE(any.ok());
  CHECK_FALSE((*any)->loopback());
  CHECK(parse_listen_address("localhost:80").value()->loopback());

  for (const char* off : {"", "off"}) {
    auto none = parse_listen_address(off);
    REQUIRE(none.ok());
    CHECK_FALSE(*none);
  }
  for (const char* bad : {"9464", "127.0.0.1", "127.0.0.1:", ":9464", "127.0.0.1:65536", "127.0.0.1:http", "::1:9464",
                          "[::1]9464", "[::1"}) {
    INFO(bad);
    CHECK_FALSE(parse_listen_address(bad).ok());
  }
}

TEST_CASE("metrics_listen: loopback by default, checked when set", "[config][listen]") {
  SmConfig c;
  CHECK(c.metrics_listen == "127.0.0.1:9464");
  CHECK(set_config_value(c, "metrics_listen", "off").ok());
  CHECK(c.metrics_listen == "off");
  const Status bad = set_config_value(c, "metrics_listen", "9464");
  CHECK_FALSE(bad.ok());
  CHECK_THAT(bad.message(), Catch::Contains("ADDRESS:PORT"));
  CHECK(c.metrics_listen == "off");
}
