#include "sm/manager/election.h"

#include <catch2/catch.hpp>

#include "tests/sm/manager/remote_sm_fixtures.h"

namespace ibsm {
namespace {

namespace st = wire::sm_state;

using testing::info;
using testing::remote;

TEST_CASE("priority decides, then the lower guid", "[manager][election]") {
  CHECK(outranks(5, Guid{9}, 4, Guid{1}));
  CHECK_FALSE(outranks(4, Guid{1}, 5, Guid{9}));
  CHECK(outranks(5, Guid{1}, 5, Guid{2}));
  CHECK_FALSE(outranks(5, Guid{2}, 5, Guid{1}));
  CHECK_FALSE(outranks(5, Guid{2}, 5, Guid{2}));
}

TEST_CASE("a discovering sm follows any master, else the best sm that outranks it", "[manager][election]") {
  const auto self = info(10, 8, st::discovering);
  SECTION("alone: master") { CHECK(elect_while_discovering(self, {}).verdict == Verdict::become_master); }
  SECTION("a lower master is still followed: it hands over itself") {
    auto e = elect_while_discovering(self, {remote(20, 1, st::master)});
    REQUIRE(e.verdict == Verdict::follow);
    CHECK(e.peer->port_guid == Guid{20});
  }
  SECTION("two masters: the better ranked one") {
    auto e = elect_while_discovering(self, {remote(30, 2, st::master), remote(20, 3, st::master)});
    REQUIRE(e.verdict == Verdict::follow);
    CHECK(e.peer->port_guid == Guid{20});
  }
  SECTION("higher standby or discovering sm: follow it; lower ones do not count") {
    auto e = elect_while_discovering(self, {remote(40, 2, st::standby), remote(30, 9, st::discovering)});
    REQUIRE(e.verdict == Verdict::follow);
    CHECK(e.peer->port_guid == Guid{30});
    CHECK(elect_while_discovering(self, {remote(40, 2, st::standby)}).verdict == Verdict::become_master);
  }
  SECTION("equal priority: the lower guid wins") {
    CHECK(elect_while_discovering(self, {remote(11, 8, st::standby)}).verdict == Verdict::become_master);
    CHECK(elect_while_discovering(self, {remote(9, 8, st::standby)}).verdict == Verdict::follow);
  }
  SECTION("a not-active sm takes no part") {
    CHECK(elect_while_discovering(self, {remote(5, 15, st::not_active)}).verdict == Verdict::become_master);
  }
}

TEST_CASE("a master yields to a better master or standby, not to a discovering one", "[manager][election]") {
  const auto self = info(10, 8, st::master);
  CHECK(elect_while_master(self, {}).verdict == Verdict::stay_master);
  CHECK(elect_while_master(self, {remote(20, 2, st::standby), remote(30, 8, st::master)}).verdict ==
        Verdict::stay_master);
  auto two_masters = elect_while_master(self, {remote(30, 9, st::master), remote(20, 12, st::standby)});
  REQUIRE(two_masters.verdict == Verdict::hand_over);
  CHECK(two_masters.peer->port_guid == Guid{30});  // the other master first: two masters settle
  auto higher = elect_while_master(self, {remote(20, 12, st::standby), remote(25, 13, st::standby)});
  REQUIRE(higher.verdict == Verdict::hand_over);
  CHECK(higher.peer->port_guid == Guid{25});
  CHECK(elect_while_master(self, {remote(20, 12, st::discovering)}).verdict == Verdict::stay_master);
}

}  // namespace
}  // namespace ibsm
