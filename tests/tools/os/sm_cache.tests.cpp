// The SM's cache files: what a sweep leaves in SweepState comes back on
// load, switch tables byte for byte (they are written streamed, two hex
// digits per entry).
#include <unistd.h>

#include <filesystem>
#include <algorithm>
#include <fstream>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "tests/sm/sweep/sweep_state_checks.h"
#include "tests/tools/os/temp_dir.h"
#include "tools/os/files.h"
#include "tools/os/sm_cache.h"

namespace ibsm {
namespace {

SwitchMemory table(uint16_t lid, size_t entries, uint8_t seed) {
  SwitchMemory m;
  m.lid = Lid{lid};
  m.linear_fdb_top = static_cast<uint16_t>(entries - 1);
  for (size_t i = 0; i < entries; ++i) m.lft.edit().push_back(static_cast<uint8_t>((i * 7 + seed) % 37));
  return m;
}

SweepState load(const std::string& dir, std::vector<std::string>& warnings) {
  SweepState loaded;
  REQUIRE(load_sm_cache(dir, loaded, warnings).ok());
  return loaded;
}

std::string read_file(const std::string& path) {
  auto text = read_text_file(path);
  REQUIRE(text.ok());
  return *text;
}

using testing::check_same_tables;

// The cache in `dir` loads without a warning, with `state`'s switch tables.
void check_loads_as(const std::string& dir, const SweepState& state) {
  std::vector<std::string> warnings;
  check_same_tables(state, load(dir, warnings));
  CHECK(warnings.empty());
}

TEST_CASE("the switch tables in the cache load back as they were saved", "[tools][sm_cache]") {
  SweepState saved;
  SwitchMemory a;
  a.lid = Lid{7};
  a.linear_fdb_top = 300;
  for (unsigned i = 0; i <= 300; ++i) a.lft.edit().push_back(static_cast<uint8_t>(i % 256));  // every byte value
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
  saved.switches.erase(Guid{0x0002c90300000003});
  check_same_tables(saved, loaded);
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

// The daemon saves after every sweep. A sweep that changed a few entries
// (a cable pulled) appends them as records instead of rewriting every table;
// base and journal load back as the state saved last.
TEST_CASE("later saves append the changed blocks to a journal that loads back", "[tools][sm_cache]") {
  const test::TempDir scratch;
  const std::string& dir = scratch.path;
  SweepState state;
  for (uint64_t g = 1; g <= 16; ++g) state.switches[Guid{0x100 + g}] = table(static_cast<uint16_t>(g), 4000, uint8_t(g));
  SmCacheSaver saver;
  REQUIRE(saver.save(dir, state).ok());
  CHECK(saver.last_was_full());
  const std::string base = read_file(dir + "/ibsm-switch-tables");

  // Two entries in two blocks of one switch, one in another.
  state.switches[Guid{0x102}].lft.edit()[5] = 30;
  state.switches[Guid{0x102}].lft.edit()[3999] = 31;  // the last block, shorter than 64
  state.switches[Guid{0x105}].lft.edit()[700] = 32;
  REQUIRE(saver.save(dir, state).ok());
  CHECK_FALSE(saver.last_was_full());
  CHECK(read_file(dir + "/ibsm-switch-tables") == base);  // not rewritten
  const std::string journal = read_file(dir + "/ibsm-switch-tables.journal");
  CHECK(std::count(journal.begin(), journal.end(), 'B') == 3);
  check_loads_as(dir, state);

  // A switch gone, one new, one with a new LID (a whole table again).
  state.switches.erase(Guid{0x103});
  state.switches[Guid{0x200}] = table(40, 4000, 9);
  state.switches[Guid{0x104}].lid = Lid{44};
  REQUIRE(saver.save(dir, state).ok());
  CHECK_FALSE(saver.last_was_full());
  // An unchanged state appends nothing.
  const size_t bytes = saver.journal_bytes();
  REQUIRE(saver.save(dir, state).ok());
  CHECK(saver.journal_bytes() == bytes);
  check_loads_as(dir, state);
}

// The writer thread saves cached_part's copy: every file comes out as the
// whole state's would (the tables' generation line aside), though the copy
// leaves the P_Key and VL tables the SM remembers behind.
TEST_CASE("the cached part of the state saves the same files as the whole", "[tools][sm_cache]") {
  SweepState state;
  for (uint64_t g = 1; g <= 3; ++g) state.switches[Guid{0x100 + g}] = table(static_cast<uint16_t>(g), 500, uint8_t(g));
  state.guid2lid[Guid{0x101}] = LidRange{Lid{1}, Lid{1}};
  state.guid2lid[Guid{0x201}] = LidRange{Lid{4}, Lid{7}};
  state.m_keys[Guid{0x201}] = 0x1234;
  ManagedPortFields asked;
  asked.lid = 4;
  asked.lmc = 2;
  asked.master_sm_lid = 1;
  ManagedPortFields held = asked;
  held.subnet_timeout = 18;
  state.ports[Guid{0x200}][1] = PortMemory{asked, held, {}, {}};
  state.ports[Guid{0x101}][0] = PortMemory{held, asked, {}, {}};
  state.p_key_tables[Guid{0x200}][1] = {0xFFFF, 0x8001};
  state.heavy_sweeps = 3;

  const SweepState part = cached_part(state);
  CHECK(part.p_key_tables.empty());
  CHECK(part.heavy_sweeps == 0);
  const test::TempDir whole_dir, part_dir;
  REQUIRE(save_sm_cache(whole_dir.path, state).ok());
  REQUIRE(save_sm_cache(part_dir.path, part).ok());
  const auto without_generation = [](std::string text) {
    const size_t at = text.find("# generation ");
    if (at != std::string::npos) text.erase(at, text.find('\n', at) - at);
    return text;
  };
  for (const char* file : {"guid2lid", "guid2mkey", "ibsm-switch-tables", "ibsm-port-settings"}) {
    INFO(file);
    const std::string whole = read_file(whole_dir.path + "/" + file);
    CHECK(without_generation(whole) == without_generation(read_file(part_dir.path + "/" + file)));
  }
  CHECK(read_file(part_dir.path + "/ibsm-port-settings").find("0x0000000000000200 1 ") != std::string::npos);
  check_loads_as(part_dir.path, state);
}

// `ibsm run -o`'s saver keeps no block hashes: each save is whole, and the
// journal stays empty (its header only), whatever changed in between.
TEST_CASE("a saver without a journal saves in full each time", "[tools][sm_cache]") {
  const test::TempDir scratch;
  const std::string& dir = scratch.path;
  SweepState state;
  for (uint64_t g = 1; g <= 4; ++g) state.switches[Guid{0x100 + g}] = table(static_cast<uint16_t>(g), 2000, uint8_t(g));
  SmCacheSaver saver(/*journal=*/false);
  REQUIRE(saver.save(dir, state).ok());
  CHECK(saver.last_was_full());
  state.switches[Guid{0x102}].lft.edit()[5] = 30;
  REQUIRE(saver.save(dir, state).ok());
  CHECK(saver.last_was_full());
  CHECK(saver.journal_bytes() == 0);
  const std::string journal = read_file(dir + "/ibsm-switch-tables.journal");
  CHECK(std::count(journal.begin(), journal.end(), '\n') == 2);  // its header and generation only
  check_loads_as(dir, state);
}

TEST_CASE("a journal past a quarter of the tables starts them afresh", "[tools][sm_cache]") {
  const test::TempDir scratch;
  const std::string& dir = scratch.path;
  SweepState state;
  for (uint64_t g = 1; g <= 4; ++g) state.switches[Guid{0x100 + g}] = table(static_cast<uint16_t>(g), 2000, uint8_t(g));
  SmCacheSaver saver;
  REQUIRE(saver.save(dir, state).ok());
  bool compacted = false;
  for (int round = 0; round < 40 && !compacted; ++round) {
    for (auto& [guid, m] : state.switches) m.lft.edit()[static_cast<size_t>(round) * 40] ^= 1;
    REQUIRE(saver.save(dir, state).ok());
    compacted = saver.last_was_full();
  }
  CHECK(compacted);
  CHECK(saver.journal_bytes() == 0);
  check_loads_as(dir, state);
}

// A crash can tear the last record, or fall between a full save's two writes.
// Neither may make the cache claim a table the switch does not hold.
TEST_CASE("a torn journal drops the tables; a journal of older tables is ignored", "[tools][sm_cache]") {
  const test::TempDir scratch;
  const std::string& dir = scratch.path;
  SweepState state;
  state.switches[Guid{0x101}] = table(1, 300, 1);
  state.switches[Guid{0x102}] = table(2, 300, 2);
  SmCacheSaver saver;
  REQUIRE(saver.save(dir, state).ok());
  state.switches[Guid{0x101}].lft.edit()[10] = 35;
  REQUIRE(saver.save(dir, state).ok());
  const std::string journal = read_file(dir + "/ibsm-switch-tables.journal");

  SECTION("torn") {
    std::ofstream(dir + "/ibsm-switch-tables.journal", std::ios::app) << "B 0x0000000000000102 1 0a0";
    std::vector<std::string> warnings;
    const SweepState loaded = load(dir, warnings);
    CHECK(loaded.switches.empty());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == dir + "/ibsm-switch-tables.journal:4: malformed journal record; every switch table is "
                              "dropped (the switches are read back)");
  }
  SECTION("older") {
    // A full save by another saver (a restart): new tables, new generation.
    // The old journal put back beside them must not be applied.
    SweepState fresh;
    fresh.switches[Guid{0x101}] = table(1, 300, 1);  // without the change the old journal holds
    REQUIRE(save_sm_cache(dir, fresh).ok());
    std::ofstream(dir + "/ibsm-switch-tables.journal") << journal;
    check_loads_as(dir, fresh);
  }
}

}  // namespace
}  // namespace ibsm
