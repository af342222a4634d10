#include <bit>
#include <string>

#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

TEST_CASE("hypercube neighbours differ in exactly one bit", "[topogen][hypercube]") {
  const uint32_t dim = GENERATE(1u, 3u, 6u);
  HypercubeParams p;
  p.dimension = dim;
  p.hosts_per_switch = 2;
  const Fabric f = value_of(hypercube(p));
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.switches == (1u << dim));
  CHECK(e.switch_links == (1u << dim) * dim / 2);
  check_counts(f, e);
  check_wiring_and_identities(f);
  CHECK(connected(f));

  auto index_of = [&](NodeIndex i) { return std::stoul(f.node(i).name.substr(3)); };
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    if (!n.is_switch()) continue;
    const auto peers = switch_neighbours(f, NodeIndex{i});
    CHECK(peers.size() == dim);
    for (unsigned port = 3; port <= n.num_ports; ++port) {
      const Port& link = n.port(static_cast<uint8_t>(port));
      REQUIRE(link.connected());
      const unsigned long diff = index_of(NodeIndex{i}) ^ index_of(link.remote_node);
      CHECK(std::popcount(diff) == 1);
      CHECK(diff == 1ul << (port - 3));  // port hosts+1+b flips bit b
      CHECK(link.remote_port == port);
    }
  }
}

TEST_CASE("hypercube parameter errors", "[topogen][hypercube][errors]") {
  CHECK_THAT(error_of(hypercube({0, 1, {}})), Catch::Contains("dimension"));
  CHECK_THAT(error_of(hypercube({21, 1, {}})), Catch::Contains("more than 20"));
  CHECK_THAT(error_of(hypercube({4, 251, {}})), Catch::Contains("254"));
}
