#include <catch2/catch.hpp>

#include "sm/topogen/builder.h"
#include "sm/topogen/generators.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

TEST_CASE("back-to-back: two CAs, one cable, no switch", "[topogen][back_to_back]") {
  const Fabric f = value_of(back_to_back({}));
  const SizeEstimate e = value_of(estimate(BackToBackParams{}));
  CHECK(e.switches == 0);
  CHECK(e.cas == 2);
  check_counts(f, e);
  check_wiring_and_identities(f);
  CHECK(connected(f));
  const Node& a = f.node(named(f, "host-0"));
  const Node& b = f.node(named(f, "host-1"));
  CHECK(a.port(1).remote_node == named(f, "host-1"));
  CHECK(a.port(1).remote_port == 1);
  CHECK(b.node_guid == Guid{kCaGuidBase + kCaGuidStride});
}

TEST_CASE("link width and speed are applied to every cabled port", "[topogen][link]") {
  BackToBackParams p;
  p.link = {link_width::x12, link_speed::qdr, link_speed_ext::edr};
  const Fabric f = value_of(back_to_back(p));
  check_wiring_and_identities(f, p.link);
  p.link.speed = 3;
  CHECK_THAT(error_of(back_to_back(p)), Catch::Contains("speed"));
}
