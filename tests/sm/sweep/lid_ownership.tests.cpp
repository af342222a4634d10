// Who owns which LID (sm/sweep/lid_ownership.h): the checks `ibsm check`
// runs on a topology's LIDs, a guid2lid map put on the ports, and the port
// that holds a LID.
#include "sm/sweep/lid_ownership.h"

#include <catch2/catch.hpp>

#include "tests/sm/sweep/lid_checks.h"

using namespace ibsm;
using namespace ibsm::lid_testing;

namespace {

// chain(2, 2): switches 0 and 3 (node order), CAs 1, 2 on the first, 4, 5 on the second.
Fabric numbered_chain() {
  Fabric f = chain(2, 2);
  uint16_t lid = 1;
  for (uint32_t i = 0; i < f.node_count(); ++i) hold(f, NodeIndex{i}, lid++);
  return f;
}

}  // namespace

TEST_CASE("a fabric where every lid-owning port has its own lid has no lid problems", "[sweep][lids][check]") {
  Fabric f = numbered_chain();
  CHECK(lid_problems(f).empty());
  // A lid on a switch's external port is no lid of its own: only port 0 counts.
  f.node(NodeIndex{0}).port(1).base_lid = Lid{2};
  CHECK(lid_problems(f).empty());
}

TEST_CASE("a port without a lid and a lid held twice are lid problems", "[sweep][lids][check]") {
  Fabric f = numbered_chain();
  hold(f, NodeIndex{1}, 0);  // a CA without a lid
  hold(f, NodeIndex{5}, 4);  // the second switch's lid, twice
  const auto problems = lid_problems(f);
  REQUIRE(problems.size() == 2);
  CHECK(problems[0] == fmt::format("{} port 1 ('{}') has no lid", f.node(NodeIndex{1}).node_guid,
                                   f.node(NodeIndex{1}).name));
  CHECK(problems[1] == fmt::format("lid 4 is held by {} port 1 and {} port 0", f.node(NodeIndex{5}).node_guid,
                                   f.node(NodeIndex{3}).node_guid));
}

TEST_CASE("a lid block overlapping another port's lid is a problem; an unconnected CA port is none",
          "[sweep][lids][check]") {
  Fabric f = numbered_chain();
  hold(f, NodeIndex{1}, 2, 1);  // lids 2 and 3: 3 is the next CA's
  auto problems = lid_problems(f);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].rfind("lid 3 is held by", 0) == 0);

  Fabric lone = numbered_chain();
  lone.node(NodeIndex{1}).port(1) = Port{};  // its cable gone, its lid with it
  lone.node(NodeIndex{1}).port(1).guid = Guid{0x1234};
  CHECK_FALSE(lone.node(NodeIndex{1}).port(1).connected());
  CHECK(lid_problems(lone).empty());
}

TEST_CASE("a guid2lid map gives its ports their lid blocks and leaves the others alone", "[sweep][lids][check]") {
  Fabric f = numbered_chain();
  const Guid ca = f.node(NodeIndex{2}).port(1).guid;
  const Guid sw = f.node(NodeIndex{3}).port(0).guid;
  Guid2Lid map{{ca, LidRange{Lid{16}, Lid{19}}}, {sw, LidRange{Lid{40}, Lid{40}}}, {Guid{0x99}, {Lid{7}, Lid{7}}}};
  apply_guid2lid(f, map);
  CHECK(f.node(NodeIndex{2}).port(1).base_lid == Lid{16});
  CHECK(f.node(NodeIndex{2}).port(1).lmc == 2);
  CHECK(f.node(NodeIndex{3}).port(0).base_lid == Lid{40});
  CHECK(f.node(NodeIndex{3}).port(0).lmc == 0);
  CHECK(f.node(NodeIndex{1}).port(1).base_lid == Lid{2});  // not in the map
  CHECK(lid_problems(f).empty());
}

TEST_CASE("the port with a lid is the one whose block holds it", "[sweep][lids][check]") {
  Fabric f = numbered_chain();
  hold(f, NodeIndex{4}, 8, 2);  // lids 8-11
  CHECK(port_with_lid(f, Lid{1}) == PortRef{NodeIndex{0}, 0});
  CHECK(port_with_lid(f, Lid{3}) == PortRef{NodeIndex{2}, 1});
  CHECK(port_with_lid(f, Lid{10}) == PortRef{NodeIndex{4}, 1});
  CHECK_FALSE(port_with_lid(f, Lid{12}));
  CHECK_FALSE(port_with_lid(f, Lid{0}));
}
