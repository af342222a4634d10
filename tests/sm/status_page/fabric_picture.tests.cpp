#include "sm/status_page/fabric_picture.h"

#include <catch2/catch.hpp>

#include "sm/status_page/load_colour.h"
#include "sm/topogen/generators.h"
#include "status_fixtures.h"

namespace ibsm::status {
namespace {

using testing::count;
using testing::must;

TEST_CASE("picture: a small fat tree, every switch and CA drawn, coloured by load", "[status][picture]") {
  const testing::Routed r = testing::route(must(topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 2})));
  const Picture p = draw_fabric(r.subnet->fabric, r.check.pairs.port_routes, {});
  CHECK(p.note.empty());
  CHECK_FALSE(p.endpoints_aggregated);
  CHECK(count(p.svg, "<g class=\"switch\">") == 6);
  CHECK(count(p.svg, "<g class=\"ca\">") == 8);
  CHECK(p.connections == 8);
  CHECK(p.connections_drawn == 8);
  CHECK(count(p.svg, "<line class=\"link\"") == 8);
  // Each host receives 7 routes; the busiest leaf uplink carries at most that.
  CHECK(p.max_routes == std::max<uint64_t>(7, r.check.pairs.max_link_routes));
  CHECK_THAT(p.svg, Catch::Contains(std::string("stroke=\"") + kLoadColours[5]));
  CHECK_THAT(p.svg, Catch::Contains(std::string("fill=\"") + kSwitchFill));
  CHECK_THAT(p.svg, Catch::Contains(">leaf-0<"));
  CHECK_THAT(p.svg, Catch::StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
}

TEST_CASE("picture: without loads every link is grey; errors are red", "[status][picture]") {
  const testing::Routed r = testing::route(must(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 1})));
  const Fabric& f = r.subnet->fabric;
  Picture p = draw_fabric(f, {}, {});
  CHECK(p.max_routes == 0);
  CHECK_THAT(p.svg, Catch::Contains(std::string("stroke=\"") + kLoadColours[0]));
  CHECK_THAT(p.svg, !Catch::Contains(std::string("stroke=\"") + kLoadColours[5]));
  CHECK_THAT(p.svg, !Catch::Contains(kErrorColour));
  // An error count at a leaf's uplink turns that cable red.
  const NodeIndex leaf = *f.find_by_name("leaf-0");
  uint8_t up = 0;
  for (unsigned q = 1; q <= f.node(leaf).num_ports && up == 0; ++q) {
    const Port& port = f.node(leaf).port(static_cast<uint8_t>(q));
    if (port.connected() && f.node(port.remote_node).is_switch()) up = static_cast<uint8_t>(q);
  }
  REQUIRE(up != 0);
  p = draw_fabric(f, r.check.pairs.port_routes, {{PortRef{leaf, up}, 3}});
  CHECK(count(p.svg, std::string("stroke=\"") + kErrorColour) == 1);
  CHECK_THAT(p.svg, Catch::Contains("errors 3"));
}

TEST_CASE("picture: past the caps CAs are one mark per switch and only the busiest connections are drawn",
          "[status][picture]") {
  const testing::Routed r = testing::route(must(topogen::kary_ntree({.k = 4, .n = 3})));
  const Picture all = draw_fabric(r.subnet->fabric, r.check.pairs.port_routes, {});
  CHECK(count(all.svg, "<g class=\"ca\">") == 64);
  CHECK(all.connections == 128);  // 16 switches a level, each cabled to 4 distinct ones above
  const Picture capped = draw_fabric(r.subnet->fabric, r.check.pairs.port_routes, {},
                                     {.max_endpoint_marks = 32, .max_connections = 10});
  CHECK(capped.endpoints_aggregated);
  CHECK(count(capped.svg, "<g class=\"ca\">") == 0);
  CHECK(count(capped.svg, "<g class=\"cas\">") == 16);
  CHECK(capped.connections_drawn == 10);
  CHECK(count(capped.svg, "class=\"link\"") == 10);
  CHECK_THAT(capped.note, Catch::Contains("64 CA ports (more than 32) are drawn as one mark per switch"));
  CHECK_THAT(capped.note, Catch::Contains("only the 10 most loaded of 128 switch-to-switch connections"));
  // The most loaded connection is among those drawn.
  CHECK_THAT(capped.svg, Catch::Contains(std::string("stroke=\"") + kLoadColours[5]));
}

TEST_CASE("picture: a torus renders, its cables as arcs over the row", "[status][picture]") {
  const testing::Routed r =
      testing::route(must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 1})));
  const Picture p = draw_fabric(r.subnet->fabric, r.check.pairs.port_routes, {});
  CHECK(count(p.svg, "<g class=\"switch\">") == 16);
  CHECK(count(p.svg, "<g class=\"ca\">") == 16);
  CHECK(p.connections == 32);
  CHECK(count(p.svg, "<path class=\"link\"") == 32);
  // Wrapped into lines of 8: cables between lines are straight.
  const Picture wrapped = draw_fabric(r.subnet->fabric, r.check.pairs.port_routes, {}, {.switches_per_line = 8});
  CHECK(count(wrapped.svg, "class=\"link\"") == 32);
  CHECK(count(wrapped.svg, "<line class=\"link\"") > 0);
}

TEST_CASE("picture: a random regular graph renders", "[status][picture]") {
  const testing::Routed r = testing::route(must(topogen::random_regular({.switches = 12, .degree = 3, .hosts_per_switch = 1})));
  const Picture p = draw_fabric(r.subnet->fabric, r.check.pairs.port_routes, {});
  CHECK(count(p.svg, "<g class=\"switch\">") == 12);
  CHECK(p.connections == 18);
  CHECK(count(p.svg, "class=\"link\"") == 18);
}

TEST_CASE("picture: many switches are small unlabelled boxes named in their tooltips", "[status][picture]") {
  const testing::Routed r = testing::route(must(topogen::kary_ntree({.k = 4, .n = 3})));
  const Picture p = draw_fabric(r.subnet->fabric, r.check.pairs.port_routes, {}, {.labelled_switches = 10});
  CHECK(count(p.svg, "<g class=\"switch\">") == 48);
  CHECK_THAT(p.svg, Catch::Contains("<title>leaf-0 (0x"));
  CHECK(count(p.svg, "<text") == 0);
}

}  // namespace
}  // namespace ibsm::status
