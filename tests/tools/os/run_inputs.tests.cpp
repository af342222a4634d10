// What `ibsm run` reads before it starts (tools/os/run_inputs.h): the config
// file with the flags over it, the partitions file and its default rule, the
// engines' files, the QoS policy, and the SM cache.
#include "tools/os/run_inputs.h"

#include <fstream>

#include <catch2/catch.hpp>

#include "tests/tools/os/temp_dir.h"

namespace ibsm::test {
namespace {

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

// Every line logged.
struct Lines final : LogSink {
  bool enabled(LogLevel, Subsystem) const override { return true; }
  void write(LogLevel, Subsystem, std::string_view m) override { lines.emplace_back(m); }
  std::vector<std::string> lines;
};

}  // namespace

TEST_CASE("the flags apply over the config file, and -v over the log level", "[tools][run_inputs]") {
  TempDir dir;
  ConfigSources sources;
  sources.file = write_file(dir.path + "/ibsm.conf", "lmc 1\nsm_priority 3\nlog_level 1\n");
  sources.flags = {{"lmc", "2"}, {"routing_engine", "updn"}};
  sources.verbose = 2;
  SmConfig config;
  std::vector<std::string> errors;
  REQUIRE(load_config(sources, config, errors).ok());
  CHECK(errors.empty());
  CHECK(config.lmc == 2);          // the flag over the file
  CHECK(config.sm_priority == 3);  // the file
  CHECK(config.routing_engine == "updn");
  CHECK(config.log_level == 3);  // 1 + -v -v

  sources.verbose = 9;
  SmConfig loud;
  REQUIRE(load_config(sources, loud, errors).ok());
  CHECK(loud.log_level == 4);  // trace at most
}

TEST_CASE("a config file that is missing or bad is the error; a bad flag value names its key", "[tools][run_inputs]") {
  TempDir dir;
  SmConfig config;
  std::vector<std::string> errors;
  ConfigSources missing{.file = dir.path + "/none.conf"};
  Status s = load_config(missing, config, errors);
  CHECK_FALSE(s.ok());
  CHECK(s.message().find("none.conf") != std::string::npos);

  ConfigSources bad{.file = write_file(dir.path + "/bad.conf", "lmc 1\nno_such_key 5\n")};
  s = load_config(bad, config, errors);
  REQUIRE_FALSE(s.ok());
  CHECK(s.message().find("bad.conf:2") != std::string::npos);

  ConfigSources flags{.flags = {{"lmc", "9"}, {"sm_priority", "7"}}};
  SmConfig flagged;
  REQUIRE(load_config(flags, flagged, errors).ok());
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].find("lmc") != std::string::npos);
  CHECK(flagged.sm_priority == 7);  // the good ones still apply
}

TEST_CASE("the partitions file: none named, absent at the default path, named and absent, bad, good",
          "[tools][run_inputs][partitions]") {
  TempDir dir;
  const std::string default_path = dir.path + "/partitions.conf";
  // Not named at all, or absent at the default path: OpenSM's Default partition (null).
  auto none = load_partitions("", default_path);
  REQUIRE(none.ok());
  CHECK(*none == nullptr);
  auto absent_default = load_partitions(default_path, default_path);
  REQUIRE(absent_default.ok());
  CHECK(*absent_default == nullptr);
  // Named otherwise, it must be there.
  auto absent_named = load_partitions(dir.path + "/mine.conf", default_path);
  REQUIRE_FALSE(absent_named.ok());
  CHECK(absent_named.status().message().find("mine.conf") != std::string::npos);
  // A bad one names file:line, at the default path too.
  write_file(default_path, "Default=0x7fff, ipoib : ALL=full;\nstorage=0x8001 : nonsense;\n");
  auto bad = load_partitions(default_path, default_path);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().message().find("partitions.conf:2") != std::string::npos);
  write_file(default_path, "Default=0x7fff, ipoib : ALL=full;\nstorage=0x8001 : ALL=limited;\n");
  auto good = load_partitions(default_path, default_path);
  REQUIRE(good.ok());
  REQUIRE(*good != nullptr);
  CHECK((*good)->partitions.size() == 2);
}

TEST_CASE("the run's inputs: the first file that fails is the error", "[tools][run_inputs]") {
  TempDir dir;
  SmConfig config;
  config.partition_config_file = "";
  auto plain = load_run_inputs(config);
  REQUIRE(plain.ok());
  CHECK(plain->partitions == nullptr);
  CHECK(plain->qos_policy == nullptr);  // qos FALSE: no policy read

  config.root_guid_file = dir.path + "/roots";
  auto no_roots = load_run_inputs(config);
  REQUIRE_FALSE(no_roots.ok());
  CHECK(no_roots.status().message().find("roots") != std::string::npos);

  config.root_guid_file.clear();
  config.partition_config_file = dir.path + "/partitions.conf";
  CHECK_FALSE(load_run_inputs(config).ok());
  write_file(config.partition_config_file, "Default=0x7fff : ALL=full;\n");
  auto with_partitions = load_run_inputs(config);
  REQUIRE(with_partitions.ok());
  CHECK(with_partitions->partitions != nullptr);

  config.qos = true;
  config.qos_policy_file = dir.path + "/qos-policy.conf";
  CHECK_FALSE(load_run_inputs(config).ok());  // named, absent
}

TEST_CASE("the run's cache: the guid2lid map kept unless honor_guid2lid_file is off, bad lines logged",
          "[tools][run_inputs][cache]") {
  TempDir dir;
  write_file(dir.path + "/guid2lid", "0x0002c90300000001 0x0001 0x0001\n\nnonsense\n\n");
  SmConfig config;
  config.cache_dir = dir.path;
  Lines log;
  SweepState state = load_run_cache(config, log);
  CHECK(state.guid2lid.size() == 1);
  CHECK_FALSE(log.lines.empty());  // the bad line, as a warning

  config.honor_guid2lid_file = false;
  CHECK(load_run_cache(config, log).guid2lid.empty());

  config.cache_dir = dir.path + "/none";  // a first start: no cache, no error
  Lines quiet;
  CHECK(load_run_cache(config, quiet).guid2lid.empty());
  CHECK(quiet.lines.empty());
}

}  // namespace ibsm::test
