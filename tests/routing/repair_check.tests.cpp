// The check after a route repair follows only the walks through what
// changed; these tests break a repair's tables in the ways that would
// strand a pair and require the check to see it, as the full pair check does.
#include "routing/repair_check.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "routing/graph.h"
#include "routing/route_check.h"
#include "routing/route_repair.h"
#include "routing_fixtures.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

// A fat tree routed by min-hop, one cable pulled and the tables repaired.
struct Pulled {
  Fabric before;
  Fabric now;
  SharedLfts given;     // min-hop's tables for `before`
  SharedLfts repaired;  // mended for `now`
  Link cable;
  std::vector<uint16_t> changed_lids;
};

Pulled pulled_fat_tree(uint8_t lmc = 0) {
  Pulled p;
  p.before = must(topogen::kary_ntree({.k = 4, .n = 3}));
  assign_lids(p.before, lmc);
  p.given = testing::route_minhop(must(RoutingGraph::build(p.before))).lfts;
  p.now = p.before;
  p.cable = must(topogen::fail_links(p.now, {.count = 1, .seed = 3}))[0];
  auto mended = repair_shortest_path_tables(must(RoutingGraph::build(p.before)), must(RoutingGraph::build(p.now)),
                                            p.given);
  REQUIRE(mended.has_value());
  p.repaired = std::move(mended->lfts);
  p.changed_lids = mended->changed_lids;
  REQUIRE_FALSE(p.changed_lids.empty());
  return p;
}

RepairCheck must_check(const Pulled& p) {
  auto c = check_repaired_routes(p.before, p.now, p.given, p.repaired);
  REQUIRE(c.has_value());
  return *c;
}

// A switch whose entry for some end-port LID the repair changed, and that LID.
std::pair<size_t, uint16_t> a_changed_entry(const Pulled& p) {
  for (size_t n = 0; n < p.repaired.size(); ++n) {
    if (p.repaired[n].empty()) continue;
    for (uint16_t lid : p.changed_lids) {
      const bool end_port_lid = [&] {
        for (const Node& node : p.now.nodes()) {
          if (node.is_switch()) continue;
          if (node.port(1).base_lid.value == lid) return true;
        }
        return false;
      }();
      if (end_port_lid && p.repaired[n][lid] != p.given[n][lid]) return {n, lid};
    }
  }
  FAIL("no changed entry toward an end port");
  return {};
}

TEST_CASE("after a good repair every walk through a change is delivered", "[routing][repair][check]") {
  for (uint8_t lmc : {0, 2}) {
    DYNAMIC_SECTION("lmc " << int{lmc}) {
      const Pulled p = pulled_fat_tree(lmc);
      const RepairCheck c = must_check(p);
      INFO(c.to_string());
      CHECK(c.all_delivered());
      CHECK(c.walks > 0);
      CHECK(c.changed_entries > 0);
      CHECK(c.changed_ports == 2);  // the pulled cable's two ends
      // The full pair check agrees.
      CHECK(check_all_pairs(p.now, p.repaired).all_delivered());
    }
  }
}

TEST_CASE("a changed entry that loops or drops is found", "[routing][repair][check]") {
  Pulled p = pulled_fat_tree();
  const auto [sw, lid] = a_changed_entry(p);
  SECTION("dropped") {
    p.repaired.edit(sw)[lid] = kNoRoute;
    const RepairCheck c = must_check(p);
    CHECK_FALSE(c.all_delivered());
    CHECK(c.unreachable > 0);
    REQUIRE_FALSE(c.problems.empty());
    CHECK_THAT(c.problems.front(), Catch::Contains(fmt::format("lid {}", lid)));
  }
  SECTION("sent back and forth") {
    // To a neighbour switch, which sends it back.
    const NodeIndex at{static_cast<uint32_t>(sw)};
    bool looped = false;
    for (uint8_t port = 1; port <= p.now.node(at).num_ports && !looped; ++port) {
      const Port& far = p.now.node(at).port(port);
      if (!cable_usable(p.now, {at, port}) || !p.now.node(far.remote_node).is_switch()) continue;
      p.repaired.edit(sw)[lid] = port;
      p.repaired.edit(far.remote_node.value)[lid] = far.remote_port;
      looped = true;
    }
    REQUIRE(looped);
    const RepairCheck c = must_check(p);
    CHECK(c.looping > 0);
    CHECK_FALSE(c.all_delivered());
  }
  // The full pair check sees the same tables fail.
  CHECK_FALSE(check_all_pairs(p.now, p.repaired).all_delivered());
}

TEST_CASE("an entry the repair left pointing at the pulled cable is found", "[routing][repair][check]") {
  Pulled p = pulled_fat_tree();
  // Undo the repair at one end of the cable for every LID it sent over it:
  // those entries are as given, so only the changed cable leads to them.
  const PortRef end = p.cable.a;
  const LftRow& was = p.given[end.node.value];
  bool undone = false;
  for (size_t lid = 0; lid < was.size(); ++lid) {
    if (was[lid] != end.port) continue;
    p.repaired.edit(end.node.value)[lid] = end.port;
    undone = true;
  }
  REQUIRE(undone);
  const RepairCheck c = must_check(p);
  CHECK(c.unreachable > 0);
  CHECK_FALSE(c.all_delivered());
  CHECK_FALSE(check_all_pairs(p.now, p.repaired).all_delivered());
}

TEST_CASE("a changed entry is followed to the end, past entries no route used before", "[routing][repair][check]") {
  Pulled p = pulled_fat_tree();
  const auto [sw, lid] = a_changed_entry(p);
  // The switch the changed entry leads to gets a bad entry in its given row
  // and its repaired row alike: not a change, but on the changed walk.
  const Port& out = p.now.node(NodeIndex{static_cast<uint32_t>(sw)}).port(p.repaired[sw][lid]);
  REQUIRE(p.now.node(out.remote_node).is_switch());
  p.given.edit(out.remote_node.value)[lid] = kNoRoute;
  p.repaired.edit(out.remote_node.value)[lid] = kNoRoute;
  const RepairCheck c = must_check(p);
  CHECK(c.unreachable > 0);
}

TEST_CASE("the walks do not stand for the pairs when an end port changed", "[routing][repair][check]") {
  Pulled p = pulled_fat_tree();
  SECTION("a lid") {
    for (uint32_t i = 0; i < p.now.node_count(); ++i) {
      Node& node = p.now.node(NodeIndex{i});
      if (node.is_switch()) continue;
      node.port(1).base_lid = Lid{static_cast<uint16_t>(node.port(1).base_lid.value + 1000)};
      break;
    }
  }
  SECTION("a host's cable") {
    for (uint32_t i = 0; i < p.now.node_count(); ++i) {
      if (p.now.node(NodeIndex{i}).is_switch()) continue;
      p.now.disconnect({NodeIndex{i}, 1});
      break;
    }
  }
  CHECK_FALSE(check_repaired_routes(p.before, p.now, p.given, p.repaired).has_value());
}

}  // namespace
}  // namespace ibsm::routing
