#include <catch2/catch.hpp>

#include "sm/topogen/builder.h"
#include "sm/topogen/generators.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

TEST_CASE("leaf/spine has the asked-for switches, hosts and cables", "[topogen][leaf_spine]") {
  LeafSpineParams p;
  p.leaves = 6;
  p.spines = 3;
  p.hosts_per_leaf = 5;
  p.links_per_pair = 2;
  const Fabric f = value_of(leaf_spine(p));
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.switches == 9);
  CHECK(e.cas == 30);
  CHECK(e.switch_links == 6 * 3 * 2);
  CHECK(e.links == 30 + 36);
  check_counts(f, e);
  check_wiring_and_identities(f);
  CHECK(connected(f));

  for (uint32_t l = 0; l < p.leaves; ++l) {
    const NodeIndex leaf = named(f, fmt::format("leaf-{}", l));
    const Node& n = f.node(leaf);
    CHECK(unsigned{n.num_ports} == 12);  // radix 0: the fewest that fit: spines need 6 * 2
    CHECK(cabled_ports(n) == 11);
    // Hosts on ports 1..5, numbered leaf by leaf.
    for (unsigned h = 0; h < p.hosts_per_leaf; ++h) {
      const Port& port = n.port(static_cast<uint8_t>(1 + h));
      REQUIRE(port.connected());
      CHECK(f.node(port.remote_node).name == fmt::format("host-{}", l * p.hosts_per_leaf + h));
    }
    // Every spine, each with links_per_pair cables.
    const auto up = switch_neighbours(f, leaf);
    CHECK(up.size() == p.spines);
    for (const auto& [spine, cables] : up) {
      CHECK(f.node(spine).name.starts_with("spine-"));
      CHECK(cables == p.links_per_pair);
    }
  }
  for (uint32_t s = 0; s < p.spines; ++s) {
    const Node& n = f.node(named(f, fmt::format("spine-{}", s)));
    CHECK(cabled_ports(n) == p.leaves * p.links_per_pair);
    CHECK(unsigned{n.num_ports} == 12);  // uniform switches
  }
}

TEST_CASE("leaf/spine GUIDs follow the documented scheme", "[topogen][leaf_spine][guid]") {
  const Fabric f = value_of(leaf_spine(LeafSpineParams{}));
  CHECK(f.node(named(f, "leaf-0")).node_guid == Guid{kSwitchGuidBase});
  CHECK(f.node(named(f, "spine-1")).node_guid == Guid{kSwitchGuidBase + 4 + 1});
  const Node& host = f.node(named(f, "host-5"));
  CHECK(host.type == NodeType::ca);
  CHECK(host.node_guid == Guid{kCaGuidBase + 5 * kCaGuidStride});
  CHECK(host.port(1).guid == Guid{kCaGuidBase + 5 * kCaGuidStride + 1});
  CHECK(f.find_by_port_guid(Guid{kCaGuidBase + 5 * kCaGuidStride + 1}).has_value());
}

TEST_CASE("leaf/spine with an explicit radix builds uniform switches", "[topogen][leaf_spine]") {
  LeafSpineParams p;
  p.radix = 36;
  const Fabric f = value_of(leaf_spine(p));
  for (const Node& n : f.nodes()) {
    if (n.is_switch()) CHECK(unsigned{n.num_ports} == 36);
  }
  check_counts(f, value_of(estimate(p)));
}

TEST_CASE("leaf/spine rejects bad parameters", "[topogen][leaf_spine][errors]") {
  LeafSpineParams p;
  SECTION("no leaves") {
    p.leaves = 0;
    CHECK_THAT(error_of(leaf_spine(p)), Catch::Contains("leaves"));
  }
  SECTION("no spines") {
    p.spines = 0;
    CHECK_THAT(error_of(leaf_spine(p)), Catch::Contains("spines"));
  }
  SECTION("zero links per pair") {
    p.links_per_pair = 0;
    CHECK_THAT(error_of(leaf_spine(p)), Catch::Contains("links"));
  }
  SECTION("radix too small") {
    p.radix = 5;  // leaves need 4 hosts + 2 spine ports = 6
    CHECK_THAT(error_of(leaf_spine(p)), Catch::Contains("radix 5"));
  }
  SECTION("more leaves than a spine has ports") {
    p.leaves = 300;
    CHECK_THAT(error_of(leaf_spine(p)), Catch::Contains("spine"));
  }
  SECTION("bad link width") {
    p.link.width = 3;
    CHECK_THAT(error_of(leaf_spine(p)), Catch::Contains("width"));
  }
}
