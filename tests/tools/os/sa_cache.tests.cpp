// The SA cache at the edge: saves only when the registrations changed, at
// most once per interval and at stop, into a file that load_sa_cache reads
// back; a damaged file is a warning naming it, and no restore.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "mad/wire/constants.h"
#include "tests/tools/os/temp_dir.h"
#include "tools/os/files.h"
#include "tools/os/sa_cache.h"

namespace ibsm::test {
namespace {

constexpr Micros kSecond = 1'000'000;

sa::SaRegistrations one_service(uint64_t id) {
  sa::SaRegistrations r;
  wire::ServiceRecord s;
  s.service_id = id;
  s.service_p_key = 0xFFFF;
  s.service_lease = wire::service_lease_infinite;
  r.services = {s};
  return r;
}

TEST_CASE("the sa cache is saved when it changed, at most once an interval, and at stop", "[tools][persist]") {
  TempDir dir;
  const std::string file = dir.path + "/" + sa_cache_file;
  sa::SaAgent agent([](const MadPacket&) {});
  SaCacheWriter writer(dir.path, agent, null_log_sink());
  writer.poll(agent, 0);
  CHECK(writer.saves() == 0);  // nothing changed
  CHECK_FALSE(std::filesystem::exists(file));

  (void)agent.import(one_service(1), 0);
  writer.poll(agent, 0);
  REQUIRE(writer.saves() == 1);
  std::vector<std::string> warnings;
  auto loaded = load_sa_cache(dir.path, warnings);
  REQUIRE(loaded.has_value());
  CHECK(warnings.empty());
  CHECK(loaded->registrations.services.at(0).service_id == 1);
  CHECK_FALSE(std::filesystem::exists(file + ".tmp"));

  (void)agent.import(one_service(2), kSecond / 2);
  writer.poll(agent, kSecond / 2);
  CHECK(writer.saves() == 1);  // within the interval: later
  writer.poll(agent, kSecond);
  CHECK(writer.saves() == 2);
  writer.poll(agent, 3 * kSecond);
  CHECK(writer.saves() == 2);  // unchanged since

  (void)agent.import(one_service(3), 3 * kSecond + 1);
  writer.flush(agent, 3 * kSecond + 1);  // the stop does not wait for the interval
  CHECK(writer.saves() == 3);
  loaded = load_sa_cache(dir.path, warnings);
  REQUIRE(loaded.has_value());
  CHECK(loaded->registrations.services.at(0).service_id == 3);
}

TEST_CASE("a damaged sa cache file is a warning naming it, and nothing restored", "[tools][persist]") {
  TempDir dir;
  const std::string file = dir.path + "/" + sa_cache_file;
  std::vector<std::string> warnings;
  CHECK_FALSE(load_sa_cache(dir.path, warnings).has_value());  // none: a first start
  CHECK(warnings.empty());

  std::string text = sa::encode_registrations(one_service(7), 0);
  REQUIRE(write_file_atomically(file, text.substr(0, text.size() / 2)).ok());
  CHECK_FALSE(load_sa_cache(dir.path, warnings).has_value());
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].rfind("sa registrations not restored: " + file + ":", 0) == 0);
}

}  // namespace
}  // namespace ibsm::test
