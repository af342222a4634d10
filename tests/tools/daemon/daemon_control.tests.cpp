// The daemon's side of `ibsm ctl` (tools/daemon/daemon_control.h): the
// requests parsed, and each command run on a manager over SimFabric.
#include "tools/daemon/daemon_control.h"

#include <filesystem>

#include <catch2/catch.hpp>

#include "tests/tools/daemon/daemon_bench.h"
#include "tests/tools/os/temp_dir.h"

namespace ibsm::test {
namespace {

using tools::DaemonControl;
using tools::parse_control_request;

std::string error_of(const ControlWords& words) {
  auto r = parse_control_request(words);
  REQUIRE_FALSE(r.ok());
  return r.status().message();
}

// A DaemonControl on the bench's manager, its LID read from the SimFabric.
struct ControlBench {
  DaemonBench b;
  DaemonControl control;
  explicit ControlBench(std::string dump_dir = {})
      : control(b.manager(), b.sim.clock(), b.log, b.log, [this] { return b.manager().own_lid(); },
                std::move(dump_dir)) {}
};

}  // namespace

TEST_CASE("control requests: the command, its argument, its flag and --json in any order", "[tools][daemon][control]") {
  auto r = parse_control_request({"--json", "resweep", "--heavy"});
  REQUIRE_FALSE(r.ok());  // the command comes first
  r = parse_control_request({"resweep", "--json", "--heavy"});
  REQUIRE(r.ok());
  CHECK(std::string_view(r->command->name) == "resweep");
  CHECK(r->json);
  CHECK(r->flag);
  r = parse_control_request({"release", "0x2c9030000abcd", "--json", "1"});
  REQUIRE(r.ok());
  CHECK(r->argument == "0x2c9030000abcd 1");
  r = parse_control_request({"loglevel", "-1"});  // not an option: 0-4 and names only
  CHECK_FALSE(r.ok());
  CHECK(parse_control_request({"dump"})->argument.empty());

  CHECK(error_of({}) == "no command given");
  CHECK(error_of({"reboot"}) == "unknown command 'reboot'");
  CHECK(error_of({"status", "--heavy"}) == "status: unknown option '--heavy'");
  CHECK(error_of({"status", "now"}) == "status: unexpected argument 'now'");
  CHECK(error_of({"loglevel"}) == "loglevel needs LEVEL");
  CHECK(error_of({"loglevel", "loud"}) == "loglevel: 'loud' is not error, warn, info, debug, trace or 0-4");
  CHECK(error_of({"release", "0x1"}) == "release needs GUID PORT");
}

TEST_CASE("status and sminfo answer from the published snapshot, on any thread", "[tools][daemon][control]") {
  ControlBench c;
  auto early = c.control.immediate({"status"});
  REQUIRE(early);
  CHECK_FALSE(early->ok);
  CHECK(early->body == "the daemon has published no status yet");
  CHECK_FALSE(c.control.immediate({"resweep"}));  // the main thread's

  c.b.bring_up();
  c.control.publish(true);
  auto status = c.control.immediate({"status"});
  REQUIRE(status);
  REQUIRE(status->ok);
  CHECK(status->body.rfind("SM state        : MASTER\n", 0) == 0);
  auto json = c.control.immediate({"sminfo", "--json"});
  REQUIRE(json);
  CHECK(json->ok);
  CHECK(json->body.front() == '{');
  auto bad = c.control.immediate({"status", "x"});
  REQUIRE(bad);
  CHECK_FALSE(bad->ok);
}

TEST_CASE("the commands run on the manager, logged", "[tools][daemon][control]") {
  ControlBench c;
  c.b.bring_up();
  c.b.log.clear();
  const uint64_t light = c.b.manager().counters().light_sweeps;
  const uint64_t heavy = c.b.manager().counters().heavy_sweeps;

  ControlAnswer a = c.control.handle({"resweep"});
  CHECK(a.ok);
  CHECK(a.body == "light sweep requested\n");
  CHECK(c.b.log.has("control: resweep: done"));
  c.b.run_for(10'000);
  CHECK(c.b.manager().counters().light_sweeps == light + 1);

  a = c.control.handle({"resweep", "--heavy", "--json"});
  CHECK(a.ok);
  CHECK(a.body == "{\"ok\": true, \"message\": \"heavy sweep requested\"}\n");
  c.b.run_for(10'000);
  CHECK(c.b.manager().counters().heavy_sweeps == heavy + 1);

  a = c.control.handle({"loglevel", "debug"});
  CHECK(a.body == "log level debug\n");
  CHECK(c.b.log.enabled(LogLevel::debug, Subsystem::tools));

  a = c.control.handle({"disable"});
  CHECK_FALSE(a.ok);
  CHECK(a.body == "this sm is MASTER: a master does not accept DISABLE (IBA 14.4.1), hand over first");
  CHECK(c.b.log.has("control: disable: " + a.body));
  CHECK_FALSE(c.control.handle({"enable"}).ok);  // not NOT ACTIVE
  CHECK_FALSE(c.control.handle({"handover"}).ok);  // nobody to hand over to

  a = c.control.handle({"release", "zz", "1"});
  CHECK(a.body == "release: 'zz' is not a node GUID");
  a = c.control.handle({"release", "0x1", "255"});
  CHECK(a.body == "release: '255' is not a port number (1-254)");

  a = c.control.handle({"status"});
  CHECK(a.ok);
  CHECK(a.body.rfind("SM state        : MASTER\n", 0) == 0);
}

TEST_CASE("dump writes the dumps to the folder given or dump_files_dir", "[tools][daemon][control]") {
  SECTION("no folder anywhere") {
    ControlBench c;
    c.b.bring_up();
    ControlAnswer a = c.control.handle({"dump"});
    CHECK_FALSE(a.ok);
    CHECK(a.body == "dump: no directory given and dump_files_dir is not set");
  }
  SECTION("dump_files_dir") {
    TempDir dir;
    ControlBench c(dir.path);
    c.b.bring_up();
    ControlAnswer a = c.control.handle({"dump"});
    CHECK(a.body == "dumps written to " + dir.path + "\n");
    CHECK(std::filesystem::exists(dir.path + "/opensm-lfts.dump"));
  }
  SECTION("the folder given") {
    TempDir dir;
    ControlBench c("/nonexistent/never-used");
    c.b.bring_up();
    ControlAnswer a = c.control.handle({"dump", dir.path + "/there"});
    CHECK(a.ok);
    CHECK(std::filesystem::exists(dir.path + "/there/opensm-subnet.lst"));
  }
}

TEST_CASE("the manager's state and sweeps are published as they change", "[tools][daemon][control]") {
  ControlBench c;
  c.control.publish(true);
  auto before = c.control.immediate({"status"});
  REQUIRE(before);
  CHECK(before->body.rfind("SM state        : MASTER", 0) != 0);
  c.b.bring_up();
  c.control.publish();  // the state changed: at once, not a second later
  auto after = c.control.immediate({"status"});
  REQUIRE(after);
  CHECK(after->body.rfind("SM state        : MASTER\n", 0) == 0);
}

}  // namespace ibsm::test
