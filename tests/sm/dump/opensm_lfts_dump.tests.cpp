#include <catch2/catch.hpp>

#include "sm/dump/opensm_dump.h"
#include "tests/sm/dump/dump_test_util.h"

namespace ibsm {
namespace {

using test::index_of;
using test::lines_of;
using test::written;

std::string lfts_dump(const Fabric& f, const std::vector<std::vector<uint8_t>>& lfts) {
  return written([&](std::ostream& out) { write_opensm_lfts_dump(f, lfts, out); });
}

}  // namespace

TEST_CASE("opensm-lfts.dump of the two-switch fabric is OpenSM's text", "[dump][lfts_dump]") {
  const Fabric f = test::two_switch_fabric();
  CHECK(lfts_dump(f, test::two_switch_lfts(f)) == test::read_dump_fixture("two_switch.lfts.dump"));
}

TEST_CASE("opensm-lfts.dump lists entries naming a port of the switch, for LIDs 0 to the top", "[dump][lfts_dump]") {
  Fabric f = test::two_switch_fabric();
  f.node(index_of(f, "H2")).port(1).base_lid = Lid{6};  // LIDs 4 and 5 now belong to nobody
  auto lfts = test::two_switch_lfts(f);
  std::vector<uint8_t>& s1 = lfts[index_of(f, "S1").value];
  s1 = {2, 0, 1, 0xFF, 4, 9, 4};  // LID 0 routed, LID 3 not, LID 5 past the last port
  const std::vector<std::string> lines = lines_of(lfts_dump(f, lfts));
  REQUIRE(lines.size() >= 7);
  CHECK(lines[0] == "Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('leaf one'):");
  CHECK(lines[1] == "0x0000 002 # unknown node and type");
  CHECK(lines[2] == "0x0001 000 # Switch portguid 0x0000000000200000: 'leaf one'");
  CHECK(lines[3] == "0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'H1'");
  CHECK(lines[4] == "0x0004 004 # unknown node and type");
  CHECK(lines[5] == "0x0006 004 # Channel Adapter portguid 0x0000000000100004: 'H2'");
  CHECK(lines[6] == "6 lids dumped");
}

TEST_CASE("opensm-lfts.dump prints hex LIDs in lower case", "[dump][lfts_dump]") {
  Fabric f = test::two_switch_fabric();
  f.node(index_of(f, "H2")).port(1).base_lid = Lid{0xab};
  auto lfts = test::two_switch_lfts(f);
  lfts[index_of(f, "S1").value].resize(0xac, 0xFF);
  lfts[index_of(f, "S1").value][0xab] = 3;
  const std::string text = lfts_dump(f, lfts);
  CHECK(text.find("\n0x00ab 003 # Channel Adapter portguid 0x0000000000100004: 'H2'\n") != std::string::npos);
  CHECK(text.find("171 lids dumped") != std::string::npos);
}

TEST_CASE("opensm.mcfdbs: nothing without groups; groups per switch in MLID and port order", "[dump][mcfdbs]") {
  const Fabric f = test::two_switch_fabric();
  CHECK(written([&](std::ostream& out) { write_opensm_mcfdbs(f, out); }).empty());

  std::vector<std::vector<MulticastDumpEntry>> mfts(f.node_count());
  mfts[index_of(f, "S2").value] = {{Lid{0xC001}, {3, 1}}, {Lid{0xC000}, {1}}, {Lid{0xC001}, {1, 0}},
                                   {Lid{0xC002}, {}}};
  mfts[index_of(f, "S1").value] = {{Lid{0xC005}, {}}};  // no ports: no section
  CHECK(written([&](std::ostream& out) { write_opensm_mcfdbs(f, mfts, out); }) ==
        "\nSwitch 0x0000000000200001\nLID    : Out Port(s)\n"
        "0xC000 : 0x001 \n"
        "0xC001 : 0x000  0x001  0x003 \n");
}

TEST_CASE("opensm.mcfdbs from the multicast forwarding state", "[dump][mcfdbs]") {
  const Fabric f = test::two_switch_fabric();
  MulticastTables tables(f.node_count());
  CHECK(written([&](std::ostream& out) { write_opensm_mcfdbs(f, tables, out); }).empty());
  PortMask a, b;
  a.set(1);
  b.set(0);
  b.set(3);
  b.set(33);
  tables.set(index_of(f, "S2"), Lid{0xC001}, b);
  tables.set(index_of(f, "S2"), Lid{0xC000}, a);
  CHECK(written([&](std::ostream& out) { write_opensm_mcfdbs(f, tables, out); }) ==
        "\nSwitch 0x0000000000200001\nLID    : Out Port(s)\n"
        "0xC000 : 0x001 \n"
        "0xC001 : 0x000  0x003  0x021 \n");
}

}  // namespace ibsm
