#include <algorithm>
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

namespace {

unsigned group_of(const Node& n) {  // "sw-<group>-<router>"
  const auto dash = n.name.find('-', 3);
  return static_cast<unsigned>(std::stoul(n.name.substr(3, dash - 3)));
}

// Global cables per pair of groups (x < y).
std::map<std::pair<unsigned, unsigned>, unsigned> global_cables(const Fabric& f) {
  std::map<std::pair<unsigned, unsigned>, unsigned> out;
  for (const Link& l : f.links()) {
    const Node& a = f.node(l.a.node);
    const Node& b = f.node(l.b.node);
    if (!a.is_switch() || !b.is_switch()) continue;
    const unsigned x = group_of(a), y = group_of(b);
    if (x != y) ++out[{std::min(x, y), std::max(x, y)}];
  }
  return out;
}

void check_dragonfly(const DragonflyParams& p) {
  INFO("a=" << p.a << " p=" << p.p << " h=" << p.h << " g=" << p.g);
  const Fabric f = value_of(dragonfly(p));
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.switches == p.a * p.g);
  CHECK(e.cas == p.a * p.g * p.p);
  check_counts(f, e);
  check_wiring_and_identities(f);
  CHECK(connected(f));

  // All-to-all inside each group.
  for (uint32_t g = 0; g < p.g; ++g) {
    for (uint32_t r = 0; r < p.a; ++r) {
      const auto peers = switch_neighbours(f, named(f, fmt::format("sw-{}-{}", g, r)));
      unsigned local = 0;
      for (const auto& [peer, cables] : peers) {
        if (group_of(f.node(peer)) == g) {
          ++local;
          CHECK(cables == 1);
        }
      }
      CHECK(local == p.a - 1);
    }
  }
  // Balanced global wiring: every pair gets floor(a*h/(g-1)) or one more.
  const auto cables = global_cables(f);
  const unsigned low = p.a * p.h / (p.g - 1);
  unsigned min = UINT32_MAX, max = 0;
  for (uint32_t x = 0; x < p.g; ++x) {
    for (uint32_t y = x + 1; y < p.g; ++y) {
      const auto it = cables.find({x, y});
      const unsigned n = it == cables.end() ? 0 : it->second;
      min = std::min(min, n);
      max = std::max(max, n);
    }
  }
  CHECK(min >= low);
  CHECK(max <= low + 1);
  if (p.a * p.h >= p.g - 1) CHECK(min >= 1);
}

}  // namespace

TEST_CASE("dragonfly: groups all-to-all, global cables balanced", "[topogen][dragonfly]") {
  check_dragonfly({4, 2, 2, 9, {}});   // a*h = g-1: exactly one cable per pair
  check_dragonfly({4, 2, 2, 5, {}});   // two per pair
  check_dragonfly({4, 1, 2, 4, {}});   // g even, a*h = 8 = 2*3 + 2
  check_dragonfly({4, 1, 2, 6, {}});   // g even, a*h = 8 = 5 + 3: odd remainder takes the g/2 offset
  check_dragonfly({3, 1, 3, 6, {}});   // g even, a*h = 9 = 5 + 4
  check_dragonfly({3, 1, 3, 8, {}});   // g even, a*h = 9 = 7 + 2
  check_dragonfly({2, 1, 1, 2, {}});   // two groups
  check_dragonfly({5, 0, 1, 4, {}});   // no hosts
}

TEST_CASE("dragonfly with more groups than global ports stays connected", "[topogen][dragonfly]") {
  const DragonflyParams p{2, 1, 2, 12, {}};  // a*h = 4 < g-1 = 11
  const Fabric f = value_of(dragonfly(p));
  check_counts(f, value_of(estimate(p)));
  CHECK(connected(f));
  const auto cables = global_cables(f);
  for (const auto& [pair, n] : cables) CHECK(n == 1);
  CHECK(cables.size() == 12 * 4 / 2);
}

TEST_CASE("dragonfly with an odd remainder and odd g leaves one port free per group", "[topogen][dragonfly]") {
  const DragonflyParams p{3, 1, 1, 5, {}};  // a*h = 3 = 4*0 + 3, g odd
  const Fabric f = value_of(dragonfly(p));
  const SizeEstimate e = value_of(estimate(p));
  CHECK(e.switch_links == 5 * 3 + 5 * 2 / 2);
  check_counts(f, e);
  CHECK(connected(f));
}

TEST_CASE("dragonfly parameter errors", "[topogen][dragonfly][errors]") {
  CHECK_THAT(error_of(dragonfly({0, 1, 1, 2, {}})), Catch::Contains("routers per group"));
  CHECK_THAT(error_of(dragonfly({4, 1, 1, 0, {}})), Catch::Contains("groups"));
  CHECK_THAT(error_of(dragonfly({1, 1, 1, 5, {}})), Catch::Contains("a*h >= 2"));
  CHECK_THAT(error_of(dragonfly({4, 1, 0, 2, {}})), Catch::Contains("a*h >= 1"));
  CHECK_THAT(error_of(dragonfly({100, 100, 100, 2, {}})), Catch::Contains("254"));
}
