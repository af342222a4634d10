// The daemon's cache saves on their own thread: what was handed over last is
// what the cache holds once flushed, and a save that fails is reported to
// the main loop, not lost.
#include "tools/os/sm_cache_writer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/tools/os/temp_dir.h"
#include "tools/os/sm_cache.h"

namespace ibsm {
namespace {

SweepState state_with_lid(uint16_t lid) {
  SweepState s;
  SwitchMemory m;
  m.lid = Lid{lid};
  m.linear_fdb_top = 3;
  m.lft = {0, 1, 2, 3};
  s.switches[Guid{0x0002c90300000001}] = m;
  return s;
}

TEST_CASE("the cache holds the newest state handed to the writer once it is flushed", "[tools][sm_cache]") {
  const test::TempDir scratch;
  const std::string& dir = scratch.path;
  {
    SmCacheWriter writer;
    for (uint16_t lid = 1; lid <= 20; ++lid) writer.submit(dir, state_with_lid(lid));
    writer.flush();
    CHECK(writer.take_errors().empty());
    SweepState loaded;
    std::vector<std::string> warnings;
    REQUIRE(load_sm_cache(dir, loaded, warnings).ok());
    CHECK(loaded.switches.at(Guid{0x0002c90300000001}).lid == Lid{20});

    // The destructor waits for what was handed over last.
    writer.submit(dir, state_with_lid(33));
  }
  SweepState loaded;
  std::vector<std::string> warnings;
  REQUIRE(load_sm_cache(dir, loaded, warnings).ok());
  CHECK(loaded.switches.at(Guid{0x0002c90300000001}).lid == Lid{33});
}

TEST_CASE("a cache save that fails is reported by the writer", "[tools][sm_cache]") {
  const test::TempDir scratch;
  const std::string& dir = scratch.path;
  const std::string file = dir + "/not-a-folder";
  { std::ofstream(file) << "x"; }
  SmCacheWriter writer;
  writer.submit(file, state_with_lid(1));  // a file where the folder should be
  writer.flush();
  const std::vector<std::string> errors = writer.take_errors();
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("not-a-folder") != std::string::npos);
  CHECK(writer.take_errors().empty());
}

}  // namespace
}  // namespace ibsm
