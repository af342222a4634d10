#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

namespace {

void check_regular(const Fabric& f, uint32_t degree) {
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    if (!n.is_switch()) continue;
    INFO(n.name);
    const auto peers = switch_neighbours(f, NodeIndex{i});
    CHECK(peers.size() == degree);  // no parallel cables: one per neighbour
    CHECK(peers.count(NodeIndex{i}) == 0);  // no self-loops
    for (const auto& [peer, cables] : peers) CHECK(cables == 1);
  }
}

}  // namespace

TEST_CASE("random regular graphs are regular, simple and connected", "[topogen][random]") {
  const auto [switches, degree] = GENERATE(table<uint32_t, uint32_t>({{16, 4}, {50, 3}, {30, 2}, {2, 1}, {9, 8}, {100, 7}}));
  const uint64_t seed = GENERATE(1u, 2u, 99u);
  INFO("switches=" << switches << " degree=" << degree << " seed=" << seed);
  const RandomRegularParams p{switches, degree, 2, seed, {}};
  const Fabric f = value_of(random_regular(p));
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.switch_links == switches * degree / 2);
  check_counts(f, e);
  check_wiring_and_identities(f);
  CHECK(connected(f));
  check_regular(f, degree);
}

TEST_CASE("random regular graphs are reproducible from the seed", "[topogen][random][determinism]") {
  const RandomRegularParams p{40, 5, 1, 12345, {}};
  const std::string first = fingerprint(value_of(random_regular(p)));
  CHECK(fingerprint(value_of(random_regular(p))) == first);
  RandomRegularParams other = p;
  other.seed = 12346;
  CHECK(fingerprint(value_of(random_regular(other))) != first);
  // Degree 2 (the shuffled ring) too.
  const RandomRegularParams ring{20, 2, 0, 5, {}};
  RandomRegularParams ring2 = ring;
  ring2.seed = 6;
  CHECK(fingerprint(value_of(random_regular(ring))) == fingerprint(value_of(random_regular(ring))));
  CHECK(fingerprint(value_of(random_regular(ring))) != fingerprint(value_of(random_regular(ring2))));
}

TEST_CASE("random regular parameter errors", "[topogen][random][errors]") {
  CHECK_THAT(error_of(random_regular({1, 1, 1, 1, {}})), Catch::Contains("switches"));
  CHECK_THAT(error_of(random_regular({8, 0, 1, 1, {}})), Catch::Contains("degree"));
  CHECK_THAT(error_of(random_regular({8, 8, 1, 1, {}})), Catch::Contains("needs more than 8 switches"));
  CHECK_THAT(error_of(random_regular({9, 3, 1, 1, {}})), Catch::Contains("even"));
  CHECK_THAT(error_of(random_regular({4, 1, 1, 1, {}})), Catch::Contains("degree 1"));
  CHECK_THAT(error_of(random_regular({300, 10, 250, 1, {}})), Catch::Contains("254"));
}
