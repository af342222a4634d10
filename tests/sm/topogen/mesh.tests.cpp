#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

TEST_CASE("2D mesh: edge switches have fewer neighbours", "[topogen][mesh]") {
  MeshParams p;
  p.dims = {4, 3};
  p.hosts_per_switch = 2;
  const Fabric f = value_of(mesh(p));
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.switches == 12);
  CHECK(e.cas == 24);
  CHECK(e.switch_links == 3 * 3 + 4 * 2);
  check_counts(f, e);
  check_wiring_and_identities(f);
  CHECK(connected(f));

  CHECK(switch_neighbours(f, named(f, "sw-0-0")).size() == 2);
  CHECK(switch_neighbours(f, named(f, "sw-1-0")).size() == 3);
  CHECK(switch_neighbours(f, named(f, "sw-1-1")).size() == 4);
  CHECK(switch_neighbours(f, named(f, "sw-3-2")).size() == 2);
  // No wraparound in a mesh.
  CHECK(switch_neighbours(f, named(f, "sw-3-1")).count(named(f, "sw-0-1")) == 0);
  // The "+x" port (hosts + 1) of sw-1-1 cables to the "-x" port of sw-2-1.
  const Port& plus_x = f.node(named(f, "sw-1-1")).port(3);
  CHECK(plus_x.remote_node == named(f, "sw-2-1"));
  CHECK(plus_x.remote_port == 4);
}

TEST_CASE("3D torus: every switch has six neighbours and dimensions wrap", "[topogen][mesh][torus]") {
  MeshParams p;
  p.dims = {4, 3, 5};
  p.torus = true;
  const Fabric f = value_of(mesh(p));
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.switches == 60);
  CHECK(e.switch_links == 3 * 60);
  check_counts(f, e);
  check_wiring_and_identities(f);
  CHECK(connected(f));
  for (const Node& n : f.nodes()) {
    if (!n.is_switch()) continue;
    INFO(n.name);
    CHECK(cabled_ports(n) == 1 + 6);
    CHECK(switch_neighbours(f, *f.find_by_name(n.name)).size() == 6);
  }
  // Wraparound in each dimension: the last switch's "+" port reaches coordinate 0.
  const Node& corner = f.node(named(f, "sw-3-2-4"));
  CHECK(corner.port(2).remote_node == named(f, "sw-0-2-4"));  // +x
  CHECK(corner.port(4).remote_node == named(f, "sw-3-0-4"));  // +y
  CHECK(corner.port(6).remote_node == named(f, "sw-3-2-0"));  // +z
  CHECK(corner.port(7).remote_node == named(f, "sw-3-2-3"));  // -z
}

TEST_CASE("a torus dimension of size 2 has two parallel cables", "[topogen][mesh][torus]") {
  MeshParams p;
  p.dims = {2, 3};
  p.torus = true;
  p.hosts_per_switch = 0;
  const Fabric f = value_of(mesh(p));
  check_counts(f, value_of(estimate(p)));
  const auto peers = switch_neighbours(f, named(f, "sw-0-0"));
  CHECK(peers.at(named(f, "sw-1-0")) == 2);
  CHECK(cabled_ports(f.node(named(f, "sw-0-0"))) == 4);
}

TEST_CASE("mesh and torus parameter errors", "[topogen][mesh][errors]") {
  MeshParams p;
  p.dims = {};
  CHECK_THAT(error_of(mesh(p)), Catch::Contains("1 to 3 dimensions"));
  p.dims = {2, 2, 2, 2};
  CHECK_THAT(error_of(mesh(p)), Catch::Contains("1 to 3 dimensions"));
  p.dims = {4, 1};
  p.torus = true;
  CHECK_THAT(error_of(mesh(p)), Catch::Contains("dimension 1 of the torus"));
  p.dims = {4, 4};
  p.hosts_per_switch = 251;  // + 4 mesh ports = 255
  CHECK_THAT(error_of(mesh(p)), Catch::Contains("254"));
}
