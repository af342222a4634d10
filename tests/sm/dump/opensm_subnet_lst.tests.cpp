#include <catch2/catch.hpp>

#include "sm/dump/opensm_dump.h"
#include "tests/sm/dump/dump_test_util.h"

namespace ibsm {
namespace {

using test::index_of;
using test::lines_of;
using test::written;

std::string subnet_lst(const Fabric& f, uint16_t sm_lid = 1) {
  return written([&](std::ostream& out) { write_opensm_subnet_lst(f, out, {.sm_lid = Lid{sm_lid}}); });
}

}  // namespace

TEST_CASE("opensm-subnet.lst of the two-switch fabric is OpenSM's text", "[dump][subnet_lst]") {
  const Fabric f = test::two_switch_fabric();
  CHECK(subnet_lst(f) == test::read_dump_fixture("two_switch.subnet.lst"));
}

TEST_CASE("opensm-subnet.lst: the SM mark follows the SM's LID", "[dump][subnet_lst]") {
  const Fabric f = test::two_switch_fabric();
  const std::string on_h2 = subnet_lst(f, 4);
  CHECK(on_h2.find("SW-SM") == std::string::npos);
  CHECK(on_h2.find("{ CA-SM Ports:02 SystemGUID:0000000000100003 ") != std::string::npos);
  CHECK(subnet_lst(f, 0).find("-SM") == std::string::npos);
}

TEST_CASE("opensm-subnet.lst: widths, states and speeds of the local port", "[dump][subnet_lst]") {
  Fabric f = test::two_switch_fabric();
  Node& s1 = f.node(index_of(f, "S1"));
  auto line_for_port = [&](int port) {
    for (const std::string& line : lines_of(subnet_lst(f))) {
      if (line.starts_with("{ SW-SM") && line.find(fmt::format("LID:0001 PN:{:02X} }} {{", port)) != std::string::npos) {
        return line.substr(line.rfind('}') + 2);
      }
    }
    FAIL("no line for S1 port " << port);
    return std::string();
  };
  s1.port(3).width_active = link_width::x1;
  s1.port(3).state = PortState::armed;
  s1.port(3).speed_active = link_speed::qdr;
  CHECK(line_for_port(3) == "PHY=1x LOG=ARM SPD=10");
  s1.port(3).width_active = link_width::x2;  // OpenSM 3.3 has no name for 2x
  s1.port(3).state = PortState::init;
  s1.port(3).speed_ext_active = link_speed_ext::fdr;
  CHECK(line_for_port(3) == "PHY=?? LOG=INI SPD=14");
  s1.port(3).width_active = link_width::x8;
  s1.port(3).state = PortState::down;
  s1.port(3).speed_ext_active = link_speed_ext::edr;
  CHECK(line_for_port(3) == "PHY=8x LOG=DWN SPD=25");
  s1.port(3).speed_ext_active = link_speed_ext::hdr;
  CHECK(line_for_port(3) == "PHY=8x LOG=DWN SPD=??");
}

TEST_CASE("opensm-subnet.lst: every cabled port once per end, free ports and port-less nodes not at all",
          "[dump][subnet_lst]") {
  Fabric f = test::two_switch_fabric();
  CHECK(lines_of(subnet_lst(f)).size() == 2 * f.links().size());
  f.disconnect(PortRef{index_of(f, "S1"), 4});
  const std::vector<std::string> lines = lines_of(subnet_lst(f));
  CHECK(lines.size() == 2 * f.links().size());
  for (const std::string& line : lines) CHECK(line.find("LID:0001 PN:04") == std::string::npos);
}

}  // namespace ibsm
