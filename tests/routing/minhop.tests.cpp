#include "routing/minhop.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/balanced_routes.h"
#include "routing/graph.h"
#include "routing/shortest_paths.h"
#include "routing/trace.h"
#include "routing_fixtures.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

struct Fixture {
  std::string name;
  std::function<Result<Fabric>()> make;
};

std::vector<Fixture> fixtures() {
  using namespace topogen;
  return {
      {"leaf-spine 4x2", [] { return leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 4}); }},
      {"leaf-spine parallel cables",
       [] { return leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3, .links_per_pair = 2}); }},
      {"4-ary 3-tree", [] { return kary_ntree({.k = 4, .n = 3}); }},
      {"slimmed xgft", [] { return xgft({.down = {4, 4, 2}, .up = {1, 2, 2}}); }},
      {"2-port hosts xgft", [] { return xgft({.down = {3, 3}, .up = {2, 2}}); }},
      {"4x4 torus", [] { return mesh({.dims = {4, 4}, .torus = true}); }},
      {"3x3 mesh", [] { return mesh({.dims = {3, 3}, .torus = false, .hosts_per_switch = 2}); }},
      {"3x3x2 torus", [] { return mesh({.dims = {3, 3, 2}, .torus = true}); }},
      {"ring of 2 (parallel)", [] { return mesh({.dims = {2}, .torus = true, .hosts_per_switch = 2}); }},
      {"hypercube 4", [] { return hypercube({.dimension = 4}); }},
      {"dragonfly", [] { return dragonfly({.a = 4, .p = 2, .h = 2, .g = 9}); }},
      {"random regular", [] { return random_regular({.switches = 16, .degree = 4, .seed = 1}); }},
      {"random regular 2", [] { return random_regular({.switches = 20, .degree = 3, .hosts_per_switch = 2, .seed = 7}); }},
      {"back to back", [] { return back_to_back({}); }},
  };
}

void check_minhop_routes(Fabric& f, uint8_t lmc) {
  assign_lids(f, lmc);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables tables = testing::route_minhop(graph);
  const testing::PairReport r = testing::trace_all_pairs(f, tables);
  INFO(r.first_wrong);
  CHECK(r.pairs > 0);
  CHECK(r.wrong == 0);
  CHECK(r.delivered == r.reachable);

  // The checker agrees with the tracer: nothing loops, the reachable pairs arrive.
  const CheckSummary s = check_all_pairs(f, tables.lfts);
  INFO(s.to_string());
  CHECK(s.pairs == r.pairs);
  CHECK(s.looping == 0);
  CHECK(s.delivered == r.reachable);
}

TEST_CASE("minhop delivers every pair on a shortest path on generated fabrics", "[routing][minhop]") {
  for (const Fixture& fx : fixtures()) {
    DYNAMIC_SECTION(fx.name) {
      Fabric f = must(fx.make());
      check_minhop_routes(f, 0);
    }
  }
}

TEST_CASE("minhop routes around failed cables", "[routing][minhop]") {
  for (const Fixture& fx : fixtures()) {
    if (fx.name == "back to back") continue;
    for (uint64_t count : {1, 3, 6}) {
      DYNAMIC_SECTION(fx.name << ", " << count << " failed cables") {
        Fabric f = must(fx.make());
        if (count > testing::switch_cables(f)) continue;  // the fixture has fewer switch cables than that
        REQUIRE(topogen::fail_links(f, {.count = count, .seed = 3 + count}).ok());
        check_minhop_routes(f, 0);
      }
    }
  }
  SECTION("a failed host cable leaves the rest routed") {
    Fabric f = must(topogen::kary_ntree({.k = 4, .n = 2}));
    must(topogen::fail_links(f, {.count = 3, .seed = 5, .include_ca_links = true}).status());
    check_minhop_routes(f, 0);
  }
}

TEST_CASE("minhop with lmc routes every lid of every port", "[routing][minhop][lmc]") {
  for (uint8_t lmc : {1, 2}) {
    for (const Fixture& fx : fixtures()) {
      DYNAMIC_SECTION(fx.name << ", lmc " << int{lmc}) {
        Fabric f = must(fx.make());
        check_minhop_routes(f, lmc);
      }
    }
  }
}

// Routes (delivered endpoint pairs) per direction of every switch-to-switch
// cable, grouped by the levels it joins ("leaf->agg"), as min and max.
std::map<std::string, std::pair<uint64_t, uint64_t>> link_loads_by_level(const Fabric& f, const UnicastTables& t) {
  std::map<std::pair<uint32_t, uint8_t>, uint64_t> load;
  const RouteTracer tracer(f, t.lfts);
  const std::vector<PortRef> ends = testing::endpoint_ports(f);
  for (const PortRef& src : ends) {
    for (const PortRef& dst : ends) {
      if (src == dst) continue;
      const Trace trace = tracer.trace(src, f.node(dst.node).port(dst.port).base_lid);
      REQUIRE(trace.outcome == TraceOutcome::delivered);
      for (size_t h = 0; h + 1 < trace.hops.size(); ++h) ++load[{trace.hops[h].node.value, trace.hops[h].out_port}];
    }
  }
  const auto level = [&](NodeIndex n) {
    const std::string& name = f.node(n).name;
    return name.substr(0, name.find('-'));
  };
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    const Node& node = f.node(NodeIndex{n});
    if (!node.is_switch()) continue;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(static_cast<uint8_t>(p));
      if (!port.connected() || !f.node(port.remote_node).is_switch()) continue;
      const auto it = load.find({n, static_cast<uint8_t>(p)});
      const uint64_t routes = it == load.end() ? 0 : it->second;
      const std::string key = level(NodeIndex{n}) + "->" + level(port.remote_node);
      auto [slot, fresh] = out.try_emplace(key, routes, routes);
      slot->second.first = std::min(slot->second.first, routes);
      slot->second.second = std::max(slot->second.second, routes);
    }
  }
  return out;
}

TEST_CASE("minhop spreads routes evenly over the links of fat trees", "[routing][minhop][balance]") {
  struct Case {
    std::string name;
    std::function<Result<Fabric>()> make;
    size_t levels;  // switch levels
  };
  const std::vector<Case> cases = {
      {"4-ary 3-tree", [] { return topogen::kary_ntree({.k = 4, .n = 3}); }, 3},
      {"6-ary 3-tree", [] { return topogen::kary_ntree({.k = 6, .n = 3}); }, 3},
      {"8-ary 2-tree", [] { return topogen::kary_ntree({.k = 8, .n = 2}); }, 2},
      {"slimmed xgft", [] { return topogen::xgft({.down = {8, 6, 4}, .up = {1, 4, 6}}); }, 3},
      {"leaf-spine with parallel cables",
       [] { return topogen::leaf_spine({.leaves = 8, .spines = 4, .hosts_per_leaf = 8, .links_per_pair = 2}); }, 2},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = must(c.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      const UnicastTables tables = testing::route_minhop(graph);
      const auto loads = link_loads_by_level(f, tables);
      // Up and down between every two adjacent levels.
      CHECK(loads.size() == 2 * (c.levels - 1));
      for (const auto& [levels, range] : loads) {
        INFO(levels << ": " << range.first << ".." << range.second << " routes per link");
        CHECK(range.first > 0);
        CHECK(range.second - range.first <= 2);
      }
    }
  }
}

// The ports of `sw` that lie on a shortest path to switch `to`, and the
// switches they lead to, by the oracle.
struct Candidates {
  std::set<uint8_t> ports;
  std::set<uint32_t> next;
};
Candidates candidates(const Fabric& f, const testing::Oracle& oracle, NodeIndex sw, NodeIndex to) {
  Candidates c;
  const Node& node = f.node(sw);
  const uint32_t d = oracle.switch_distance(sw, to);
  for (unsigned p = 1; p <= node.num_ports; ++p) {
    if (!testing::cable_up(f, sw, p)) continue;
    const NodeIndex next = node.port(static_cast<uint8_t>(p)).remote_node;
    if (!f.node(next).is_switch() || oracle.switch_distance(next, to) + 1 != d) continue;
    c.ports.insert(static_cast<uint8_t>(p));
    c.next.insert(next.value);
  }
  return c;
}

TEST_CASE("the lids of one port leave a switch on different ports where they can", "[routing][minhop][lmc]") {
  struct Case {
    const char* name;
    std::function<Result<Fabric>()> make;
  };
  const std::vector<Case> cases = {
      {"4-ary 3-tree", [] { return topogen::kary_ntree({.k = 4, .n = 3}); }},
      {"leaf-spine parallel cables",
       [] { return topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2, .links_per_pair = 2}); }},
      {"4x4 torus", [] { return topogen::mesh({.dims = {4, 4}, .torus = true}); }},
      {"hypercube 4", [] { return topogen::hypercube({.dimension = 4}); }},
  };
  for (uint8_t lmc : {1, 2}) {
    for (const Case& c : cases) {
      DYNAMIC_SECTION(c.name << ", lmc " << int{lmc}) {
        Fabric f = must(c.make());
        assign_lids(f, lmc);
        const RoutingGraph graph = must(RoutingGraph::build(f));
        const UnicastTables tables = testing::route_minhop(graph);
        const testing::Oracle oracle(f);
        uint64_t groups = 0, spread = 0;
        for (const Destination& d : graph.destinations()) {
          if (d.port == 0) continue;  // a switch's own lid
          const NodeIndex home = graph.node_of(d.sw);
          for (SwitchId s = 0; s < graph.switch_count(); ++s) {
            const NodeIndex sw = graph.node_of(s);
            if (sw == home) continue;
            const Candidates cand = candidates(f, oracle, sw, home);
            std::set<uint8_t> ports;
            std::set<uint32_t> next;
            for (uint32_t i = 0; i < d.lid_count(); ++i) {
              const uint8_t p = tables.lfts[sw.value][d.base.value + i];
              REQUIRE(cand.ports.count(p) == 1);
              ports.insert(p);
              next.insert(f.node(sw).port(p).remote_node.value);
            }
            INFO(f.node(sw).name << " toward lid " << d.base.value << " on " << f.node(home).name);
            CHECK(ports.size() == std::min<size_t>(d.lid_count(), cand.ports.size()));
            CHECK(next.size() == std::min<size_t>(d.lid_count(), cand.next.size()));
            ++groups;
            spread += ports.size() > 1;
          }
        }
        CHECK(groups > 0);
        CHECK(spread > 0);  // these fabrics all have parallel paths somewhere
      }
    }
  }
}

TEST_CASE("with lmc 2 on a 4-ary 3-tree the four paths between hosts in different pods share no switch cable",
          "[routing][minhop][lmc]") {
  Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
  assign_lids(f, 2);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables tables = testing::route_minhop(graph);
  // Up to the top and down again: 6 cables; every host to the hosts of the other three pods.
  CHECK(testing::check_far_paths_disjoint(f, tables, 6, 4) == 64 * 48);
}

TEST_CASE("minhop never forwards onto a cable whose port is down", "[routing][minhop]") {
  Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
  assign_lids(f);
  // Take cables down without unplugging them: the port states say DOWN on
  // one end (the peer may still show INIT for a while), or on both.
  std::vector<PortRef> downed;
  int taken = 0;
  for (const Link& link : f.links()) {
    if (!f.node(link.a.node).is_switch() || !f.node(link.b.node).is_switch()) continue;
    if (taken++ % 7 != 0) continue;
    f.node(link.a.node).port(link.a.port).state = PortState::down;
    if (taken % 2 == 0) f.node(link.b.node).port(link.b.port).state = PortState::down;
    downed.push_back(link.a);
    downed.push_back(link.b);
  }
  REQUIRE(downed.size() >= 10);
  // The others in every state the sweep may route in.
  int mix = 0;
  for (const Link& link : f.links()) {
    Port& p = f.node(link.a.node).port(link.a.port);
    if (p.state != PortState::down) p.state = (mix++ % 3 == 0) ? PortState::armed : PortState::active;
  }

  const RoutingGraph graph = must(RoutingGraph::build(f));
  CHECK(graph.edge_count() == 2 * (f.links().size() - 64 - downed.size() / 2));
  const UnicastTables tables = testing::route_minhop(graph);
  for (const PortRef& end : downed) {
    const std::vector<uint8_t>& lft = tables.lfts[end.node.value];
    INFO(f.node(end.node).name << " port " << int{end.port});
    CHECK(std::count(lft.begin(), lft.end(), end.port) == 0);
  }
  const testing::PairReport r = testing::trace_all_pairs(f, tables);
  INFO(r.first_wrong);
  CHECK(r.wrong == 0);
  CHECK(r.delivered == r.pairs);
}

TEST_CASE("a switch reaches every switch lid and its own lid through port 0", "[routing][minhop]") {
  Fabric f = must(topogen::dragonfly({.a = 3, .p = 1, .h = 1, .g = 4}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables tables = testing::route_minhop(graph);
  const RouteTracer tracer(f, tables.lfts);
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    const NodeIndex sw = graph.node_of(s);
    const Lid own = f.node(sw).port(0).base_lid;
    CHECK(tables.port(sw, own) == 0);
    for (SwitchId t = 0; t < graph.switch_count(); ++t) {
      const NodeIndex to = graph.node_of(t);
      const Trace trace = tracer.trace(PortRef{sw, 0}, f.node(to).port(0).base_lid);
      INFO(f.node(sw).name << " -> " << f.node(to).name << ": " << trace.reason);
      REQUIRE(trace.outcome == TraceOutcome::delivered);
      CHECK(trace.destination == PortRef{to, 0});
    }
  }
}

TEST_CASE("minhop is deterministic", "[routing][minhop]") {
  Fabric f = must(topogen::random_regular({.switches = 24, .degree = 4, .hosts_per_switch = 2, .seed = 11}));
  assign_lids(f, 1);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  CHECK(testing::route_minhop(graph).lfts == testing::route_minhop(graph).lfts);
}

// The busiest switch cable on irregular fabrics, bounded by what OpenSM's
// min-hop reaches on the same fabrics (measured with bench's cmp under
// ibsim: 644, 3880, 204 and 114). The first round alone, which routes each
// destination knowing only the routes before it, exceeds every one of these
// (732, 4744, 244, 124); the rip-up and reroute round brings them under.
TEST_CASE("minhop's busiest switch cable on irregular fabrics is no busier than OpenSM's",
          "[routing][minhop][balance]") {
  struct Case {
    std::string name;
    std::function<Result<Fabric>()> make;
    uint64_t opensm_max;  // OpenSM minhop's max link routes on this fabric
  };
  const std::vector<Case> cases = {
      {"random 64x6, 4 hosts, seed 5",
       [] { return topogen::random_regular({.switches = 64, .degree = 6, .hosts_per_switch = 4, .seed = 5}); }, 644},
      {"random 128x8, 8 hosts, seed 1",
       [] { return topogen::random_regular({.switches = 128, .degree = 8, .hosts_per_switch = 8, .seed = 1}); },
       3880},
      {"4x4x4 torus, 2 hosts",
       [] { return topogen::mesh({.dims = {4, 4, 4}, .torus = true, .hosts_per_switch = 2}); }, 204},
      {"dragonfly a4 p2 h2 g9", [] { return topogen::dragonfly({.a = 4, .p = 2, .h = 2, .g = 9}); }, 114},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = must(c.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      const CheckSummary s = check_all_pairs(f, testing::route_minhop(graph).lfts);
      INFO(s.to_string());
      CHECK(s.all_delivered());
      CHECK(s.longer_than_shortest == 0);
      CHECK(s.max_link_routes <= c.opensm_max);
    }
  }
}

// The second round stops after 64 destination switches with endpoints that
// moved no link's load (an oversubscribed XGFT: leaves of 3 hosts and 2
// uplinks, too symmetric for the bound, where every leaf makes the same
// choices in both rounds), and runs to the end where they did move some.
TEST_CASE("the second balancing round stops where its first destinations moved no load",
          "[routing][minhop][balance]") {
  struct Case {
    std::string name;
    std::function<Result<Fabric>()> make;
    bool stops;
  };
  const std::vector<Case> cases = {
      {"oversubscribed xgft(3; 3,4,24; 1,2,2)", [] { return topogen::xgft({.down = {3, 4, 24}, .up = {1, 2, 2}}); },
       true},
      {"random 128x8, 8 hosts, seed 1",
       [] { return topogen::random_regular({.switches = 128, .degree = 8, .hosts_per_switch = 8, .seed = 1}); },
       false},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = must(c.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      UnicastTables tables = UnicastTables::unrouted(graph);
      ShortestPathBatch paths(graph);
      const PathSearch search{{&paths, nullptr}, [&](uint32_t, SwitchId first, uint32_t count) {
                                paths.search(first, count);
                                return Status{};
                              }};
      const BalanceRounds rounds = must(route_balanced(graph, search, tables));
      INFO(rounds.summary());
      CHECK(rounds.second_round);
      CHECK(rounds.destinations > 64);
      CHECK(rounds.rerouted == (c.stops ? 64 : rounds.destinations));
      must(validate_tables(graph, tables));
      const CheckSummary s = check_all_pairs(f, tables.lfts);
      CHECK(s.all_delivered());
      CHECK(s.longer_than_shortest == 0);
    }
  }
}

// With a runner, min-hop searches the paths of its next 64 destination
// switches beside the routing of the current ones, into a second batch;
// the tables are those it routes in place, whichever way the runner runs
// the search. Fabrics of 3 to 4 batches: an irregular one whose second
// balancing round runs to the end, and the XGFT whose second round stops
// at its 64th destination with a search under way.
TEST_CASE("min-hop with its searches run aside routes as in place", "[routing][minhop][aside]") {
  struct Case {
    std::string name;
    std::function<Result<Fabric>()> make;
  };
  const std::vector<Case> cases = {
      {"random 150x4, seed 3",
       [] { return topogen::random_regular({.switches = 150, .degree = 4, .hosts_per_switch = 2, .seed = 3}); }},
      {"oversubscribed xgft(3; 3,4,24; 1,2,2)", [] { return topogen::xgft({.down = {3, 4, 24}, .up = {1, 2, 2}}); }},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = must(c.make());
      assign_lids(f, 1);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      REQUIRE(graph.switch_count() > 2 * PathBatch::kWidth);
      const UnicastTables in_place = testing::route_minhop(graph);
      for (const auto& [runner_name, runner] :
           {std::pair{"at once", testing::at_once_runner()}, std::pair{"when waited", testing::when_waited_runner()}}) {
        INFO(runner_name);
        MinHopEngine engine;
        const UnicastTables aside = must(engine.compute(RoutingInput{.graph = graph, .aside = runner}));
        CHECK(aside.lfts == in_place.lfts);
      }
    }
  }
}

}  // namespace
}  // namespace ibsm::routing
