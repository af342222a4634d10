#include "sm/dump/opensm_view.h"

#include <catch2/catch.hpp>

#include "sm/dump/switch_hops.h"
#include "tests/sm/dump/dump_test_util.h"

namespace ibsm {
namespace {

using dump::OpenSmView;
using dump::SwitchHops;
using test::index_of;

std::vector<std::string> names(const Fabric& f, const std::vector<NodeIndex>& nodes) {
  std::vector<std::string> out;
  for (NodeIndex n : nodes) out.push_back(f.node(n).name);
  return out;
}

}  // namespace

TEST_CASE("nodes come in the order of OpenSM's GUID tables: byte-swapped GUIDs", "[dump][view]") {
  const Fabric f = test::two_switch_fabric();
  const OpenSmView view(f);
  // GUIDs H1 0x100000, S1 0x200000, S2 0x200001, H2 0x100003: the lowest byte
  // counts most, then the next.
  CHECK(names(f, view.nodes()) == std::vector<std::string>{"H1", "S1", "S2", "H2"});
  CHECK(names(f, view.switches()) == std::vector<std::string>{"S1", "S2"});
}

TEST_CASE("LIDs belong to switch port 0 and to cabled CA ports, over the whole LMC range", "[dump][view]") {
  Fabric f = test::fabric_from_text(test::read_dump_fixture("two_switch.net"));
  test::bring_up(f, {{"S1", 1}, {"H1", 2}, {"S2", 4}, {"H2", 6}}, /*lmc=*/1);
  // A LID on a free CA port is not the subnet's: OpenSM never sees that port.
  f.node(index_of(f, "H2")).port(2).base_lid = Lid{40};
  const OpenSmView view(f);
  CHECK(view.max_lid() == 7);
  CHECK_FALSE(view.port_of_lid(0).has_value());
  CHECK(view.port_of_lid(1) == PortRef{index_of(f, "S1"), 0});
  CHECK(view.port_of_lid(2) == PortRef{index_of(f, "H1"), 1});
  CHECK(view.port_of_lid(3) == PortRef{index_of(f, "H1"), 1});
  CHECK(view.port_of_lid(4) == PortRef{index_of(f, "S2"), 0});
  CHECK_FALSE(view.port_of_lid(5).has_value());
  CHECK(view.port_of_lid(7) == PortRef{index_of(f, "H2"), 1});
  CHECK_FALSE(view.port_of_lid(8).has_value());
  CHECK(view.lid_of(PortRef{index_of(f, "S2"), 3}) == Lid{4});
  CHECK(view.port_guid_of(PortRef{index_of(f, "H2"), 1}) == Guid{0x100004});
}

TEST_CASE("switch hops: least counts, and counts through a port as OpenSM's hop matrix has them",
          "[dump][hops]") {
  Fabric f = test::fabric_from_text(R"(
Switch 4 "A"
[1] "B"[1]
[2] "B"[2]
[3] "H"[1]

Switch 4 "B"
[1] "A"[1]
[2] "A"[2]
[3] "C"[1]

Switch 4 "C"
[1] "B"[3]
[2] "D"[1]

Switch 4 "D"
[1] "C"[2]

Hca 1 "H"
[1] "A"[3]
)");
  test::bring_up(f, {});
  const NodeIndex a = index_of(f, "A"), b = index_of(f, "B"), c = index_of(f, "C"), d = index_of(f, "D");
  const SwitchHops hops(f);
  CHECK(hops.least(a, a) == 0);
  CHECK(hops.least(a, b) == 1);
  CHECK(hops.least(a, d) == 3);
  CHECK(hops.least(d, a) == 3);
  CHECK(hops.via(a, 0, d) == 3);   // port 0 holds the least count
  CHECK(hops.via(a, 1, d) == 3);   // parallel links cost the same
  CHECK(hops.via(a, 2, d) == 3);
  CHECK(hops.via(a, 1, a) == 2);   // out and back
  CHECK(hops.via(a, 3, d) == SwitchHops::no_path);  // a CA does not forward
  CHECK(hops.via(a, 4, d) == SwitchHops::no_path);  // a free port
  CHECK(hops.via(a, 9, d) == SwitchHops::no_path);  // past the last port

  // A link that is down carries nothing: D is cut off.
  f.node(c).port(2).state = PortState::down;
  const SwitchHops cut(f);
  CHECK(cut.least(a, d) == SwitchHops::no_path);
  CHECK(cut.via(c, 2, d) == SwitchHops::no_path);
  CHECK(cut.least(a, c) == 2);
}

}  // namespace ibsm
