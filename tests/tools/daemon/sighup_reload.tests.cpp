// The SIGHUP reload (tools/daemon/sighup_reload.h) over a manager on
// SimFabric: the config file and flags read again, partitions and QoS; a bad
// one changes nothing; changed keys logged, restart-needed ones kept; a
// heavy sweep either way.
#include "tools/daemon/sighup_reload.h"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "tests/tools/daemon/daemon_bench.h"
#include "tests/tools/os/temp_dir.h"

namespace ibsm::test {
namespace {

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// The sources a daemon started with: a config file in `dir` and -P over it.
struct Reloadable {
  TempDir dir;
  ConfigSources sources;
  SmConfig config;
  Reloadable() {
    write_file(dir.path + "/ibsm.conf", "sweep_interval 1\nlmc 0\ncache_dir\ncontrol_socket\n");
    write_file(dir.path + "/partitions.conf", "Default=0x7fff : ALL=full;\n");
    sources.file = dir.path + "/ibsm.conf";
    sources.flags = {{"partition_config_file", dir.path + "/partitions.conf"}};
    std::vector<std::string> errors;
    REQUIRE(load_config(sources, config, errors).ok());
    REQUIRE(errors.empty());
  }
};

}  // namespace

TEST_CASE("a reload applies the reloadable keys, keeps and reports the others, and sweeps", "[tools][daemon][reload]") {
  Reloadable r;
  DaemonBench b(r.config);
  b.bring_up();
  const uint64_t heavy = b.manager().counters().heavy_sweeps;
  write_file(r.dir.path + "/ibsm.conf", "sweep_interval 7\nlmc 2\ncache_dir\ncontrol_socket\nlog_level 3\n");
  b.log.clear();
  SmConfig config = r.config;
  reload_on_hup(r.sources, config, b.manager(), b.log);
  CHECK(b.log.count(LogLevel::info, "SIGHUP: sweep_interval 1 -> 7") == 1);
  CHECK(b.log.count(LogLevel::info, "SIGHUP: log_level 2 -> 3") == 1);
  CHECK(b.log.count(LogLevel::warn, "SIGHUP: lmc: needs a restart; kept 0 (file says 2)") == 1);
  CHECK(b.log.has("SIGHUP: heavy sweep, configuration reloaded"));
  CHECK(config.sweep_interval == 7);
  CHECK(config.lmc == 0);  // kept until a restart
  CHECK(b.manager().config().sweep_interval == 7);
  CHECK(b.log.enabled(LogLevel::debug, Subsystem::tools));  // log_level 3 on the daemon's sink
  b.run_for(kSecond);
  CHECK(b.manager().counters().heavy_sweeps == heavy + 1);
}

TEST_CASE("a bad config file, flag, partitions file or QoS policy changes nothing but the sweep",
          "[tools][daemon][reload]") {
  Reloadable r;
  DaemonBench b(r.config);
  b.bring_up();
  std::string expected;
  SECTION("a bad line in the config file") {
    write_file(r.dir.path + "/ibsm.conf", "sweep_interval 7\nsweep_interval many\n");
    expected = "SIGHUP: nothing changed, configuration kept: " + r.dir.path + "/ibsm.conf:2";
  }
  SECTION("the config file gone") {
    std::filesystem::remove(r.dir.path + "/ibsm.conf");
    expected = "SIGHUP: nothing changed, configuration kept: ";
  }
  SECTION("a bad flag value") {
    write_file(r.dir.path + "/ibsm.conf", "sweep_interval 7\n");
    r.sources.flags.emplace_back("lmc", "9");
    expected = "SIGHUP: nothing changed, configuration kept: ";
  }
  SECTION("a bad partitions file") {
    write_file(r.dir.path + "/ibsm.conf", "sweep_interval 7\n");
    write_file(r.dir.path + "/partitions.conf", "Default=0x7fff : ALL=full;\nbroken\n");
    expected = "SIGHUP: nothing changed, partitions kept: " + r.dir.path + "/partitions.conf:2";
  }
  SECTION("a QoS policy named and absent") {
    write_file(r.dir.path + "/ibsm.conf",
               "sweep_interval 7\nqos TRUE\nqos_policy_file " + r.dir.path + "/qos-policy.conf\n");
    expected = "SIGHUP: nothing changed, QoS policy kept: ";
  }
  const uint64_t heavy = b.manager().counters().heavy_sweeps;
  b.log.clear();
  SmConfig config = r.config;
  reload_on_hup(r.sources, config, b.manager(), b.log);
  REQUIRE(b.log.lines.size() == 1);
  CHECK(b.log.levels[0] == LogLevel::error);
  CHECK(b.log.lines[0].rfind(expected, 0) == 0);
  CHECK(config.sweep_interval == 1);
  CHECK(b.manager().config().sweep_interval == 1);
  b.run_for(kSecond);
  CHECK(b.manager().counters().heavy_sweeps == heavy + 1);  // a heavy sweep either way
}

TEST_CASE("the daemon's reload updates the config its listeners read", "[tools][daemon][reload]") {
  Reloadable r;
  DaemonBench b(r.config);
  b.bring_up();
  TempDir dumps;
  write_file(r.dir.path + "/ibsm.conf", "sweep_interval 1\ncache_dir\ncontrol_socket\ndump_files_dir " + dumps.path + "\n");
  b.daemon->reload(r.sources);
  CHECK(b.daemon->config().dump_files_dir == dumps.path);
  b.run_for(kSecond);  // the heavy sweep the reload asked for
  CHECK(std::filesystem::exists(dumps.path + "/opensm-lfts.dump"));
}

}  // namespace ibsm::test
