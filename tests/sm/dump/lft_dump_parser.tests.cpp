#include "sm/dump/lft_dump.h"

#include <catch2/catch.hpp>

#include "tests/sm/dump/dump_test_util.h"

namespace ibsm {
namespace {

using test::parse_error;
using test::parse_ok;

const LftDumpSwitch& switch_with(const LftDump& dump, uint64_t guid) {
  const LftDumpSwitch* sw = dump.find(Guid{guid});
  INFO(guid);
  REQUIRE(sw != nullptr);
  return *sw;
}

// A one-switch dump_lfts section around `entries`.
std::string diag_section(const std::string& entries, const std::string& trailer = "") {
  return "Unicast lids [0x0-0x7] of switch Lid 4 guid 0x0000000000200001 (S2):\n"
         "  Lid  Out   Destination\n"
         "       Port     Info \n" +
         entries + trailer;
}

}  // namespace

TEST_CASE("dump_lfts output: switches by DR path, entries with LMC paths, the tools' noise", "[dump][lft_parse]") {
  const LftDump dump = parse_ok(test::read_dump_fixture("two_switch_lmc1.dump_lfts"));
  REQUIRE(dump.format == LftDumpFormat::diag_tools);
  REQUIRE(dump.switches.size() == 2);
  CHECK(dump.switches[0].node_guid == Guid{0x200001});  // file order

  const LftDumpSwitch& s2 = switch_with(dump, 0x200001);
  CHECK(s2.description == "S2");
  CHECK_FALSE(s2.lid.has_value());
  REQUIRE(s2.dr_path.has_value());
  CHECK(s2.dr_path->to_string() == "0,3");
  CHECK(s2.first_lid == 0);
  CHECK(s2.last_lid == 7);
  CHECK(s2.line == 2);
  CHECK(s2.table() == std::vector<uint8_t>{0xFF, 3, 3, 4, 0, 0xFF, 1, 1});
  REQUIRE(s2.entries.size() == 6);
  CHECK(s2.entries[0].port_guid == Guid{0x200000});
  CHECK(s2.entries[2].lid == Lid{3});
  CHECK(s2.entries[2].port_guid == Guid{0x100001});  // "(path #2 out of 2: portguid ...)"
  CHECK(s2.entries[2].line == 7);

  const LftDumpSwitch& s1 = switch_with(dump, 0x200000);
  CHECK(s1.description == "leaf one");
  REQUIRE(s1.dr_path.has_value());
  CHECK(s1.dr_path->hops() == 0);
  CHECK(s1.table() == std::vector<uint8_t>{0xFF, 0, 1, 1, 3, 0xFF, 3, 4});
  CHECK(dump.find(Guid{0x100000}) == nullptr);
}

TEST_CASE("ibroute -a output: the switch by LID, invalid entries as port 255", "[dump][lft_parse]") {
  const LftDump dump = parse_ok(test::read_dump_fixture("two_switch_lmc1_all.ibroute"));
  REQUIRE(dump.switches.size() == 1);
  const LftDumpSwitch& s2 = dump.switches[0];
  CHECK(s2.lid == Lid{4});
  CHECK_FALSE(s2.dr_path.has_value());
  CHECK(s2.entries.size() == 8);
  CHECK(s2.entries[0].port == 255);
  CHECK_FALSE(s2.entries[5].port_guid.has_value());  // "(illegal port)"
  CHECK(s2.table() == std::vector<uint8_t>{0xFF, 3, 3, 4, 0, 0xFF, 1, 1});
}

TEST_CASE("brief output (-n) and a switch reached by LID and DR path", "[dump][lft_parse]") {
  const LftDump dump = parse_ok(
      "Unicast lids [0x2-0x5] of switch Lid 9 DR path slid 9; dlid 0; 0,1,2 guid 0x0002c90300001234 (sw (a)):\n"
      "  Lid  Out   Destination\n"
      "       Port     Info \n"
      "0x0002 007 \n"
      "0x0005 012\n"
      "2 valid lids dumped \n");
  REQUIRE(dump.switches.size() == 1);
  const LftDumpSwitch& sw = dump.switches[0];
  CHECK(sw.node_guid == Guid{0x0002c90300001234});
  CHECK(sw.description == "sw (a)");
  CHECK(sw.lid == Lid{9});
  REQUIRE(sw.dr_path.has_value());
  CHECK(sw.dr_path->to_string() == "0,1,2");
  CHECK(sw.first_lid == 2);
  CHECK(sw.table() == std::vector<uint8_t>{0xFF, 0xFF, 7, 0xFF, 0xFF, 12});
  CHECK_FALSE(sw.entries[0].port_guid.has_value());
}

TEST_CASE("OpenSM's opensm-lfts.dump", "[dump][lft_parse]") {
  const LftDump dump = parse_ok(test::read_dump_fixture("two_switch.lfts.dump"));
  REQUIRE(dump.format == LftDumpFormat::opensm);
  REQUIRE(dump.switches.size() == 2);
  const LftDumpSwitch& s1 = switch_with(dump, 0x200000);
  CHECK(s1.description == "leaf one");  // the quotes are OpenSM's, not the name's
  CHECK(s1.lid == Lid{1});
  CHECK(s1.table() == std::vector<uint8_t>{0xFF, 0, 1, 3, 4});
  CHECK(s1.entries[3].port_guid == Guid{0x100004});
  CHECK(switch_with(dump, 0x200001).lid == Lid{3});
}

TEST_CASE("an empty dump lists no switch; comments and blank lines are skipped", "[dump][lft_parse]") {
  const LftDump empty = parse_ok("");
  CHECK_FALSE(empty.format.has_value());
  CHECK(empty.switches.empty());
  const LftDump commented = parse_ok("# written by hand\n\n" + diag_section("0x0001 003\n", "# end\n"));
  CHECK(commented.switches.at(0).entries.size() == 1);
}

TEST_CASE("bad dumps: the error names the source, the line and the problem", "[dump][lft_parse]") {
  CHECK(parse_error("0x0001 003\n") == "lfts.bad:1: lid entry before any switch header");
  CHECK(parse_error(diag_section("0x0001 003\n0x00zz 002\n")) == "lfts.bad:5: bad lid in '0x00zz 002'");
  CHECK(parse_error(diag_section("0x0001\n")) == "lfts.bad:4: bad lid in '0x0001'");
  CHECK(parse_error(diag_section("0x0001 256\n")) == "lfts.bad:4: bad port in '0x0001 256'");
  CHECK(parse_error(diag_section("0x0001 3x\n")) == "lfts.bad:4: bad port in '0x0001 3x'");
  CHECK(parse_error(diag_section("0x0008 001\n")) == "lfts.bad:4: lid 0x0008 outside the header's range 0x0-0x7");
  CHECK(parse_error(diag_section("0x0001 001\n0x1 002\n")) ==
        "lfts.bad:5: lid 0x0001 listed twice for switch 0x0000000000200001");
  CHECK(parse_error(diag_section("0x0001 001\n", "2 valid lids dumped\n")) ==
        "lfts.bad:5: '2 valid lids dumped' but the section lists 1 (cut or edited file?)");
  CHECK(parse_error(diag_section("0x0001 001\n", "1 valid lids dumped\n0x0002 001\n")) ==
        "lfts.bad:6: lid entry after the switch's 'lids dumped' line");
  CHECK(parse_error(diag_section("0x0001 001\n") + diag_section("")) ==
        "lfts.bad:5: switch 0x0000000000200001 listed again (first at line 1)");
  CHECK(parse_error(diag_section("0x0001 001\nSubnGet() failed; MAD status 0x1 AM 0x0\n")) ==
        "lfts.bad:5: unrecognized line 'SubnGet() failed; MAD status 0x1 AM 0x0'");
  CHECK(parse_error("Multicast mlids [0xc000-0xc3ff] of switch Lid 3 guid 0x0000000000200001 (S2):\n") ==
        "lfts.bad:1: a multicast forwarding table; this reader takes unicast LFTs (dump them without -M)");
  CHECK(parse_error(diag_section("") + "Unicast lids [0-4] of switch Lid 1 guid 0x0000000000200000 ('a'):\n") ==
        "lfts.bad:4: switch header in opensm-lfts.dump format in a dump_lfts file");
}

TEST_CASE("bad switch headers", "[dump][lft_parse]") {
  CHECK(parse_error("Unicast lids [0x0-0x7] of switch Lid 4 (S2):\n") == "lfts.bad:1: switch header: no 'guid 0x'");
  CHECK(parse_error("Unicast lids [0x0-0x7] of switch Lid 4 guid 0xzz (S2):\n") ==
        "lfts.bad:1: switch header: bad node guid ''");
  CHECK(parse_error("Unicast lids [0x7-0x0] of switch Lid 4 guid 0x1 (S2):\n") ==
        "lfts.bad:1: switch header: bad LID range '0x7-0x0' (unicast LIDs run to 0xbfff)");
  CHECK(parse_error("Unicast lids [0-49152] of switch Lid 4 guid 0x1 ('S2'):\n") ==
        "lfts.bad:1: switch header: bad LID range '0-49152' (unicast LIDs run to 0xbfff)");
  CHECK(parse_error("Unicast lids [0x0-0x7] of switch Lid 4 guid 0x1 S2\n") ==
        "lfts.bad:1: switch header: expected ' (<description>):' after the guid");
  CHECK(parse_error("Unicast lids [0x0-0x7] of switch somewhere guid 0x1 (S2):\n") ==
        "lfts.bad:1: switch header: unrecognized switch address 'somewhere'");
  CHECK(parse_error("Unicast lids [0x0-0x7] of switch DR path 0,x guid 0x1 (S2):\n") ==
        "lfts.bad:1: switch header: bad DR path '0,x'");
}

}  // namespace ibsm
