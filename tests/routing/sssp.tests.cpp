#include "routing/sssp.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/graph.h"
#include "routing/minhop.h"
#include "routing/trace.h"
#include "routing_fixtures.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;
using testing::LinkLoads;

struct Fixture {
  std::string name;
  std::function<Result<Fabric>()> make;
};

std::vector<Fixture> fixtures() {
  using namespace topogen;
  return {
      {"4-ary 3-tree", [] { return kary_ntree({.k = 4, .n = 3}); }},
      {"3-ary 3-tree", [] { return kary_ntree({.k = 3, .n = 3}); }},
      {"slimmed xgft", [] { return xgft({.down = {4, 4, 2}, .up = {1, 2, 2}}); }},
      {"slimmed xgft 2", [] { return xgft({.down = {6, 4, 3}, .up = {1, 3, 2}}); }},
      {"2-port hosts xgft", [] { return xgft({.down = {3, 3}, .up = {2, 2}}); }},
      {"leaf-spine 4x2", [] { return leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 4}); }},
      {"leaf-spine parallel cables",
       [] { return leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3, .links_per_pair = 2}); }},
      {"4x4 torus", [] { return mesh({.dims = {4, 4}, .torus = true}); }},
      {"3x3 mesh", [] { return mesh({.dims = {3, 3}, .torus = false, .hosts_per_switch = 2}); }},
      {"3x3x2 torus", [] { return mesh({.dims = {3, 3, 2}, .torus = true}); }},
      {"ring of 2 (parallel)", [] { return mesh({.dims = {2}, .torus = true, .hosts_per_switch = 2}); }},
      {"hypercube 4", [] { return hypercube({.dimension = 4}); }},
      {"dragonfly", [] { return dragonfly({.a = 4, .p = 2, .h = 2, .g = 9}); }},
      {"random regular", [] { return random_regular({.switches = 16, .degree = 4, .seed = 1}); }},
      {"random regular 2",
       [] { return random_regular({.switches = 20, .degree = 3, .hosts_per_switch = 2, .seed = 7}); }},
  };
}

UnicastTables route_sssp(const RoutingGraph& graph) {
  SsspEngine engine;
  UnicastTables tables = must(engine.compute(RoutingInput{graph}));
  must(validate_tables(graph, tables));
  return tables;
}

// Endpoint pairs (all LIDs) that have any path, by the oracle.
uint64_t reachable_pairs(const Fabric& f) {
  const testing::Oracle oracle(f);
  const std::vector<PortRef> ends = testing::endpoint_ports(f);
  uint64_t n = 0;
  for (const PortRef& s : ends) {
    for (const PortRef& d : ends) {
      if (s != d && oracle.cables(s, d) != testing::kFar) n += 1u << f.node(d.node).port(d.port).lmc;
    }
  }
  return n;
}

// Routes `f` and checks what sssp promises everywhere: every pair that has a
// path is delivered to the right port, nothing loops, the others are
// dropped. And every route is a shortest one: on a complete fat tree all
// minimal paths are alike, and elsewhere a hop weighs more than any link's
// load, so only loads far beyond these small fabrics' could make a detour
// cheaper.
UnicastTables check_sssp(const Fabric& f) {
  const RoutingGraph graph = must(RoutingGraph::build(f));
  UnicastTables tables = route_sssp(graph);
  const CheckSummary s = check_all_pairs(f, tables.lfts);
  INFO(s.to_string());
  CHECK(s.pairs > 0);
  CHECK(s.looping == 0);
  CHECK(s.delivered == reachable_pairs(f));
  CHECK(s.delivered + s.unreachable == s.pairs);
  const testing::PairReport r = testing::trace_all_pairs(f, tables);
  INFO(r.first_wrong);
  CHECK(r.wrong == 0);
  CHECK(r.delivered == r.reachable);
  return tables;
}

TEST_CASE("sssp delivers every pair on a shortest path without loops on generated fabrics", "[routing][sssp]") {
  for (const Fixture& fx : fixtures()) {
    DYNAMIC_SECTION(fx.name) {
      Fabric f = must(fx.make());
      assign_lids(f);
      check_sssp(f);
    }
  }
}

TEST_CASE("sssp routes around failed cables", "[routing][sssp]") {
  for (const Fixture& fx : fixtures()) {
    for (uint64_t count : {1, 3, 6}) {
      DYNAMIC_SECTION(fx.name << ", " << count << " failed cables") {
        Fabric f = must(fx.make());
        if (count > testing::switch_cables(f)) continue;  // the fixture has fewer switch cables than that
        REQUIRE(topogen::fail_links(f, {.count = count, .seed = 5 + count}).ok());
        assign_lids(f);
        check_sssp(f);
      }
    }
  }
  SECTION("a failed host cable leaves the rest routed") {
    Fabric f = must(topogen::kary_ntree({.k = 4, .n = 2}));
    must(topogen::fail_links(f, {.count = 3, .seed = 5, .include_ca_links = true}).status());
    assign_lids(f);
    check_sssp(f);
  }
}

TEST_CASE("sssp with lmc routes every lid of every port", "[routing][sssp][lmc]") {
  for (uint8_t lmc : {1, 2}) {
    for (const Fixture& fx : fixtures()) {
      DYNAMIC_SECTION(fx.name << ", lmc " << int{lmc}) {
        Fabric f = must(fx.make());
        if (lmc == 2) must(topogen::fail_links(f, {.count = 2, .seed = 3}).status());
        assign_lids(f, lmc);
        check_sssp(f);
      }
    }
  }
}

TEST_CASE("a fabric split in two routes within its parts and drops the rest", "[routing][sssp]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 2}));
  // Cut leaf-0 off both spines: its hosts can only talk to each other.
  const NodeIndex leaf0 = *f.find_by_name("leaf-0");
  for (unsigned p = 1; p <= f.node(leaf0).num_ports; ++p) {
    const Port& port = f.node(leaf0).port(static_cast<uint8_t>(p));
    if (port.connected() && f.node(port.remote_node).is_switch()) f.disconnect({leaf0, static_cast<uint8_t>(p)});
  }
  assign_lids(f);
  const UnicastTables tables = check_sssp(f);
  // The lone leaf has no route to anything beyond it, and nothing beyond it to the leaf.
  const Lid leaf0_lid = f.node(leaf0).port(0).base_lid;
  const NodeIndex spine0 = *f.find_by_name("spine-0");
  CHECK(tables.port(spine0, leaf0_lid) == kNoRoute);
  CHECK(tables.port(leaf0, f.node(spine0).port(0).base_lid) == kNoRoute);
}

TEST_CASE("sssp refuses a fabric without switches", "[routing][sssp]") {
  Fabric f = must(topogen::back_to_back({}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  SsspEngine engine;
  const auto r = engine.compute(RoutingInput{graph});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::failed_precondition);
  CHECK_THAT(r.status().message(), Catch::Contains("sssp") && Catch::Contains("no switch"));
}

TEST_CASE("sssp routes every switch's own lid from every switch", "[routing][sssp]") {
  Fabric f = must(topogen::dragonfly({.a = 3, .p = 1, .h = 1, .g = 4}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables tables = route_sssp(graph);
  const RouteTracer tracer(f, tables.lfts);
  const testing::Oracle oracle(f);
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    const NodeIndex sw = graph.node_of(s);
    CHECK(tables.port(sw, f.node(sw).port(0).base_lid) == 0);
    for (SwitchId t = 0; t < graph.switch_count(); ++t) {
      const NodeIndex to = graph.node_of(t);
      const Trace trace = tracer.trace(PortRef{sw, 0}, f.node(to).port(0).base_lid);
      INFO(f.node(sw).name << " -> " << f.node(to).name << ": " << trace.reason);
      REQUIRE(trace.outcome == TraceOutcome::delivered);
      CHECK(trace.destination == PortRef{to, 0});
      CHECK(trace.cables == oracle.switch_distance(sw, to));
    }
  }
}

TEST_CASE("with lmc 2 the lids of a port leave the source's leaf on different up-ports", "[routing][sssp][lmc]") {
  struct Case {
    const char* name;
    std::function<Result<Fabric>()> make;
    size_t up_links;  // per leaf
  };
  const std::vector<Case> cases = {
      {"leaf-spine 4 spines", [] { return topogen::leaf_spine({.leaves = 4, .spines = 4, .hosts_per_leaf = 3}); }, 4},
      {"leaf-spine 2 spines x 2 cables",
       [] { return topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3, .links_per_pair = 2}); }, 4},
      {"leaf-spine 6 spines", [] { return topogen::leaf_spine({.leaves = 3, .spines = 6, .hosts_per_leaf = 2}); }, 6},
      {"4-ary 3-tree", [] { return topogen::kary_ntree({.k = 4, .n = 3}); }, 4},
      {"leaf-spine 2 spines", [] { return topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 2}); }, 2},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = must(c.make());
      assign_lids(f, 2);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      const UnicastTables tables = route_sssp(graph);
      const RouteTracer tracer(f, tables.lfts);
      // A leaf is the switch a host hangs off; its up-ports lead to switches
      // that no host hangs off (on a k-ary n-tree the names do not say).
      std::set<uint32_t> leaves;
      for (const PortRef& h : testing::endpoint_ports(f)) leaves.insert(f.node(h.node).port(h.port).remote_node.value);
      uint64_t groups = 0;
      for (const PortRef& src : testing::endpoint_ports(f)) {
        const NodeIndex leaf = f.node(src.node).port(src.port).remote_node;
        for (const PortRef& dst : testing::endpoint_ports(f)) {
          if (f.node(dst.node).port(dst.port).remote_node == leaf) continue;  // same leaf: nothing goes up
          std::set<uint8_t> ups;
          for (uint32_t i = 0; i < 4; ++i) {
            const Trace t = tracer.trace(src, Lid{static_cast<uint16_t>(f.node(dst.node).port(dst.port).base_lid.value + i)});
            REQUIRE(t.outcome == TraceOutcome::delivered);
            REQUIRE(t.hops.size() >= 2);
            const uint8_t up = t.hops[0].out_port;
            REQUIRE(leaves.count(f.node(leaf).port(up).remote_node.value) == 0);
            ups.insert(up);
          }
          INFO(f.node(src.node).name << " -> " << f.node(dst.node).name);
          CHECK(ups.size() == std::min<size_t>(4, c.up_links));
          ++groups;
        }
      }
      CHECK(groups > 0);
    }
  }
}

// LIDs as assign_lids gives them, but switches too get 2^lmc LIDs.
void assign_lids_switches_too(Fabric& f, uint8_t lmc) {
  assign_lids(f, lmc);
  uint32_t next = 0;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    for (const Port& p : f.node(NodeIndex{n}).ports) next = std::max<uint32_t>(next, p.base_lid.value + (1u << p.lmc));
  }
  const uint32_t block = 1u << lmc;
  next = (next + block - 1) / block * block;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    Node& node = f.node(NodeIndex{n});
    if (!node.is_switch()) continue;
    for (Port& p : node.ports) {
      p.base_lid = Lid{static_cast<uint16_t>(next)};
      p.lmc = lmc;
    }
    next += block;
  }
}

// A switch's own LIDs add no load, so only the penalty keeps them apart.
TEST_CASE("with lmc 2 the lids of a switch are reached from another leaf over different spines",
          "[routing][sssp][lmc]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 3, .spines = 4, .hosts_per_leaf = 2}));
  assign_lids_switches_too(f, 2);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables tables = route_sssp(graph);
  CHECK(check_all_pairs(f, tables.lfts).all_delivered());
  const RouteTracer tracer(f, tables.lfts);
  uint64_t groups = 0;
  for (const char* from : {"leaf-0", "leaf-1", "leaf-2"}) {
    for (const char* to : {"leaf-0", "leaf-1", "leaf-2"}) {
      if (std::string(from) == to) continue;
      const NodeIndex a = *f.find_by_name(from), b = *f.find_by_name(to);
      std::set<uint8_t> ups;
      for (uint32_t i = 0; i < 4; ++i) {
        const Trace t = tracer.trace(PortRef{a, 0}, Lid{static_cast<uint16_t>(f.node(b).port(0).base_lid.value + i)});
        REQUIRE(t.outcome == TraceOutcome::delivered);
        CHECK(t.destination == PortRef{b, 0});
        ups.insert(t.hops[0].out_port);
      }
      INFO(from << " -> " << to);
      CHECK(ups.size() == 4);
      ++groups;
    }
  }
  CHECK(groups == 6);
}

TEST_CASE("with lmc 2 on a 4-ary 3-tree the four paths between hosts in different pods share no switch cable",
          "[routing][sssp][lmc]") {
  Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
  assign_lids(f, 2);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables tables = route_sssp(graph);
  // Up to the top and down again: 6 cables; every host to the hosts of the other three pods.
  CHECK(testing::check_far_paths_disjoint(f, tables, 6, 4) == 64 * 48);
}


uint64_t max_load(const LinkLoads& loads) {
  uint64_t most = 0;
  for (const auto& [link, routes] : loads) most = std::max(most, routes);
  return most;
}

uint64_t squared_loads(const LinkLoads& loads) {
  uint64_t sum = 0;
  for (const auto& [link, routes] : loads) sum += routes * routes;
  return sum;
}

// Tables without any balancing, for comparison: every switch forwards every
// LID on its lowest port that lies on a shortest path (by the oracle).
std::vector<std::vector<uint8_t>> lowest_port_tables(const Fabric& f, const RoutingGraph& graph) {
  const testing::Oracle oracle(f);
  std::vector<std::vector<uint8_t>> lfts = UnicastTables::unrouted(graph).lfts;
  for (const Destination& d : graph.destinations()) {
    const NodeIndex home = graph.node_of(d.sw);
    for (SwitchId s = 0; s < graph.switch_count(); ++s) {
      const NodeIndex sw = graph.node_of(s);
      uint8_t out = kNoRoute;
      if (sw == home) {
        out = d.port;
      } else {
        const uint32_t dist = oracle.switch_distance(sw, home);
        for (unsigned p = 1; p <= f.node(sw).num_ports && out == kNoRoute; ++p) {
          if (!testing::cable_up(f, sw, p)) continue;
          const NodeIndex next = f.node(sw).port(static_cast<uint8_t>(p)).remote_node;
          if (f.node(next).is_switch() && oracle.switch_distance(next, home) + 1 == dist) out = static_cast<uint8_t>(p);
        }
      }
      for (uint32_t i = 0; i < d.lid_count(); ++i) lfts[sw.value][d.base.value + i] = out;
    }
  }
  return lfts;
}

TEST_CASE("sssp spreads routes evenly over the links of every level of fat trees", "[routing][sssp][balance]") {
  struct Case {
    std::string name;
    std::function<Result<Fabric>()> make;
  };
  const std::vector<Case> cases = {
      {"4-ary 3-tree", [] { return topogen::kary_ntree({.k = 4, .n = 3}); }},
      {"6-ary 2-tree", [] { return topogen::kary_ntree({.k = 6, .n = 2}); }},
      {"slimmed xgft", [] { return topogen::xgft({.down = {8, 6, 4}, .up = {1, 4, 6}}); }},
      {"leaf-spine with parallel cables",
       [] { return topogen::leaf_spine({.leaves = 8, .spines = 4, .hosts_per_leaf = 8, .links_per_pair = 2}); }},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = must(c.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      const UnicastTables tables = route_sssp(graph);
      // Levels by name ("leaf-3" -> "leaf"): up and down between every two adjacent levels.
      const auto level = [&](NodeIndex n) { return f.node(n).name.substr(0, f.node(n).name.find('-')); };
      std::map<std::string, std::pair<uint64_t, uint64_t>> by_level;
      for (const auto& [link, routes] : testing::traced_link_loads(f, tables.lfts)) {
        const NodeIndex from{link.first};
        const std::string key = level(from) + "->" + level(f.node(from).port(link.second).remote_node);
        auto [slot, fresh] = by_level.try_emplace(key, routes, routes);
        slot->second.first = std::min(slot->second.first, routes);
        slot->second.second = std::max(slot->second.second, routes);
      }
      for (const auto& [levels, range] : by_level) {
        INFO(levels << ": " << range.first << ".." << range.second << " routes per link");
        CHECK(range.first > 0);
        CHECK(range.second - range.first <= 2);
      }
    }
  }
}

// Each route sssp picks minimises the summed load of its channels, which
// greedily minimises the sum of squared link loads; that is no law about the
// busiest link. Measured over generated fabrics, sssp's busiest link is
// below min-hop's on most random graphs, tori and dragonflies but not all,
// and on plain meshes dimension-order routing (the lowest-port tables below)
// beats both. So this test pins down instances only: on these fixed random
// graphs and torus sssp's busiest link carries fewer routes than the tables
// without any balancing, which it would not without its weights (it would be
// those tables: equal weights, ties to the lowest port).
TEST_CASE("on these random graphs and torus sssp's busiest link carries fewer routes than unbalanced routing",
          "[routing][sssp][balance]") {
  struct Case {
    std::string name;
    std::function<Result<Fabric>()> make;
  };
  const std::vector<Case> cases = {
      {"random regular", [] { return topogen::random_regular({.switches = 16, .degree = 4, .seed = 1}); }},
      {"random regular 2",
       [] { return topogen::random_regular({.switches = 20, .degree = 3, .hosts_per_switch = 2, .seed = 7}); }},
      {"4x4 torus", [] { return topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 2}); }},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = must(c.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      const auto sssp = testing::traced_link_loads(f, route_sssp(graph).lfts);
      const auto unbalanced = testing::traced_link_loads(f, lowest_port_tables(f, graph));
      INFO("busiest link: sssp " << max_load(sssp) << ", unbalanced " << max_load(unbalanced));
      CHECK(max_load(sssp) < max_load(unbalanced));
      CHECK(squared_loads(sssp) < squared_loads(unbalanced));
    }
  }
}

// The rip-up passes: every endpoint's routes routed again over the loads
// the others left. A pass is kept only when it lightens the busiest link, so
// with passes sssp's busiest link is never busier than after the first pass;
// on the dragonfly (as on the benchmark's 1,056-host one) and the random
// graph it is lighter, which it would not be without the passes.
TEST_CASE("sssp's reroute passes lighten the busiest link and never make it busier", "[routing][sssp][balance]") {
  struct Case {
    std::string name;
    std::function<Result<Fabric>()> make;
    bool lighter;
  };
  const std::vector<Case> cases = {
      {"dragonfly", [] { return topogen::dragonfly({.a = 8, .p = 4, .h = 4, .g = 17}); }, true},
      {"random regular",
       [] { return topogen::random_regular({.switches = 32, .degree = 6, .hosts_per_switch = 3, .seed = 1}); }, true},
      {"fat tree with failed cables",
       [] {
         Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
         must(topogen::fail_links(f, {.count = 6, .seed = 3}));
         return Result<Fabric>(std::move(f));
       },
       false},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = must(c.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      SsspEngine one_pass(SsspOptions{.reroute_passes = 0});
      const auto first = testing::traced_link_loads(f, must(one_pass.compute(RoutingInput{graph})).lfts);
      const UnicastTables rerouted = route_sssp(graph);
      const CheckSummary s = check_all_pairs(f, rerouted.lfts);
      CHECK(s.all_delivered());
      CHECK(s.longer_than_shortest == 0);
      const auto after = testing::traced_link_loads(f, rerouted.lfts);
      INFO("busiest link: first pass " << max_load(first) << ", after the reroute passes " << max_load(after));
      CHECK(max_load(after) <= max_load(first));
      if (c.lighter) CHECK(max_load(after) < max_load(first));
    }
  }
}

TEST_CASE("sssp is deterministic", "[routing][sssp]") {
  Fabric f = must(topogen::random_regular({.switches = 24, .degree = 4, .hosts_per_switch = 2, .seed = 11}));
  assign_lids(f, 1);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const RoutingGraph again = must(RoutingGraph::build(f));
  SsspEngine a, b;
  const UnicastTables first = must(a.compute(RoutingInput{graph}));
  CHECK(first.lfts == must(a.compute(RoutingInput{graph})).lfts);
  CHECK(first.lfts == must(b.compute(RoutingInput{again})).lfts);
}

// The biggest three-level fat tree of 64-port switches whose LIDs fit the
// unicast space (see minhop_scale.tests.cpp), and smaller ones like it:
// every route sampled is delivered on a shortest path; the time is printed.
void route_fat_tree(const topogen::XgftParams& shape, uint64_t hosts) {
  Fabric f = must(topogen::xgft(shape));
  REQUIRE(f.ca_count() == hosts);
  assign_lids(f);
  using clock = std::chrono::steady_clock;
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const auto t0 = clock::now();
  SsspEngine engine;
  const UnicastTables tables = must(engine.compute(RoutingInput{graph}));
  const auto t1 = clock::now();
  CHECK(validate_tables(graph, tables).ok());
  const CheckSummary s = check_all_pairs(f, tables.lfts, {.source_stride = 2048});
  INFO(s.to_string());
  CHECK(s.all_delivered());
  CHECK(s.max_hops == 6);
  using ms = std::chrono::duration<double, std::milli>;
  WARN("sssp on " << hosts << " endpoints / " << f.switch_count() << " switches: routing " << ms(t1 - t0).count()
                  << " ms; " << s.to_string());
}

TEST_CASE("sssp routes a 10k-endpoint fat tree", "[routing][sssp][scale]") {
  route_fat_tree({.down = {24, 24, 18}, .up = {1, 24, 24}}, 24 * 24 * 18);
}

// Benchmarks, hidden (run them by tag in a Release build).
TEST_CASE("sssp routes a 4k-endpoint fat tree", "[.][sssp-bench]") {
  route_fat_tree({.down = {16, 16, 16}, .up = {1, 16, 16}}, 4096);
}
TEST_CASE("sssp routes a 16k-endpoint fat tree", "[.][sssp-bench]") {
  route_fat_tree({.down = {32, 32, 16}, .up = {1, 32, 32}}, 16384);
}
TEST_CASE("sssp routes a 45k-endpoint fat tree that fills the lid space", "[.][sssp-bench]") {
  route_fat_tree({.down = {32, 32, 44}, .up = {1, 32, 32}}, 45056);
}

}  // namespace
}  // namespace ibsm::routing
