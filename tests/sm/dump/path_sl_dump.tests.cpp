#include "sm/dump/path_sl_dump.h"

#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"

namespace ibsm {
namespace {

// A leaf/spine with one LID per switch and per host port, in node order.
Fabric with_lids() {
  Result<Fabric> made = topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 2});
  REQUIRE(made.ok());
  Fabric f = std::move(*made);
  uint16_t next = 1;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    Node& node = f.node(NodeIndex{n});
    if (node.is_switch()) {
      for (Port& p : node.ports) p.base_lid = Lid{next};
      ++next;
      continue;
    }
    node.port(1).base_lid = Lid{next++};
  }
  return f;
}

Result<PathSlDump> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_path_sl_dump(in, "sls");
}

TEST_CASE("a path sl file lists every path off sl 0 and reads back", "[dump][sl]") {
  const Fabric f = with_lids();  // 7 LIDs
  std::ostringstream out;
  write_path_sl_dump(f, [](Lid s, Lid d) { return static_cast<uint8_t>(s.value > d.value ? 1 : 0); }, "dfsssp", out);
  const std::string text = out.str();
  CHECK(text.rfind("# ibsm path sls: engine dfsssp; SLID DLID SL", 0) == 0);
  CHECK(text.find("\n2 1 1\n") != std::string::npos);
  CHECK(text.find("\n1 2 ") == std::string::npos);  // SL 0: not listed
  const Result<PathSlDump> back = parse(text);
  REQUIRE(back.ok());
  CHECK(back->sls.size() == 7 * 6 / 2);
  CHECK(back->sl(Lid{7}, Lid{3}) == 1);
  CHECK(back->sl(Lid{3}, Lid{7}) == 0);
  CHECK(back->sl(Lid{3}, Lid{3}) == 0);
  // No lookup: the header alone.
  std::ostringstream none;
  write_path_sl_dump(f, {}, "minhop", none);
  CHECK(none.str() == "# ibsm path sls: engine minhop; SLID DLID SL, one path a line; unlisted paths are SL 0\n");
}

TEST_CASE("a path sl file with a bad line names it", "[dump][sl]") {
  CHECK(parse("# comment\n\n 3 17 1 # trailing\n0x3 0x12 15\n").ok());
  const auto message = [](const std::string& text) { return parse(text).status().message(); };
  CHECK(message("3 17\n") == "sls:1: expected SLID DLID SL");
  CHECK(message("1 2 1\n0 2 1\n") == "sls:2: SLID is no unicast lid");
  CHECK(message("1 49152 1\n") == "sls:1: DLID is no unicast lid");
  CHECK(message("1 2 16\n") == "sls:1: SL is not 0-15");
  CHECK(message("1 2 x\n") == "sls:1: SL is not 0-15");
  CHECK(message("1 2 1\n1 2 2\n") == "sls:2: path 1 -> 2 is listed twice");
  CHECK(parse("1 2 0\n").value().sls.empty());  // SL 0 listed: the same as unlisted
}

}  // namespace
}  // namespace ibsm
