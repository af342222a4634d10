#include "routing/ftree.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/chain.h"
#if __has_include("routing/cdg.h")
#include "routing/cdg.h"
#define IBSM_HAVE_CDG 1
#endif
#include "routing/graph.h"
#include "routing/registry.h"
#include "routing/trace.h"
#include "routing_fixtures.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::cable_up;
using testing::must;

constexpr uint32_t kNoLevel = testing::kFar;

// The test's own view of the tree, from the Fabric (not from RoutingGraph or
// the engine): by NodeIndex, the level of every switch (0: it has a CA),
// kNoLevel for CAs and switches no leaf reaches.
std::vector<uint32_t> tree_levels(const Fabric& f) {
  std::vector<uint32_t> leaves;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    const Node& node = f.node(NodeIndex{n});
    if (!node.is_switch()) continue;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (cable_up(f, NodeIndex{n}, p) && !f.node(node.port(static_cast<uint8_t>(p)).remote_node).is_switch()) {
        leaves.push_back(n);
        break;
      }
    }
  }
  return testing::switch_distances(f, leaves);
}

// The switch (node) at the other end of switch port (n, p), if it is a switch behind a usable cable.
std::optional<uint32_t> peer_switch(const Fabric& f, uint32_t n, unsigned p) {
  if (p == 0 || p > f.node(NodeIndex{n}).num_ports || !cable_up(f, NodeIndex{n}, p)) return std::nullopt;
  const NodeIndex next = f.node(NodeIndex{n}).port(static_cast<uint8_t>(p)).remote_node;
  if (!f.node(next).is_switch()) return std::nullopt;
  return next.value;
}

// By NodeIndex: the switches a switch reaches going up only (itself included).
std::vector<std::set<uint32_t>> up_closures(const Fabric& f, const std::vector<uint32_t>& level) {
  std::vector<std::set<uint32_t>> up(f.node_count());
  std::vector<uint32_t> order;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    if (level[n] != kNoLevel) order.push_back(n);
  }
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return level[a] > level[b]; });
  for (const uint32_t n : order) {
    up[n].insert(n);
    for (unsigned p = 1; p <= f.node(NodeIndex{n}).num_ports; ++p) {
      const auto peer = peer_switch(f, n, p);
      if (peer && level[*peer] == level[n] + 1) up[n].insert(up[*peer].begin(), up[*peer].end());
    }
  }
  return up;
}

bool meet(const std::set<uint32_t>& a, const std::set<uint32_t>& b) {
  return std::any_of(a.begin(), a.end(), [&](uint32_t x) { return b.count(x) != 0; });
}

// The switch a CA port hangs off.
uint32_t leaf_of(const Fabric& f, PortRef ca) { return f.node(ca.node).port(ca.port).remote_node.value; }

UnicastTables route_ftree(const RoutingGraph& graph) {
  FatTreeEngine engine;
  UnicastTables tables = must(engine.compute(RoutingInput{graph}));
  must(validate_tables(graph, tables));
  return tables;
}

struct Shape {
  std::string name;
  std::function<Result<Fabric>()> make;
};

std::vector<Shape> tree_shapes() {
  using namespace topogen;
  return {
      {"2-ary 2-tree", [] { return kary_ntree({.k = 2, .n = 2}); }},
      {"4-ary 2-tree", [] { return kary_ntree({.k = 4, .n = 2}); }},
      {"2-ary 3-tree", [] { return kary_ntree({.k = 2, .n = 3}); }},
      {"4-ary 3-tree", [] { return kary_ntree({.k = 4, .n = 3}); }},
      {"3-ary 4-tree", [] { return kary_ntree({.k = 3, .n = 4}); }},
      {"xgft(3; 3,2,2; 1,2,3)", [] { return xgft({.down = {3, 2, 2}, .up = {1, 2, 3}}); }},
      {"slimmed xgft(3; 4,4,2; 1,2,2)", [] { return xgft({.down = {4, 4, 2}, .up = {1, 2, 2}}); }},
      {"slimmed xgft(3; 8,6,4; 1,4,6)", [] { return xgft({.down = {8, 6, 4}, .up = {1, 4, 6}}); }},
      {"xgft with 2-port hosts", [] { return xgft({.down = {3, 3}, .up = {2, 2}}); }},
      {"leaf-spine 4x2", [] { return leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 4}); }},
      {"leaf-spine with parallel cables",
       [] { return leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3, .links_per_pair = 2}); }},
  };
}

// Every CA port to every LID of every other CA port: delivered to the right
// port exactly when the oracle finds any path, over switches whose levels go
// up, then down, one level per cable.
struct Delivery {
  uint64_t pairs = 0, reachable = 0, delivered = 0, wrong = 0, not_up_down = 0;
  std::string first_problem;
};

Delivery check_delivery(const Fabric& f, const UnicastTables& tables) {
  Delivery r;
  const std::vector<uint32_t> level = tree_levels(f);
  const testing::Oracle oracle(f);
  const RouteTracer tracer(f, tables.lfts);
  const std::vector<PortRef> ends = testing::endpoint_ports(f);
  for (const PortRef& src : ends) {
    for (const PortRef& dst : ends) {
      if (src == dst) continue;
      const Port& dp = f.node(dst.node).port(dst.port);
      const bool reachable = oracle.cables(src, dst) != testing::kFar;
      for (uint32_t i = 0; i < (1u << dp.lmc); ++i) {
        const Lid dlid{static_cast<uint16_t>(dp.base_lid.value + i)};
        ++r.pairs;
        r.reachable += reachable;
        const Trace t = tracer.trace(src, dlid);
        const bool ok = reachable ? t.outcome == TraceOutcome::delivered && t.destination == dst
                                  : t.outcome == TraceOutcome::unreachable;
        bool up_down = true;
        bool down = false;
        for (size_t h = 1; h < t.hops.size(); ++h) {
          const uint32_t a = level[t.hops[h - 1].node.value], b = level[t.hops[h].node.value];
          if (b == a + 1 && !down) continue;
          if (b + 1 == a) {
            down = true;
            continue;
          }
          up_down = false;
        }
        r.delivered += ok && reachable;
        r.not_up_down += !up_down;
        if ((!ok || !up_down) && r.wrong++ == 0) {
          r.first_problem = fmt::format("{} port {} -> lid {}: {} after {} cables{} {}", f.node(src.node).name,
                                        src.port, dlid, trace_outcome_name(t.outcome), t.cables,
                                        up_down ? "" : " (not up, then down)", t.reason);
        }
      }
    }
  }
  return r;
}

// Whether every two leaves joined by any path have an up/down path (which
// ftree needs for the CAs on them), by the test's own levels.
bool up_down_complete(const Fabric& f) {
  const std::vector<uint32_t> level = tree_levels(f);
  const auto up = up_closures(f, level);
  const testing::Oracle oracle(f);
  for (uint32_t a = 0; a < f.node_count(); ++a) {
    if (level[a] != 0) continue;
    for (uint32_t b = 0; b < f.node_count(); ++b) {
      if (level[b] != 0 || oracle.switch_distance(NodeIndex{a}, NodeIndex{b}) == testing::kFar) continue;
      if (!meet(up[a], up[b])) return false;
    }
  }
  return true;
}

TEST_CASE("ftree ranks fat trees from their leaves", "[routing][ftree]") {
  Fabric f = must(topogen::xgft({.down = {4, 4, 2}, .up = {1, 2, 2}}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const FatTreeLevels levels = must(rank_fat_tree(graph));
  CHECK(levels.levels == 3);
  CHECK(levels.leaves == 8);
  for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
    const std::string& name = f.node(graph.node_of(sw)).name;
    const uint32_t expected = name.rfind("leaf", 0) == 0 ? 0 : name.rfind("agg", 0) == 0 ? 1 : 2;
    INFO(name);
    CHECK(levels.level[sw] == expected);
  }
}

TEST_CASE("ftree delivers every pair on a shortest up/down path on fat trees", "[routing][ftree]") {
  for (const Shape& s : tree_shapes()) {
    DYNAMIC_SECTION(s.name) {
      Fabric f = must(s.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      const UnicastTables tables = route_ftree(graph);
      // Shortest paths (the oracle's) to the right port, for every reachable pair.
      const testing::PairReport shortest = testing::trace_all_pairs(f, tables);
      INFO(shortest.first_wrong);
      CHECK(shortest.pairs > 0);
      CHECK(shortest.wrong == 0);
      const Delivery d = check_delivery(f, tables);
      INFO(d.first_problem);
      CHECK(d.wrong == 0);
      CHECK(d.delivered == d.reachable);
      const CheckSummary summary = check_all_pairs(f, tables.lfts);
      INFO(summary.to_string());
      CHECK(summary.looping == 0);
      CHECK(summary.delivered == d.reachable);
    }
  }
}

TEST_CASE("ftree gives every switch a loop-free route to every lid", "[routing][ftree]") {
  for (const Shape& s : tree_shapes()) {
    DYNAMIC_SECTION(s.name) {
      Fabric f = must(s.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      const UnicastTables tables = route_ftree(graph);
      const RouteTracer tracer(f, tables.lfts);
      const testing::Oracle oracle(f);
      uint64_t routes = 0, delivered = 0;
      for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
        const NodeIndex node = graph.node_of(sw);
        for (const Destination& d : graph.destinations()) {
          if (oracle.switch_distance(node, graph.node_of(d.sw)) == testing::kFar) continue;  // another plane
          for (uint32_t i = 0; i < d.lid_count(); ++i) {
            const Lid lid{static_cast<uint16_t>(d.base.value + i)};
            ++routes;
            const Trace t = tracer.trace(PortRef{node, 0}, lid);
            const bool ok = t.outcome == TraceOutcome::delivered && t.destination == d.owner;
            delivered += ok;
            if (!ok) FAIL_CHECK(f.node(node).name << " -> lid " << lid.value << ": " << t.reason);
          }
        }
      }
      CHECK(routes > 0);
      CHECK(delivered == routes);
    }
  }
}

// No switch sends a CA's LID up when a switch above it sends that LID down
// to it: a packet never turns from going down to going up, which is what
// keeps the channel dependencies of a fat tree acyclic.
uint64_t down_up_turns(const Fabric& f, const UnicastTables& tables, const std::vector<PortRef>& ends) {
  const std::vector<uint32_t> level = tree_levels(f);
  uint64_t turns = 0;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    if (level[n] == kNoLevel) continue;
    const Node& node = f.node(NodeIndex{n});
    for (const PortRef& ca : ends) {
      const Port& port = f.node(ca.node).port(ca.port);
      for (uint32_t i = 0; i < (1u << port.lmc); ++i) {
        const uint32_t lid = port.base_lid.value + i;
        const auto up = peer_switch(f, n, tables.lfts[n][lid]);
        if (!up || level[*up] != level[n] + 1) continue;  // not climbing here
        for (unsigned p = 1; p <= node.num_ports; ++p) {
          const auto above = peer_switch(f, n, p);
          if (!above || level[*above] != level[n] + 1) continue;
          const uint8_t back = node.port(static_cast<uint8_t>(p)).remote_port;
          turns += tables.lfts[*above][lid] == back;
        }
      }
    }
  }
  return turns;
}

// The switches where some LID's route turns from down to up: the switch
// sends the LID up although a switch above it sends the LID down to it.
std::set<uint32_t> turning_switches(const Fabric& f, const UnicastTables& tables) {
  const std::vector<uint32_t> level = tree_levels(f);
  std::set<uint32_t> out;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    if (level[n] == kNoLevel) continue;
    const Node& node = f.node(NodeIndex{n});
    for (uint32_t lid = 1; lid < tables.lfts[n].size(); ++lid) {
      const auto up = peer_switch(f, n, tables.lfts[n][lid]);
      if (!up || level[*up] != level[n] + 1) continue;
      for (unsigned p = 1; p <= node.num_ports; ++p) {
        const auto above = peer_switch(f, n, p);
        if (above && level[*above] == level[n] + 1 &&
            tables.lfts[*above][lid] == node.port(static_cast<uint8_t>(p)).remote_port) {
          out.insert(n);
        }
      }
    }
  }
  return out;
}

// Whether, in every connected part of the fabric, all of `turns` lie on
// one leaf or above it (the hub ftree turns switches' own packets at, where
// no dependency cycle can close).
bool above_one_leaf(const Fabric& f, const std::set<uint32_t>& turns) {
  const std::vector<uint32_t> level = tree_levels(f);
  const auto up = up_closures(f, level);
  const testing::Oracle oracle(f);
  for (const uint32_t first : turns) {
    std::vector<uint32_t> part;
    for (const uint32_t t : turns) {
      if (oracle.switch_distance(NodeIndex{first}, NodeIndex{t}) != testing::kFar) part.push_back(t);
    }
    bool found = false;
    for (uint32_t n = 0; n < f.node_count() && !found; ++n) {
      if (level[n] != 0) continue;
      found = std::all_of(part.begin(), part.end(), [&](uint32_t t) { return up[n].count(t) != 0; });
    }
    if (!found) return false;
  }
  return true;
}

TEST_CASE("ftree routes to CAs only go up, then down", "[routing][ftree][deadlock]") {
  for (const Shape& s : tree_shapes()) {
    for (uint8_t lmc : {0, 1}) {
      DYNAMIC_SECTION(s.name << ", lmc " << int{lmc}) {
        Fabric f = must(s.make());
        assign_lids(f, lmc);
        const RoutingGraph graph = must(RoutingGraph::build(f));
        const UnicastTables tables = route_ftree(graph);
        CHECK(down_up_turns(f, tables, testing::endpoint_ports(f)) == 0);
        // Switches' own LIDs where no up/down path exists (a top switch and
        // a switch it is not above) turn at one hub leaf or above it.
        CHECK(above_one_leaf(f, turning_switches(f, tables)));
      }
    }
  }
}

#ifdef IBSM_HAVE_CDG
TEST_CASE("ftree's channel dependency graph is acyclic, switches' own packets included", "[routing][ftree][deadlock]") {
  for (const Shape& s : tree_shapes()) {
    for (uint64_t count : {0, 1, 3, 6}) {
      DYNAMIC_SECTION(s.name << ", " << count << " failed cables, lmc " << (count % 2)) {
        Fabric f = must(s.make());
        if (count > testing::switch_cables(f)) continue;  // the fixture has fewer switch cables than that
        if (count > 0) REQUIRE(topogen::fail_links(f, {.count = count, .seed = 11 + count}).ok());
        assign_lids(f, static_cast<uint8_t>(count % 2));
        const RoutingGraph graph = must(RoutingGraph::build(f));
        FatTreeEngine engine;
        auto result = engine.compute(RoutingInput{graph});
        if (!result.ok()) continue;  // see "ftree routes around failed cables"
        const CdgReport report = must(check_channel_dependencies(f, result->lfts));
        INFO(report.to_string());
        CHECK(report.dependencies > 0);
        CHECK(report.acyclic());
      }
    }
  }
}
#endif

TEST_CASE("ftree routes around failed cables", "[routing][ftree][failures]") {
  for (const Shape& s : tree_shapes()) {
    for (uint64_t count : {1, 3, 6}) {
      DYNAMIC_SECTION(s.name << ", " << count << " failed cables") {
        Fabric f = must(s.make());
        if (count > testing::switch_cables(f)) continue;  // the fixture has fewer switch cables than that
        REQUIRE(topogen::fail_links(f, {.count = count, .seed = 11 + count}).ok());
        assign_lids(f);
        const RoutingGraph graph = must(RoutingGraph::build(f));
        FatTreeEngine engine;
        auto result = engine.compute(RoutingInput{graph});
        const bool complete = up_down_complete(f);
        if (!result.ok()) {
          // Refused: only when some leaf really has no up/down path.
          INFO(result.status().to_string());
          CHECK_FALSE(complete);
          CHECK_THAT(result.status().message(), Catch::Contains("goes up, then down"));
          continue;
        }
        CHECK(complete);
        const UnicastTables tables = std::move(result).value();
        must(validate_tables(graph, tables));
        const Delivery d = check_delivery(f, tables);
        INFO(d.first_problem);
        CHECK(d.wrong == 0);
        CHECK(d.not_up_down == 0);
        CHECK(d.delivered == d.reachable);
        CHECK(above_one_leaf(f, turning_switches(f, tables)));
        // Switches' own packets: never a loop.
        const RouteTracer tracer(f, tables.lfts);
        uint64_t loops = 0;
        for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
          for (uint32_t lid = 1; lid <= graph.max_lid(); ++lid) {
            loops += tracer.trace(PortRef{graph.node_of(sw), 0}, Lid{static_cast<uint16_t>(lid)}).outcome ==
                     TraceOutcome::loop;
          }
        }
        CHECK(loops == 0);
      }
    }
  }
}

TEST_CASE("ftree refuses when a leaf has no up/down path", "[routing][ftree][failures]") {
  // Leaf 0 keeps only spine 0, leaf 1 only spine 1: they meet only through
  // another leaf, down then up.
  Fabric f = must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2}));
  const NodeIndex leaf0 = *f.find_by_name("leaf-0");
  const NodeIndex leaf1 = *f.find_by_name("leaf-1");
  const NodeIndex spine1 = *f.find_by_name("spine-1");
  const NodeIndex spine0 = *f.find_by_name("spine-0");
  for (unsigned p = 1; p <= f.node(leaf0).num_ports; ++p) {
    if (f.node(leaf0).port(static_cast<uint8_t>(p)).remote_node == spine1) f.disconnect({leaf0, static_cast<uint8_t>(p)});
  }
  for (unsigned p = 1; p <= f.node(leaf1).num_ports; ++p) {
    if (f.node(leaf1).port(static_cast<uint8_t>(p)).remote_node == spine0) f.disconnect({leaf1, static_cast<uint8_t>(p)});
  }
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  FatTreeEngine engine;
  const auto result = engine.compute(RoutingInput{graph});
  REQUIRE_FALSE(result.ok());
  CHECK(result.status().code() == StatusCode::failed_precondition);
  CHECK_THAT(result.status().message(), Catch::Contains("goes up, then down"));
  CHECK_THAT(result.status().message(), Catch::Contains("the CAs of switch leaf-"));
}

// Per level, the CA LIDs (of one LID rank, or all) each up-link carries in
// the tables, as min and max over the level's up-links; and the widest
// spread between the parallel cables of one switch pair.
struct Balance {
  std::map<uint32_t, std::pair<uint64_t, uint64_t>> up;  // by level
  uint64_t parallel_spread = 0;
};

Balance balance(const Fabric& f, const UnicastTables& tables, std::optional<uint32_t> rank) {
  const std::vector<uint32_t> level = tree_levels(f);
  std::vector<uint32_t> lids;
  for (const PortRef& ca : testing::endpoint_ports(f)) {
    const Port& port = f.node(ca.node).port(ca.port);
    for (uint32_t i = 0; i < (1u << port.lmc); ++i) {
      if (!rank || *rank == i) lids.push_back(port.base_lid.value + i);
    }
  }
  Balance b;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    if (level[n] == kNoLevel) continue;
    const Node& node = f.node(NodeIndex{n});
    std::vector<uint64_t> per_port(node.num_ports + 1, 0);
    for (const uint32_t lid : lids) ++per_port[tables.lfts[n][lid]];
    std::map<uint32_t, std::pair<uint64_t, uint64_t>> per_peer;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      const auto peer = peer_switch(f, n, p);
      if (!peer) continue;
      const uint64_t count = per_port[p];
      auto [pp, fresh_peer] = per_peer.try_emplace(*peer, count, count);
      pp->second = {std::min(pp->second.first, count), std::max(pp->second.second, count)};
      if (level[*peer] != level[n] + 1) continue;
      auto [slot, fresh] = b.up.try_emplace(level[n], count, count);
      slot->second = {std::min(slot->second.first, count), std::max(slot->second.second, count)};
    }
    for (const auto& [peer, range] : per_peer) {
      b.parallel_spread = std::max(b.parallel_spread, range.second - range.first);
    }
  }
  return b;
}

TEST_CASE("ftree leaves no two up-links of a level more than one destination apart", "[routing][ftree][balance]") {
  struct Case {
    std::string name;
    std::function<Result<Fabric>()> make;
    uint32_t levels;
  };
  const std::vector<Case> cases = {
      {"2-ary 3-tree", [] { return topogen::kary_ntree({.k = 2, .n = 3}); }, 3},
      {"4-ary 2-tree", [] { return topogen::kary_ntree({.k = 4, .n = 2}); }, 2},
      {"4-ary 3-tree", [] { return topogen::kary_ntree({.k = 4, .n = 3}); }, 3},
      {"6-ary 3-tree", [] { return topogen::kary_ntree({.k = 6, .n = 3}); }, 3},
      {"3-ary 4-tree", [] { return topogen::kary_ntree({.k = 3, .n = 4}); }, 4},
      {"leaf-spine with parallel cables",
       [] { return topogen::leaf_spine({.leaves = 6, .spines = 3, .hosts_per_leaf = 7, .links_per_pair = 2}); }, 2},
  };
  for (const Case& c : cases) {
    for (uint8_t lmc : {0, 1, 2}) {
      DYNAMIC_SECTION(c.name << ", lmc " << int{lmc}) {
        Fabric f = must(c.make());
        assign_lids(f, lmc);
        const RoutingGraph graph = must(RoutingGraph::build(f));
        const UnicastTables tables = route_ftree(graph);
        // Every LID counts as a destination of its own.
        const Balance b = balance(f, tables, std::nullopt);
        CHECK(b.up.size() == c.levels - 1);  // every level but the top climbs
        for (const auto& [level, range] : b.up) {
          INFO("level " << level << ": " << range.first << ".." << range.second << " destinations per up-link");
          CHECK(range.first > 0);
          CHECK(range.second - range.first <= 1);
        }
        CHECK(b.parallel_spread <= 1);
      }
    }
  }
}

TEST_CASE("ftree spreads the traffic of all pairs evenly on a k-ary n-tree", "[routing][ftree][balance]") {
  // Routes (delivered CA pairs) per direction of every switch-to-switch
  // cable: on a complete k-ary n-tree up/down routing with one down path
  // per destination loads every up-link and every down-link of a level alike.
  Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables tables = route_ftree(graph);
  const std::vector<uint32_t> level = tree_levels(f);
  std::map<std::pair<uint32_t, uint8_t>, uint64_t> load;
  const RouteTracer tracer(f, tables.lfts);
  const std::vector<PortRef> ends = testing::endpoint_ports(f);
  for (const PortRef& src : ends) {
    for (const PortRef& dst : ends) {
      if (src == dst) continue;
      const Trace t = tracer.trace(src, f.node(dst.node).port(dst.port).base_lid);
      REQUIRE(t.outcome == TraceOutcome::delivered);
      for (size_t h = 0; h + 1 < t.hops.size(); ++h) ++load[{t.hops[h].node.value, t.hops[h].out_port}];
    }
  }
  std::map<std::pair<uint32_t, bool>, std::pair<uint64_t, uint64_t>> by_level;  // (level, up) -> min, max
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    if (level[n] == kNoLevel) continue;
    for (unsigned p = 1; p <= f.node(NodeIndex{n}).num_ports; ++p) {
      const auto peer = peer_switch(f, n, p);
      if (!peer) continue;
      const uint64_t routes = load[{n, static_cast<uint8_t>(p)}];
      auto [slot, fresh] = by_level.try_emplace({level[n], level[*peer] > level[n]}, routes, routes);
      slot->second = {std::min(slot->second.first, routes), std::max(slot->second.second, routes)};
    }
  }
  CHECK(by_level.size() == 4);
  for (const auto& [key, range] : by_level) {
    INFO("level " << key.first << (key.second ? " up" : " down") << ": " << range.first << ".." << range.second);
    CHECK(range.first == range.second);
  }
}

// The switches where the routes of one port's LIDs from a source stop
// climbing.
TEST_CASE("with lmc the lids of a port take distinct switches where the tree has them", "[routing][ftree][lmc]") {
  const std::vector<Shape> shapes = {
      {"4-ary 3-tree", [] { return topogen::kary_ntree({.k = 4, .n = 3}); }},
      {"slimmed xgft(3; 4,4,2; 1,2,2)", [] { return topogen::xgft({.down = {4, 4, 2}, .up = {1, 2, 2}}); }},
      {"leaf-spine 4x4", [] { return topogen::leaf_spine({.leaves = 4, .spines = 4, .hosts_per_leaf = 3}); }},
      {"leaf-spine 4x2", [] { return topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 3}); }},
  };
  for (uint8_t lmc : {1, 2}) {
    for (const Shape& s : shapes) {
      DYNAMIC_SECTION(s.name << ", lmc " << int{lmc}) {
        Fabric f = must(s.make());
        assign_lids(f, lmc);
        const RoutingGraph graph = must(RoutingGraph::build(f));
        const UnicastTables tables = route_ftree(graph);
        const std::vector<uint32_t> level = tree_levels(f);
        const auto up = up_closures(f, level);
        uint32_t top_level = 0;
        for (const uint32_t l : level) {
          if (l != kNoLevel) top_level = std::max(top_level, l);
        }
        const RouteTracer tracer(f, tables.lfts);
        const std::vector<PortRef> ends = testing::endpoint_ports(f);
        uint64_t checked = 0, through_tops = 0;
        for (const PortRef& src : ends) {
          for (const PortRef& dst : ends) {
            const uint32_t a = leaf_of(f, src), b = leaf_of(f, dst);
            if (a == b) continue;
            // Where the tree lets them part: the lowest common ancestors of the two leaves.
            uint32_t lowest = kNoLevel;
            for (const uint32_t x : up[a]) {
              if (up[b].count(x)) lowest = std::min(lowest, level[x]);
            }
            size_t room = 0;
            for (const uint32_t x : up[a]) room += up[b].count(x) && level[x] == lowest;
            const Port& dp = f.node(dst.node).port(dst.port);
            std::set<uint32_t> turns;
            for (uint32_t i = 0; i < (1u << lmc); ++i) {
              const Trace t = tracer.trace(src, Lid{static_cast<uint16_t>(dp.base_lid.value + i)});
              REQUIRE(t.outcome == TraceOutcome::delivered);
              uint32_t turn = t.hops.front().node.value;
              for (const TraceHop& hop : t.hops) {
                if (level[hop.node.value] > level[turn]) turn = hop.node.value;
              }
              CHECK(level[turn] == lowest);
              turns.insert(turn);
            }
            INFO(f.node(src.node).name << " -> " << f.node(dst.node).name);
            CHECK(turns.size() == std::min<size_t>(1u << lmc, room));
            ++checked;
            through_tops += lowest == top_level;
          }
        }
        CHECK(checked > 0);
        CHECK(through_tops > 0);
      }
    }
  }
}

// Adds a CA with one port cabled to a free port of `sw`, both ends up.
void attach_ca(Fabric& f, NodeIndex sw, uint8_t port) {
  Node ca;
  ca.type = NodeType::ca;
  ca.num_ports = 1;
  ca.node_guid = Guid{0x0002c90500000001ULL};
  ca.name = "extra-ca";
  const NodeIndex n = must(f.add_node(ca));
  must(f.connect({sw, port}, {n, 1}));
  f.node(sw).port(port).state = PortState::init;
  f.node(n).port(1).state = PortState::init;
}

uint8_t free_port(const Fabric& f, NodeIndex sw) {
  for (unsigned p = 1; p <= f.node(sw).num_ports; ++p) {
    if (!f.node(sw).port(static_cast<uint8_t>(p)).connected()) return static_cast<uint8_t>(p);
  }
  FAIL("no free port on " << f.node(sw).name);
  return 0;
}

TEST_CASE("ftree refuses fabrics that are no fat tree, and says why", "[routing][ftree][refuse]") {
  struct Case {
    std::string name;
    std::function<Fabric()> make;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {"4x4 torus", [] { return must(topogen::mesh({.dims = {4, 4}, .torus = true})); },
       {"not a fat tree", "both have CAs and are cabled to each other"}},
      {"3x3 mesh", [] { return must(topogen::mesh({.dims = {3, 3}, .torus = false, .hosts_per_switch = 2})); },
       {"not a fat tree", "both have CAs"}},
      {"hypercube", [] { return must(topogen::hypercube({.dimension = 4})); }, {"not a fat tree", "both have CAs"}},
      {"no CAs", [] { return must(topogen::mesh({.dims = {3}, .torus = true, .hosts_per_switch = 0})); },
       {"not a fat tree", "no switch has a CA"}},
      {"a cable inside a level",
       [] {
         topogen::XgftParams p = topogen::to_xgft({.k = 4, .n = 3});
         p.radix = 9;
         Fabric f = must(topogen::xgft(p));
         const NodeIndex a = *f.find_by_name("agg-0"), b = *f.find_by_name("agg-5");
         const uint8_t pa = free_port(f, a), pb = free_port(f, b);
         must(f.connect({a, pa}, {b, pb}));
         f.node(a).port(pa).state = PortState::init;
         f.node(b).port(pb).state = PortState::init;
         return f;
       },
       {"not a fat tree", "agg-0", "agg-5", "two switches of level 1", "adjacent levels"}},
      {"a CA on a spine",
       [] {
         Fabric f = must(topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 2, .radix = 8}));
         const NodeIndex spine = *f.find_by_name("spine-1");
         attach_ca(f, spine, free_port(f, spine));
         return f;
       },
       {"not a fat tree", "spine-1", "both have CAs", "leaf switches only"}},
      {"a CA on an aggregation switch",
       [] {
         topogen::XgftParams p = topogen::to_xgft({.k = 2, .n = 3});
         p.radix = 5;
         Fabric f = must(topogen::xgft(p));
         const NodeIndex agg = *f.find_by_name("agg-2");
         attach_ca(f, agg, free_port(f, agg));
         return f;
       },
       {"not a fat tree", "agg-2", "both have CAs"}},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = c.make();
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      FatTreeEngine engine;
      const auto result = engine.compute(RoutingInput{graph});
      REQUIRE_FALSE(result.ok());
      INFO(result.status().message());
      CHECK(result.status().code() == StatusCode::failed_precondition);
      for (const std::string& part : c.says) CHECK_THAT(result.status().message(), Catch::Contains(part));
    }
  }
}

TEST_CASE("the chain moves on from ftree to minhop on a torus and keeps it on a fat tree", "[routing][ftree][chain]") {
  EngineRegistry registry;
  must(register_builtin_engines(registry));
  REQUIRE(registry.contains("ftree"));
  const EngineChain chain = must(parse_engine_chain("ftree", registry));
  SECTION("torus") {
    Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true}));
    assign_lids(f);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    const RoutingOutcome out = must(run_engine_chain(registry, chain, RoutingInput{graph}));
    CHECK(out.engine == "minhop");
    REQUIRE(out.refusals.size() == 1);
    CHECK(out.refusals[0].engine == "ftree");
    CHECK_THAT(out.refusals[0].reason.message(), Catch::Contains("not a fat tree"));
  }
  SECTION("fat tree") {
    Fabric f = must(topogen::kary_ntree({.k = 4, .n = 2}));
    assign_lids(f);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    const RoutingOutcome out = must(run_engine_chain(registry, chain, RoutingInput{graph}));
    CHECK(out.engine == "ftree");
    CHECK(out.refusals.empty());
    CHECK(check_all_pairs(f, out.tables.lfts).all_delivered());
  }
}

TEST_CASE("ftree routes a 45k-endpoint fat tree that fills the lid space", "[routing][ftree][scale]") {
  // As minhop_scale.tests.cpp: 1408 leaves of 32 hosts, 1408 middle and 1024 top switches.
  Fabric f = must(topogen::xgft({.down = {32, 32, 44}, .up = {1, 32, 32}}));
  REQUIRE(f.ca_count() == 45056);
  assign_lids(f);
  using clock = std::chrono::steady_clock;
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const auto t0 = clock::now();
  FatTreeEngine engine;
  const UnicastTables tables = must(engine.compute(RoutingInput{graph}));
  const auto t1 = clock::now();
  CHECK(validate_tables(graph, tables).ok());
  // A fixed sample: every 2048th host to every lid, on shortest paths.
  const CheckSummary s = check_all_pairs(f, tables.lfts, {.source_stride = 2048});
  INFO(s.to_string());
  CHECK(s.pairs == 22 * (45056 - 1));
  CHECK(s.all_delivered());
  CHECK(s.max_hops == 6);
  // Every switch routes every lid.
  uint64_t holes = 0;
  for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
    const std::vector<uint8_t>& lft = tables.lfts[graph.node_of(sw).value];
    holes += std::count(lft.begin() + 1, lft.end(), kNoRoute);
  }
  CHECK(holes == 0);
  // The first leaf's up-links carry the same number of destinations.
  const NodeIndex leaf = *f.find_by_name("leaf-0");
  std::map<uint8_t, uint64_t> per_port;
  for (const PortRef& ca : testing::endpoint_ports(f)) ++per_port[tables.lfts[leaf.value][f.node(ca.node).port(ca.port).base_lid.value]];
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const auto& [port, count] : per_port) {
    if (port <= 32) continue;  // its own hosts
    lo = std::min(lo, count);
    hi = std::max(hi, count);
  }
  CHECK(hi - lo <= 1);
  using ms = std::chrono::duration<double, std::milli>;
  WARN("ftree on 45056 endpoints / 3840 switches: routing " << ms(t1 - t0).count() << " ms; " << s.to_string());
}

}  // namespace
}  // namespace ibsm::routing
