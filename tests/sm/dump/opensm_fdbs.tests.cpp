#include <catch2/catch.hpp>

#include "sm/dump/opensm_dump.h"
#include "tests/sm/dump/dump_test_util.h"

namespace ibsm {
namespace {

using test::index_of;
using test::lines_of;
using test::written;

std::string fdbs(const Fabric& f, const std::vector<std::vector<uint8_t>>& lfts) {
  return written([&](std::ostream& out) { write_opensm_fdbs(f, lfts, out); });
}

// The line for `lid` in switch `guid`'s section.
std::string fdb_line(const std::string& text, uint64_t guid, uint16_t lid) {
  const std::string header = fmt::format("dump_ucast_routes: Switch 0x{:016x}", guid);
  const std::string prefix = fmt::format("0x{:04X} : ", lid);
  bool in_section = false;
  for (const std::string& line : lines_of(text)) {
    if (line.starts_with("dump_ucast_routes:")) in_section = line == header;
    else if (in_section && line.starts_with(prefix)) return line.substr(prefix.size());
  }
  FAIL("no line for lid " << lid << " of switch " << guid);
  return {};
}

}  // namespace

TEST_CASE("opensm.fdbs of the two-switch fabric is OpenSM's text", "[dump][fdbs]") {
  const Fabric f = test::two_switch_fabric();
  CHECK(fdbs(f, test::two_switch_lfts(f)) == test::read_dump_fixture("two_switch.fdbs"));
}

TEST_CASE("opensm.fdbs: unreachable LIDs, unknown hops and detours", "[dump][fdbs]") {
  Fabric f = test::fabric_from_text(R"(
Switch 4 "A"
[1] "B"[1]
[2] "H1"[1]
[3] "C"[1]

Switch 4 "B"
[1] "A"[1]
[2] "C"[2]
[3] "H2"[1]

Switch 4 "C"
[1] "A"[3]
[2] "B"[2]

Hca 1 "H1"
[1] "A"[2]

Hca 1 "H2"
[1] "B"[3]
)");
  // LID 7 belongs to nobody: the range still runs to the top LID, 8.
  test::bring_up(f, {{"A", 1}, {"B", 2}, {"C", 3}, {"H1", 4}, {"H2", 8}});
  const NodeIndex a = index_of(f, "A");
  const uint64_t a_guid = f.node(a).node_guid.value;
  std::vector<std::vector<uint8_t>> lfts(f.node_count());
  lfts[a.value] = {0xFF, 0, 1, 3, 2, 0xFF, 0xFF, 1, 0xFF};

  SECTION("shortest paths say yes; CAs count one link past their switch") {
    const std::string text = fdbs(f, lfts);
    CHECK(fdb_line(text, a_guid, 1) == "000  : 00   : yes");
    CHECK(fdb_line(text, a_guid, 2) == "001  : 01   : yes");
    CHECK(fdb_line(text, a_guid, 4) == "002  : 01   : yes");
  }
  SECTION("no port with the LID, a 0xFF entry, or no entry: UNREACHABLE") {
    const std::string text = fdbs(f, lfts);
    CHECK(fdb_line(text, a_guid, 5) == "UNREACHABLE");
    CHECK(fdb_line(text, a_guid, 6) == "UNREACHABLE");
    CHECK(fdb_line(text, a_guid, 7) == "UNREACHABLE");  // a port, but nobody has the LID
    CHECK(fdb_line(text, a_guid, 8) == "UNREACHABLE");
    lfts[a.value].resize(8);  // a table that ends before the top LID
    CHECK(fdb_line(fdbs(f, lfts), a_guid, 8) == "UNREACHABLE");
  }
  SECTION("a longer path names the shortest one") {
    lfts[a.value][8] = 3;  // to H2 behind B through C: 3 links where 2 do
    const std::string text = fdbs(f, lfts);
    CHECK(fdb_line(text, a_guid, 3) == "003  : 01   : yes");
    CHECK(fdb_line(text, a_guid, 8) == "003  : 03   : No 2 hop path possible via port 1!");
    lfts[a.value][2] = 3;
    CHECK(fdb_line(fdbs(f, lfts), a_guid, 2) == "003  : 02   : No 1 hop path possible via port 1!");
  }
  SECTION("a port that leads nowhere toward the LID: HOPS UNKNOWN") {
    lfts[a.value][2] = 2;   // switch B through the CA's port
    lfts[a.value][3] = 4;   // a free port
    lfts[a.value][8] = 9;   // past the last port
    const std::string text = fdbs(f, lfts);
    CHECK(fdb_line(text, a_guid, 2) == "002  : HOPS UNKNOWN");
    CHECK(fdb_line(text, a_guid, 3) == "004  : HOPS UNKNOWN");
    CHECK(fdb_line(text, a_guid, 8) == "009  : HOPS UNKNOWN");
  }
  SECTION("a CA on this very switch counts one link whatever the port, as in OpenSM") {
    lfts[a.value][4] = 3;
    CHECK(fdb_line(fdbs(f, lfts), a_guid, 4) == "003  : 01   : yes");
  }
  SECTION("every switch gets a section with every LID, CAs none") {
    const std::vector<std::string> lines = lines_of(fdbs(f, lfts));
    CHECK(lines.size() == 3 * (2 + 8));
    CHECK(fdb_line(fdbs(f, lfts), f.node(index_of(f, "C")).node_guid.value, 1) == "UNREACHABLE");
  }
}

}  // namespace ibsm
