// The guid2lid file: OpenSM's layout on write, a lenient reader that skips
// bad lines with source:line warnings.
#include "sm/sweep/guid2lid.h"

#include <sstream>

#include <catch2/catch.hpp>

using namespace ibsm;

namespace {

Guid2LidFile parse(const std::string& text, std::string_view source = "guid2lid") {
  std::istringstream in(text);
  auto r = parse_guid2lid(in, source);
  REQUIRE(r.ok());
  return std::move(r).value();
}

LidRange range(uint16_t min, uint16_t max) { return {Lid{min}, Lid{max}}; }

bool any_warning_contains(const Guid2LidFile& f, const std::string& text) {
  for (const auto& w : f.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("guid2lid is written in OpenSM's layout, in guid order", "[sweep][guid2lid]") {
  Guid2Lid map;
  map[Guid{0x0002c90400000101}] = range(0x10, 0x13);
  map[Guid{0x0002c90300000001}] = range(1, 1);
  map[Guid{0xfedcba9876543210}] = range(0xbf80, 0xbfff);
  std::ostringstream out;
  write_guid2lid(map, out);
  CHECK(out.str() ==
        "0x0002c90300000001 0x0001 0x0001\n\n"
        "0x0002c90400000101 0x0010 0x0013\n\n"
        "0xfedcba9876543210 0xbf80 0xbfff\n\n");
}

TEST_CASE("guid2lid survives a write and read round trip", "[sweep][guid2lid]") {
  Guid2Lid map;
  for (uint64_t i = 0; i < 500; ++i) {
    const unsigned lmc = i % 8;
    const uint16_t count = static_cast<uint16_t>(1u << lmc);
    const uint16_t base = static_cast<uint16_t>(count * (i % 300 + 1));  // <= 0x9600
    map[Guid{0x0002c90400000000 + i * 0x100 + 1}] = range(base, static_cast<uint16_t>(base + count - 1));
  }
  std::ostringstream out;
  write_guid2lid(map, out);
  Guid2LidFile back = parse(out.str());
  CHECK(back.warnings.empty());
  CHECK(back.skipped_lines == 0);
  CHECK(back.entries == map);

  std::ostringstream again;
  write_guid2lid(back.entries, again);
  CHECK(again.str() == out.str());
}

TEST_CASE("guid2lid reader takes one record per line, comments, blank lines and CRLF", "[sweep][guid2lid]") {
  Guid2LidFile f = parse(
      "# written by hand\n"
      "0x0002C90300000001 0x0001 0x0001\n"
      "0x0002c90400000101 0x0004 0x0007\r\n"
      "   \t\n"
      "  0x0002c90400000201\t8\t0xb\n"
      "0x10 010 010\n");
  CHECK(f.warnings.empty());
  REQUIRE(f.entries.size() == 4);
  CHECK(f.entries.at(Guid{0x0002c90300000001}) == range(1, 1));
  CHECK(f.entries.at(Guid{0x0002c90400000101}) == range(4, 7));
  CHECK(f.entries.at(Guid{0x0002c90400000201}) == range(8, 11));
  CHECK(f.entries.at(Guid{0x10}) == range(8, 8));  // octal, as strtoul(.., 0) reads it
}

TEST_CASE("guid2lid reader skips bad lines and names source and line", "[sweep][guid2lid]") {
  const std::string text =
      "0x0002c90300000001 0x0001 0x0001\n"  // 1 good
      "\n"                                  // 2
      "0x0002c90300000002 0x0002\n"         // 3 two fields
      "guid 0x0003 0x0003\n"                // 4 not a number
      "0x0 0x0004 0x0004\n"                 // 5 zero guid
      "0x0002c90300000005 0x0000 0x0000\n"  // 6 lid 0
      "0x0002c90300000006 0xbfff 0xc000\n"  // 7 above unicast
      "0x0002c90300000007 0x0009 0x0008\n"  // 8 min > max
      "0x0002c90300000008 0x0010 0x0012\n"  // 9 three lids
      "0x0002c90300000009 0x0011 0x0012\n"  // 10 unaligned block
      "0x0002c90300000001 0x0020 0x0020\n"  // 11 duplicate guid
      "0x0002c9030000000a 0x0030 0x0030 x\n"  // 12 four fields
      "0x0002c9030000000b 0x0040 0x0040\n";   // 13 good
  Guid2LidFile f = parse(text, "/var/cache/ibsm/guid2lid");
  INFO(fmt::format("{}", fmt::join(f.warnings, "\n")));
  CHECK(f.entries.size() == 2);
  CHECK(f.entries.at(Guid{0x0002c90300000001}) == range(1, 1));  // the first record of a guid wins
  CHECK(f.entries.at(Guid{0x0002c9030000000b}) == range(0x40, 0x40));
  CHECK(f.skipped_lines == 10);
  REQUIRE(f.warnings.size() == 10);
  CHECK(f.warnings[0] ==
        "/var/cache/ibsm/guid2lid:3: expected '<port guid> <min lid> <max lid>', got 2 fields; line ignored");
  CHECK(any_warning_contains(f, "guid2lid:4: port guid 'guid' is not a number"));
  CHECK(any_warning_contains(f, "guid2lid:5: port guid is zero"));
  CHECK(any_warning_contains(f, "guid2lid:6: min lid 0 is not a unicast lid"));
  CHECK(any_warning_contains(f, "guid2lid:7: max lid 0xc000 is above the unicast range"));
  CHECK(any_warning_contains(f, "guid2lid:8: min lid 0x9 is above max lid 0x8"));
  CHECK(any_warning_contains(f, "guid2lid:9: range 0x10-0x12 holds 3 lids"));
  CHECK(any_warning_contains(f, "guid2lid:10: range 0x11-0x12 does not start at a multiple of 2"));
  CHECK(any_warning_contains(f, "guid2lid:11: port guid 0x0002c90300000001 is already listed on line 1"));
  CHECK(any_warning_contains(f, "guid2lid:12: expected '<port guid> <min lid> <max lid>', got 4 fields"));
}

TEST_CASE("guid2lid reader caps its warnings for a wrong file", "[sweep][guid2lid]") {
  std::string text;
  for (int i = 0; i < 50; ++i) text += "key = value\n";
  Guid2LidFile f = parse(text, "opensm.conf");
  CHECK(f.entries.empty());
  CHECK(f.skipped_lines == 50);
  REQUIRE(f.warnings.size() == kGuid2LidMaxWarnings + 1);
  CHECK(f.warnings.front().starts_with("opensm.conf:1: "));
  CHECK(f.warnings.back() == "opensm.conf: 30 more bad lines ignored");
}

TEST_CASE("guid2lid reader reports a failing stream", "[sweep][guid2lid]") {
  std::istream broken(nullptr);  // no buffer: badbit
  auto r = parse_guid2lid(broken, "guid2lid");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::unavailable);
  CHECK(r.status().message() == "guid2lid: read error after line 0");
}

TEST_CASE("an empty guid2lid file is an empty map", "[sweep][guid2lid]") {
  Guid2LidFile f = parse("");
  CHECK(f.entries.empty());
  CHECK(f.warnings.empty());
}

TEST_CASE("lid_block_problem accepts exactly the blocks a port can hold", "[sweep][guid2lid]") {
  CHECK(lid_block_problem(range(1, 1)).empty());
  CHECK(lid_block_problem(range(0xbfff, 0xbfff)).empty());
  CHECK(lid_block_problem(range(0x80, 0xff)).empty());
  CHECK_FALSE(lid_block_problem(range(0, 0)).empty());
  CHECK_FALSE(lid_block_problem(range(0x100, 0x1ff)).empty());  // 256 lids: lmc 8
  CHECK_FALSE(lid_block_problem(range(2, 5)).empty());
  CHECK_FALSE(lid_block_problem(range(0xc000, 0xc000)).empty());
}
