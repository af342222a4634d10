// The one wiring of the manager that `ibsm run` uses over libibumad and
// over SimFabric (tools/daemon/daemon_manager.h): the cache saved after a
// sweep (in line or on the writer's thread), the dump files, the SA's
// registrations restored from the cache, the -o summary.
#include "tools/daemon/daemon_manager.h"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "sa/registrations_codec.h"
#include "tests/tools/daemon/daemon_bench.h"
#include "tests/tools/os/temp_dir.h"
#include "tools/os/sa_cache.h"

namespace ibsm::test {

TEST_CASE("a sweep that configured the subnet saves the cache in line and writes the dumps",
          "[tools][daemon][wiring]") {
  TempDir cache, dumps;
  SmConfig config = bench_config();
  config.cache_dir = cache.path;
  config.dump_files_dir = dumps.path;
  size_t after = 0;
  DaemonBench b(config, {.after_sweep = [&](const SweepReport& r) {
                  CHECK(r.subnet_up);
                  ++after;
                }});
  b.bring_up();
  CHECK(after == 1);
  CHECK(std::filesystem::exists(cache.path + "/guid2lid"));  // in line: there at once
  for (const char* dump : {"opensm-subnet.lst", "opensm.fdbs", "opensm.mcfdbs", "opensm-lfts.dump"})
    CHECK(std::filesystem::exists(dumps.path + "/" + dump));
}

TEST_CASE("with a writer the cache is saved on its thread", "[tools][daemon][wiring]") {
  TempDir cache;
  SmConfig config = bench_config();
  config.cache_dir = cache.path;
  SmCacheWriter writer(CacheSaves::once);
  DaemonBench b(config, {.cache_writer = &writer});
  b.bring_up();
  writer.flush();
  CHECK(writer.take_errors().empty());
  CHECK(std::filesystem::exists(cache.path + "/guid2lid"));
}

TEST_CASE("the SA's registrations in the cache go into the SA before the first sweep", "[tools][daemon][wiring]") {
  TempDir cache;
  SmConfig config = bench_config();
  config.cache_dir = cache.path;
  SECTION("a saved file is restored") {
    std::ofstream(cache.path + "/" + sa_cache_file) << sa::encode_registrations(sa::SaRegistrations{}, unix_now_ms());
    DaemonBench b(config);
    CHECK(b.log.count(LogLevel::info, "restoring 0 services, 0 subscriptions and 0 multicast members from the cache") ==
          1);
  }
  SECTION("a damaged one is a warning, and no restore") {
    std::ofstream(cache.path + "/" + sa_cache_file) << "not a cache\n";
    DaemonBench b(config);
    CHECK(b.log.count(LogLevel::warn, "sa registrations not restored") == 1);
    CHECK(b.log.count(LogLevel::info, "restoring") == 0);
  }
  SECTION("none there: nothing said") {
    DaemonBench b(config);
    CHECK(b.log.count(LogLevel::warn, "sa registrations") == 0);
    CHECK(b.log.count(LogLevel::info, "restoring") == 0);
  }
}

TEST_CASE("the -o summary of a sweep", "[tools][daemon][wiring]") {
  DaemonBench b;
  b.bring_up();
  const SweepReport& r = *b.manager().last_sweep();
  const std::string summary = sweep_summary(r, 1'234'567);
  INFO(summary);
  CHECK(summary.rfind(fmt::format("SUBNET UP: 10 nodes (4 switches, 6 CAs), 10 links, lids 1..{}, sm lid {}, routing "
                                  "minhop\n",
                                  r.lids.top.value, r.sm_lid.value),
                      0) == 0);
  CHECK(summary.find(fmt::format("  {} mads in 1.235 s: ", r.total_mads())) != std::string::npos);
  CHECK(summary.find("  phase ") != std::string::npos);
  CHECK(summary.back() == '\n');
  const std::string kinds = mads_by_kind(b.manager().dispatcher().stats());
  CHECK(kinds.rfind("  mads by kind: ", 0) == 0);
  CHECK(kinds.find("NodeInfo=") != std::string::npos);
  CHECK(kinds.back() == '\n');
}

}  // namespace ibsm::test
