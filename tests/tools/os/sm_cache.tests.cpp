// The SM's cache files: what a sweep leaves in SweepState comes back on
// load, switch tables byte for byte (they are written streamed, two hex
// digits per entry).
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tests/tools/os/temp_dir.h"
#include "tools/os/sm_cache.h"

namespace ibsm {
namespace {

TEST_CASE("the switch tables in the cache load back as they were saved", "[tools][sm_cache]") {
  SweepState saved;
  SwitchMemory a;
  a.lid = Lid{7};
  a.linear_fdb_top = 300;
  for (unsigned i = 0; i <= 300; ++i) a.lft.push_back(static_cast<uint8_t>(i % 256));  // every byte value
  saved.switches[Guid{0x0002c90300000001}] = a;
  SwitchMemory b;
  b.lid = Lid{9};
  b.linear_fdb_top = 3;
  b.lft = {0xFF, 1, 0xFF, 2};
  saved.switches[Guid{0x0002c90300000002}] = b;
  saved.switches[Guid{0x0002c90300000003}] = SwitchMemory{};  // nothing known: not written

  const test::TempDir scratch;
  const std::string& dir = scratch.path;
  REQUIRE(save_sm_cache(dir, saved).ok());
  SweepState loaded;
  std::vector<std::string> warnings;
  REQUIRE(load_sm_cache(dir, loaded, warnings).ok());
  CHECK(warnings.empty());
  REQUIRE(loaded.switches.size() == 2);
  for (const auto& [guid, m] : saved.switches) {
    if (m.lft.empty()) continue;
    const SwitchMemory& back = loaded.switches.at(guid);
    CHECK(back.lid == m.lid);
    CHECK(back.linear_fdb_top == m.linear_fdb_top);
    CHECK(back.lft == m.lft);
  }
}

// A damaged line costs that switch only: the operator is told where, and the
// switches on the lines around it load. A full-size table (49,152 entries,
// the most a unicast LID space holds) reads back entry for entry.
TEST_CASE("a damaged switch table line is named and the others load", "[tools][sm_cache]") {
  const test::TempDir scratch;
  const std::string& dir = scratch.path;
  std::string big = "0x0002c90300000003 11 49151 ";
  for (unsigned i = 0; i < 49152; ++i) big += fmt::format("{:02X}", i % 251);  // upper case is read too
  {
    std::ofstream out(dir + "/ibsm-switch-tables");
    out << "# a comment\n"
        << "0x0002c90300000001 7 1 0aff\n"
        << "0x0002c90300000002 9 1 0ag1\n"  // not a hex digit
        << big << "\n";
  }
  SweepState loaded;
  std::vector<std::string> warnings;
  REQUIRE(load_sm_cache(dir, loaded, warnings).ok());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == dir + "/ibsm-switch-tables:3: malformed switch table line, ignored");
  REQUIRE(loaded.switches.size() == 2);
  CHECK(loaded.switches.at(Guid{0x0002c90300000001}).lft == std::vector<uint8_t>{0x0a, 0xff});
  const SwitchMemory& b = loaded.switches.at(Guid{0x0002c90300000003});
  CHECK(b.lid == Lid{11});
  REQUIRE(b.lft.size() == 49152);
  bool same = true;
  for (unsigned i = 0; i < 49152; ++i) same = same && b.lft[i] == i % 251;
  CHECK(same);
}

}  // namespace
}  // namespace ibsm
