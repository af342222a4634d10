#include "sm/dump/sl2vl_dump.h"

#include <sstream>
#include <string>

#include <catch2/catch.hpp>

namespace ibsm {
namespace {

Result<Sl2VlDump> parse_sl2vl(const std::string& text) {
  std::istringstream in(text);
  return parse_sl2vl_dump(in, "tables");
}

std::string vls(const std::string& first_three) {
  return first_three + " 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 15\n";
}

TEST_CASE("an sl2vl file writes one line per table and reads back", "[dump][sl2vl]") {
  std::vector<Sl2VlDumpEntry> tables(2);
  tables[0].node_guid = Guid{0x0002c90000000001};
  tables[0].in_port = 1;
  tables[0].out_port = 2;
  for (uint8_t sl = 0; sl < 16; ++sl) tables[0].vl_of_sl[sl] = static_cast<uint8_t>(sl % 2);
  tables[1].node_guid = Guid{0x0002c90000000002};
  tables[1].in_port = 1;
  tables[1].out_port = 1;  // a CA port's own table
  tables[1].vl_of_sl[15] = 15;
  std::ostringstream out;
  write_sl2vl_dump(tables, "torus-2QoS", out);
  const std::string text = out.str();
  CHECK(text.starts_with("# ibsm sl2vl tables: engine torus-2QoS;"));
  CHECK(text.find("0x0002c90000000001 1 2 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 1\n") != std::string::npos);
  auto back = parse_sl2vl(text);
  REQUIRE(back.ok());
  REQUIRE(back->tables.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(back->tables[i].node_guid == tables[i].node_guid);
    CHECK(back->tables[i].in_port == tables[i].in_port);
    CHECK(back->tables[i].out_port == tables[i].out_port);
    CHECK(back->tables[i].vl_of_sl == tables[i].vl_of_sl);
  }
  CHECK(back->tables[0].line == 2);
}

TEST_CASE("an sl2vl file with comments, blank lines and hex numbers reads", "[dump][sl2vl]") {
  auto dump = parse_sl2vl("# a comment\n\n0x10 0x1 0 0 1 0 1 0 1 0 1 0 1 0 1 0 1 0 0xf # trailing\n");
  REQUIRE(dump.ok());
  REQUIRE(dump->tables.size() == 1);
  CHECK(dump->tables[0].node_guid == Guid{0x10});
  CHECK(dump->tables[0].vl_of_sl[15] == 15);
}

TEST_CASE("a bad sl2vl line is an error naming its line", "[dump][sl2vl]") {
  const auto error = [](const std::string& text) {
    auto r = parse_sl2vl(text);
    REQUIRE_FALSE(r.ok());
    return r.status().message();
  };
  CHECK(error("\n0x10 1 2 0 1\n") == "tables:2: expected NODEGUID INPORT OUTPORT and 16 VLs");
  CHECK(error(vls("16 1 2")) == "tables:1: NODEGUID is no 0x node guid");
  CHECK(error(vls("0x10 255 2")) == "tables:1: INPORT is not 0-254");
  CHECK(error(vls("0x10 1 -1")) == "tables:1: OUTPORT is not 0-254");
  CHECK(error("0x10 1 2 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 16\n") == "tables:1: the VL of SL 15 is not 0-15");
  CHECK(error(vls("0x10 1 2") + vls("0x10 1 2")) == "tables:2: the table of 0x0000000000000010 in 1 out 2 is listed twice");
}

}  // namespace
}  // namespace ibsm
