#include "routing/updn.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "routing/cdg.h"
#include "routing/chain.h"
#include "routing/graph.h"
#include "routing/guid_list.h"
#include "routing/minhop.h"
#include "routing/registry.h"
#include "routing/shortest_paths.h"
#include "routing/trace.h"
#include "routing_fixtures.h"
#include "updown_oracle.h"
#include "sm/fabric/netfile_reader.h"
#include "sm/topogen/fail_links.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

struct Fixture {
  std::string name;
  std::function<Result<Fabric>()> make;
  bool fat_tree = false;  // a complete fat tree: shortest paths are all up*/down*
};

std::vector<Fixture> fixtures() {
  using namespace topogen;
  return {
      {"2-ary 2-tree", [] { return kary_ntree({.k = 2, .n = 2}); }, true},
      {"4-ary 2-tree", [] { return kary_ntree({.k = 4, .n = 2}); }, true},
      {"4-ary 3-tree", [] { return kary_ntree({.k = 4, .n = 3}); }, true},
      {"3-ary 3-tree", [] { return kary_ntree({.k = 3, .n = 3}); }, true},
      {"2-ary 4-tree", [] { return kary_ntree({.k = 2, .n = 4}); }, true},
      {"slimmed xgft", [] { return xgft({.down = {4, 4, 2}, .up = {1, 2, 2}}); }, true},
      {"slimmed xgft 2", [] { return xgft({.down = {6, 4, 3}, .up = {1, 3, 2}}); }, true},
      {"2-port hosts xgft (two planes)", [] { return xgft({.down = {3, 3}, .up = {2, 2}}); }, true},
      {"leaf-spine 4x2", [] { return leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 4}); }, true},
      {"leaf-spine parallel cables",
       [] { return leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3, .links_per_pair = 2}); }, true},
      {"ring of 5", [] { return mesh({.dims = {5}, .torus = true, .hosts_per_switch = 2}); }},
      {"4x4 torus", [] { return mesh({.dims = {4, 4}, .torus = true}); }},
      {"3x3x2 torus", [] { return mesh({.dims = {3, 3, 2}, .torus = true}); }},
      {"3x3x3 torus", [] { return mesh({.dims = {3, 3, 3}, .torus = true}); }},
      {"3x3 mesh", [] { return mesh({.dims = {3, 3}, .torus = false, .hosts_per_switch = 2}); }},
      {"4x3x2 mesh", [] { return mesh({.dims = {4, 3, 2}, .torus = false}); }},
      {"hypercube 4", [] { return hypercube({.dimension = 4}); }},
      {"dragonfly", [] { return dragonfly({.a = 4, .p = 2, .h = 2, .g = 9}); }},
      {"random regular", [] { return random_regular({.switches = 16, .degree = 4, .seed = 1}); }},
      {"random regular 2", [] { return random_regular({.switches = 20, .degree = 3, .hosts_per_switch = 2, .seed = 7}); }},
  };
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

// Whether each switch port's cable goes up, by the orientation, keyed by (node, port).
std::map<std::pair<uint32_t, uint8_t>, bool> up_ports(const RoutingGraph& graph, const UpDownOrientation& o) {
  std::map<std::pair<uint32_t, uint8_t>, bool> up;
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    for (uint32_t e = graph.edge_begin(s); e < graph.edge_begin(s + 1); ++e) {
      up[{graph.node_of(s).value, graph.edge_port(e)}] = o.up[e] != 0;
    }
  }
  return up;
}

struct RouteFindings {
  uint64_t pairs = 0, delivered = 0, shortest = 0, illegal_turns = 0, misrouted = 0;
  std::string first_problem;
};

// Traces every endpoint pair (all LIDs): delivered to the right port, and
// never up after down.
RouteFindings trace_routes(const Fabric& f, const RoutingGraph& graph, const UnicastTables& tables,
                           const UpDownOrientation& o) {
  RouteFindings r;
  const auto up = up_ports(graph, o);
  const testing::Oracle oracle(f);
  const RouteTracer tracer(f, tables.lfts);
  const std::vector<PortRef> ends = testing::endpoint_ports(f);
  const auto problem = [&](const std::string& what) {
    if (r.first_problem.empty()) r.first_problem = what;
  };
  for (const PortRef& src : ends) {
    for (const PortRef& dst : ends) {
      if (src == dst) continue;
      const uint32_t expected = oracle.cables(src, dst);
      if (expected == testing::kFar) continue;
      const Port& dp = f.node(dst.node).port(dst.port);
      for (uint32_t i = 0; i < (1u << dp.lmc); ++i) {
        const Lid dlid{static_cast<uint16_t>(dp.base_lid.value + i)};
        ++r.pairs;
        const Trace t = tracer.trace(src, dlid);
        const std::string pair = f.node(src.node).name + " -> " + f.node(dst.node).name + " lid " +
                                 std::to_string(dlid.value);
        if (t.outcome != TraceOutcome::delivered || t.destination != dst) {
          ++r.misrouted;
          problem(pair + ": " + trace_outcome_name(t.outcome) + " " + t.reason);
          continue;
        }
        ++r.delivered;
        r.shortest += t.cables == expected;
        bool went_down = false;
        for (size_t h = 0; h + 1 < t.hops.size(); ++h) {
          const bool is_up = up.at({t.hops[h].node.value, t.hops[h].out_port});
          if (is_up && went_down) {
            ++r.illegal_turns;
            problem(pair + ": up after down at " + f.node(t.hops[h].node).name);
            break;
          }
          went_down = went_down || !is_up;
        }
      }
    }
  }
  return r;
}

// Routes `f` with `engine` and checks what every up*/down* engine must
// deliver; returns the tables for more checks.
UnicastTables check_engine(RoutingEngine& engine, const Fabric& f, const UpDownOrientation& (*orientation)(RoutingEngine&),
                           bool expect_shortest) {
  const RoutingGraph graph = must(RoutingGraph::build(f));
  UnicastTables tables = must(engine.compute(RoutingInput{graph}));
  must(validate_tables(graph, tables));

  const RouteFindings r = trace_routes(f, graph, tables, orientation(engine));
  INFO(engine.name() << ": " << r.first_problem);
  CHECK(r.pairs == reachable_pairs(f));
  CHECK(r.delivered == r.pairs);
  CHECK(r.illegal_turns == 0);
  if (expect_shortest) CHECK(r.shortest == r.pairs);

  const CheckSummary s = check_all_pairs(f, tables.lfts);
  INFO(s.to_string());
  CHECK(s.looping == 0);
  CHECK(s.delivered == r.pairs);

  const CdgReport cdg = must(check_channel_dependencies(f, tables.lfts));
  INFO(cdg.to_string());
  CHECK(cdg.acyclic());
  if (graph.edge_count() > 0) CHECK(cdg.dependencies > 0);
  return tables;
}

const UpDownOrientation& updn_orientation_of(RoutingEngine& e) { return static_cast<UpDnEngine&>(e).orientation(); }
const UpDownOrientation& dnup_orientation_of(RoutingEngine& e) { return static_cast<DnUpEngine&>(e).orientation(); }

void check_both(const Fabric& f, bool expect_shortest) {
  UpDnEngine updn;
  check_engine(updn, f, updn_orientation_of, expect_shortest);
  DnUpEngine dnup;
  check_engine(dnup, f, dnup_orientation_of, expect_shortest);
}

TEST_CASE("updn and dnup deliver every pair up*/down* with an acyclic cdg on generated fabrics",
          "[routing][updn]") {
  for (const Fixture& fx : fixtures()) {
    DYNAMIC_SECTION(fx.name) {
      Fabric f = must(fx.make());
      assign_lids(f);
      check_both(f, fx.fat_tree);
    }
  }
}

TEST_CASE("updn and dnup route around failed cables", "[routing][updn]") {
  for (const Fixture& fx : fixtures()) {
    for (uint64_t count : {1, 3, 6}) {
      DYNAMIC_SECTION(fx.name << ", " << count << " failed cables") {
        Fabric f = must(fx.make());
        assign_lids(f);
        const uint64_t before = reachable_pairs(f);
        if (count > testing::switch_cables(f)) continue;  // the fixture has fewer switch cables than that
        REQUIRE(topogen::fail_links(f, {.count = count, .seed = 11 + count}).ok());
        if (reachable_pairs(f) != before) continue;  // the failures split the fabric
        check_both(f, false);
      }
    }
  }
}

TEST_CASE("updn and dnup with lmc route every lid of every port", "[routing][updn][lmc]") {
  for (uint8_t lmc : {1, 2}) {
    for (const Fixture& fx : fixtures()) {
      DYNAMIC_SECTION(fx.name << ", lmc " << int{lmc}) {
        Fabric f = must(fx.make());
        assign_lids(f, lmc);
        check_both(f, fx.fat_tree);
      }
    }
  }
}

TEST_CASE("a fabric split by failures routes within its parts", "[routing][updn]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 2}));
  // Cut leaf-0 off both spines: its hosts can only talk to each other.
  const NodeIndex leaf0 = *f.find_by_name("leaf-0");
  for (unsigned p = 1; p <= f.node(leaf0).num_ports; ++p) {
    const Port& port = f.node(leaf0).port(static_cast<uint8_t>(p));
    if (port.connected() && f.node(port.remote_node).is_switch()) f.disconnect({leaf0, static_cast<uint8_t>(p)});
  }
  assign_lids(f);
  check_both(f, true);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const std::vector<SwitchId> roots = find_updn_roots(graph);
  CHECK(roots.size() == 3);  // the two spines, and the lone leaf of its own part
}

TEST_CASE("updn's automatic roots are the top level of every generated fat tree", "[routing][updn][roots]") {
  for (const Fixture& fx : fixtures()) {
    if (!fx.fat_tree) continue;
    DYNAMIC_SECTION(fx.name) {
      Fabric f = must(fx.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      std::set<std::string> roots, tops;
      for (SwitchId s : find_updn_roots(graph)) roots.insert(f.node(graph.node_of(s)).name);
      for (SwitchId s = 0; s < graph.switch_count(); ++s) {
        const std::string& name = f.node(graph.node_of(s)).name;
        if (name.rfind("spine-", 0) == 0) tops.insert(name);
      }
      REQUIRE_FALSE(tops.empty());
      CHECK(roots == tops);

      UpDnEngine engine;
      const UnicastTables tables = must(engine.compute(RoutingInput{graph}));
      std::set<std::string> used;
      for (SwitchId s : engine.orientation().roots) used.insert(f.node(graph.node_of(s)).name);
      CHECK(used == tops);
    }
  }
}

TEST_CASE("without a tree structure updn takes one central root", "[routing][updn][roots]") {
  SECTION("the middle of a mesh") {
    Fabric f = must(topogen::mesh({.dims = {5, 3}, .torus = false}));
    assign_lids(f);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    const std::vector<SwitchId> roots = find_updn_roots(graph);
    REQUIRE(roots.size() == 1);
    CHECK(f.node(graph.node_of(roots[0])).name == "sw-2-1");
  }
  SECTION("one switch of a torus, and the same one every time") {
    Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true}));
    assign_lids(f);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    const std::vector<SwitchId> roots = find_updn_roots(graph);
    CHECK(roots.size() == 1);
    CHECK(find_updn_roots(graph) == roots);
  }
}

// Ranks must be hop distances from the roots, by an independent search.
void check_ranks(const Fabric& f, const RoutingGraph& graph, const UpDownOrientation& o) {
  const testing::Oracle oracle(f);
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    uint32_t nearest = testing::kFar;
    for (SwitchId r : o.roots) nearest = std::min(nearest, oracle.switch_distance(graph.node_of(s), graph.node_of(r)));
    INFO(f.node(graph.node_of(s)).name);
    CHECK(o.rank[s] == nearest);
  }
  // Every edge has one direction, and its reverse the other.
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    for (uint32_t e = graph.edge_begin(s); e < graph.edge_begin(s + 1); ++e) {
      const SwitchId t = graph.edge_target(e);
      const Guid gs = f.node(graph.node_of(s)).node_guid, gt = f.node(graph.node_of(t)).node_guid;
      const bool expect_up = o.rank[t] < o.rank[s] || (o.rank[t] == o.rank[s] && gt < gs);
      CHECK((o.up[e] != 0) == expect_up);
    }
  }
}

TEST_CASE("updn uses the roots it is given", "[routing][updn][roots]") {
  Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));

  SECTION("one leaf switch as the root") {
    const Guid leaf = f.node(*f.find_by_name("leaf-5")).node_guid;
    UpDnEngine engine({.roots = {leaf}});
    check_engine(engine, f, updn_orientation_of, false);
    const UpDownOrientation& o = engine.orientation();
    REQUIRE(o.roots.size() == 1);
    CHECK(f.node(graph.node_of(o.roots[0])).node_guid == leaf);
    CHECK(std::count(o.rank.begin(), o.rank.end(), 0u) == 1);
    check_ranks(f, graph, o);
  }
  SECTION("the top level, given: the same tables as found automatically") {
    std::vector<Guid> tops;
    for (uint32_t n = 0; n < f.node_count(); ++n) {
      if (f.node(NodeIndex{n}).name.rfind("spine-", 0) == 0) tops.push_back(f.node(NodeIndex{n}).node_guid);
    }
    REQUIRE(tops.size() == 16);
    UpDnEngine given({.roots = tops});
    const UnicastTables a = check_engine(given, f, updn_orientation_of, true);
    check_ranks(f, graph, given.orientation());
    CHECK(given.orientation().roots.size() == 16);
    UpDnEngine automatic;
    CHECK(must(automatic.compute(RoutingInput{graph})).lfts == a.lfts);
  }
  SECTION("roots read from a root guid file") {
    std::istringstream file("# root switches\n" + fmt::format("{}\n\n{}  # another\n",
                                                                 f.node(*f.find_by_name("agg-0")).node_guid,
                                                                 f.node(*f.find_by_name("agg-1")).node_guid));
    const std::vector<Guid> roots = must(parse_guid_list(file, "roots.txt"));
    REQUIRE(roots.size() == 2);
    const UpDownOrientation o = updn_orientation(graph, must(switches_by_guid(graph, roots)));
    CHECK(o.roots.size() == 2);
    check_ranks(f, graph, o);
  }
}

TEST_CASE("updn refuses roots that are not switches of the fabric, and a fabric without switches",
          "[routing][updn][roots]") {
  Fabric f = must(topogen::kary_ntree({.k = 2, .n = 2}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));

  SECTION("unknown guid") {
    UpDnEngine engine({.roots = {Guid{0x1234}}});
    const auto r = engine.compute(RoutingInput{graph});
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::not_found);
    CHECK_THAT(r.status().message(), Catch::Contains("updn") && Catch::Contains("0x0000000000001234"));
  }
  SECTION("a ca's guid") {
    const Guid host = f.node(*f.find_by_name("host-0")).node_guid;
    UpDnEngine engine({.roots = {host}});
    const auto r = engine.compute(RoutingInput{graph});
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::invalid_argument);
    CHECK_THAT(r.status().message(), Catch::Contains(fmt::format("{}", host)) && Catch::Contains("not a switch"));
  }
  SECTION("no switch at all, and the chain moves on to minhop") {
    Fabric b2b = must(topogen::back_to_back({}));
    assign_lids(b2b);
    const RoutingGraph g2 = must(RoutingGraph::build(b2b));
    for (const std::string_view name : {kUpDnName, kDnUpName}) {
      EngineRegistry registry;
      must(register_builtin_engines(registry));
      const auto refused = registry.create(name)->compute(RoutingInput{g2});
      REQUIRE_FALSE(refused.ok());
      CHECK_THAT(refused.status().message(), Catch::Contains("no switch"));
      const RoutingOutcome out = must(run_engine_chain(registry, must(parse_engine_chain(name, registry)),
                                                       RoutingInput{g2}));
      CHECK(out.engine == "minhop");
      REQUIRE(out.refusals.size() == 1);
      CHECK(out.refusals[0].engine == name);
    }
  }
}

TEST_CASE("roots that leave switches with cas apart are refused, or replaced when automatic",
          "[routing][updn][roots]") {
  // A line of five switches with a host each, rooted at both ends: the
  // middle switch is below both roots, and sw-1 and sw-3 each climb to their
  // own end only, so no up*/down* path joins them.
  Fabric f = must(topogen::mesh({.dims = {5}, .torus = false}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  UpDnEngine engine({.roots = {f.node(*f.find_by_name("sw-0")).node_guid, f.node(*f.find_by_name("sw-4")).node_guid}});
  const auto r = engine.compute(RoutingInput{graph});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == StatusCode::failed_precondition);
  CHECK_THAT(r.status().message(), Catch::Contains("no up*/down* path"));
}

TEST_CASE("dnup ranks by distance from the cas and climbs away from them first", "[routing][updn][dnup]") {
  // A leaf/spine fabric with a host on a spine too: the spine with the host
  // ranks 0 like the leaves, and the route climbs away from the cas first.
  Fabric f = must(topogen::leaf_spine({.leaves = 4, .spines = 3, .hosts_per_leaf = 2, .radix = 8}));
  const NodeIndex spine = *f.find_by_name("spine-0");
  Node host;
  host.type = NodeType::ca;
  host.num_ports = 1;
  host.node_guid = Guid{0x0002c90499999900};
  host.name = "extra-host";
  const NodeIndex h = must(f.add_node(host));
  uint8_t free_port = 0;
  for (unsigned p = 1; p <= f.node(spine).num_ports && free_port == 0; ++p) {
    if (!f.node(spine).port(static_cast<uint8_t>(p)).connected()) free_port = static_cast<uint8_t>(p);
  }
  REQUIRE(free_port != 0);
  must(f.connect({h, 1}, {spine, free_port}));
  f.node(h).port(1).state = PortState::init;
  f.node(spine).port(free_port).state = PortState::init;
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));

  DnUpEngine dnup;
  check_engine(dnup, f, dnup_orientation_of, false);
  const UpDownOrientation& o = dnup.orientation();
  CHECK(o.rank[graph.switch_of(spine)] == 0);
  CHECK(o.rank[graph.switch_of(*f.find_by_name("spine-1"))] == 1);
  CHECK(o.rank[graph.switch_of(*f.find_by_name("leaf-0"))] == 0);
  UpDnEngine updn;
  check_engine(updn, f, updn_orientation_of, false);
}


TEST_CASE("updn balances the up-links of complete fat trees", "[routing][updn][balance]") {
  // The bound: the port choice takes, among a switch's candidates, the one
  // with the least load (endpoint pairs routed over it so far), and adds the
  // new route's weight: the endpoints whose packets for that LID reach the
  // switch, all of them hosts below it. On a complete fat tree every LID a
  // switch sends up may take any of its up-links, so picking the least
  // loaded keeps the loads of one switch's up-links within one weight of
  // each other: max - min <= W, the hosts below the switch. By symmetry
  // every switch of a level sends the same total up, so no up-link of a
  // level carries more than the level's mean + W.
  struct Case {
    std::string name;
    std::function<Result<Fabric>()> make;
  };
  const std::vector<Case> cases = {
      {"4-ary 3-tree", [] { return topogen::kary_ntree({.k = 4, .n = 3}); }},
      {"6-ary 3-tree", [] { return topogen::kary_ntree({.k = 6, .n = 3}); }},
      {"8-ary 2-tree", [] { return topogen::kary_ntree({.k = 8, .n = 2}); }},
      {"slimmed xgft", [] { return topogen::xgft({.down = {8, 6, 4}, .up = {1, 4, 6}}); }},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Fabric f = must(c.make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      UpDnEngine engine;
      const UnicastTables tables = must(engine.compute(RoutingInput{graph}));
      const UpDownOrientation& o = engine.orientation();
      const auto load = testing::traced_link_loads(f, tables.lfts);
      const testing::Oracle oracle(f);
      const std::vector<PortRef> ends = testing::endpoint_ports(f);

      struct Level {
        uint64_t links = 0, total = 0, most = 0, below = 0;
      };
      std::map<uint32_t, Level> levels;  // by rank
      for (SwitchId s = 0; s < graph.switch_count(); ++s) {
        // Hosts below s: those whose leaf s reaches going down, every hop one rank farther from the roots.
        uint64_t below = 0;
        for (const PortRef& e : ends) {
          const NodeIndex leaf = f.node(e.node).port(e.port).remote_node;
          below += o.rank[s] + oracle.switch_distance(graph.node_of(s), leaf) == o.rank[graph.switch_of(leaf)];
        }
        uint64_t lo = UINT64_MAX, hi = 0;
        Level& level = levels[o.rank[s]];
        for (uint32_t e = graph.edge_begin(s); e < graph.edge_begin(s + 1); ++e) {
          if (!o.up[e]) continue;
          const auto it = load.find({graph.node_of(s).value, graph.edge_port(e)});
          const uint64_t routes = it == load.end() ? 0 : it->second;
          lo = std::min(lo, routes);
          hi = std::max(hi, routes);
          ++level.links;
          level.total += routes;
          level.most = std::max(level.most, routes);
        }
        level.below = std::max(level.below, below);
        if (hi == 0) continue;  // the top level: no up-links
        INFO(f.node(graph.node_of(s)).name << ": up-links carry " << lo << ".." << hi << " routes, " << below
                                           << " hosts below");
        CHECK(lo > 0);
        CHECK(hi - lo <= below);
      }
      size_t checked = 0;
      for (const auto& [rank, level] : levels) {
        if (level.links == 0) continue;
        const double mean = static_cast<double>(level.total) / static_cast<double>(level.links);
        INFO("rank " << rank << ": up-links max " << level.most << ", mean " << mean << ", hosts below "
                     << level.below);
        CHECK(static_cast<double>(level.most) <= mean + static_cast<double>(level.below));
        ++checked;
      }
      CHECK(checked + 1 == levels.size());
    }
  }
}

TEST_CASE("on a complete k-ary n-tree updn routes the endpoints exactly like minhop", "[routing][updn][balance]") {
  // Every shortest path between leaves is up*/down* there, so the candidates
  // and hence the balanced choices are min-hop's; switch lids may differ
  // (some switch pairs have no legal path, and those routes weigh nothing).
  for (uint32_t k : {2u, 4u}) {
    Fabric f = must(topogen::kary_ntree({.k = k, .n = 3}));
    assign_lids(f, 1);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    UpDnEngine updn;
    const UnicastTables a = must(updn.compute(RoutingInput{graph}));
    const UnicastTables b = testing::route_minhop(graph);
    uint64_t compared = 0, differ = 0;
    for (const PortRef& e : testing::endpoint_ports(f)) {
      const Port& port = f.node(e.node).port(e.port);
      for (uint32_t i = 0; i < (1u << port.lmc); ++i) {
        for (SwitchId s = 0; s < graph.switch_count(); ++s) {
          const NodeIndex n = graph.node_of(s);
          ++compared;
          differ += a.port(n, Lid{static_cast<uint16_t>(port.base_lid.value + i)}) !=
                    b.port(n, Lid{static_cast<uint16_t>(port.base_lid.value + i)});
        }
      }
    }
    INFO(k << "-ary 3-tree");
    CHECK(compared > 0);
    CHECK(differ == 0);
  }
}

TEST_CASE("with lmc the lids of one port take distinct paths where the topology allows", "[routing][updn][lmc]") {
  SECTION("4-ary 3-tree: the four paths between hosts in different pods share no switch cable") {
    Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
    assign_lids(f, 2);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    for (int which = 0; which < 2; ++which) {
      std::unique_ptr<RoutingEngine> engine;
      if (which == 0) engine = std::make_unique<UpDnEngine>();
      else engine = std::make_unique<DnUpEngine>();
      const UnicastTables tables = must(engine->compute(RoutingInput{graph}));
      const RouteTracer tracer(f, tables.lfts);
      const testing::Oracle oracle(f);
      uint64_t far_pairs = 0;
      for (const PortRef& src : testing::endpoint_ports(f)) {
        for (const PortRef& dst : testing::endpoint_ports(f)) {
          if (oracle.cables(src, dst) != 6) continue;
          ++far_pairs;
          std::set<std::pair<uint32_t, uint8_t>> cables;
          size_t hops = 0;
          for (uint32_t i = 0; i < 4; ++i) {
            const Trace t = tracer.trace(src, Lid{static_cast<uint16_t>(f.node(dst.node).port(dst.port).base_lid.value + i)});
            REQUIRE(t.outcome == TraceOutcome::delivered);
            for (size_t h = 0; h + 1 < t.hops.size(); ++h) {
              cables.insert({t.hops[h].node.value, t.hops[h].out_port});
              ++hops;
            }
          }
          INFO(engine->name() << ": " << f.node(src.node).name << " -> " << f.node(dst.node).name);
          REQUIRE(cables.size() == hops);
        }
      }
      CHECK(far_pairs == 64 * 48);
    }
  }
  SECTION("every switch gives the lids of a port different ports and next switches where it has the choice") {
    for (const auto& make : std::vector<std::function<Result<Fabric>()>>{
             [] { return topogen::mesh({.dims = {4, 4}, .torus = true}); },
             [] { return topogen::hypercube({.dimension = 4}); },
             [] { return topogen::random_regular({.switches = 16, .degree = 4, .seed = 1}); },
             [] { return topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2, .links_per_pair = 2}); },
             [] { return topogen::kary_ntree({.k = 4, .n = 3}); }}) {
      for (uint8_t lmc : {1, 2}) {
        Fabric f = must(make());
        assign_lids(f, lmc);
        const RoutingGraph graph = must(RoutingGraph::build(f));
        UpDnEngine engine;
        const UnicastTables tables = must(engine.compute(RoutingInput{graph}));
        testing::UpDownOracle oracle(graph, engine.orientation().up);
        uint64_t groups = 0, spread = 0;
        for (SwitchId home = 0; home < graph.switch_count(); ++home) {
          oracle.search(home);
          for (const Destination& d : graph.destinations_of(home)) {
            if (d.port == 0) continue;  // a switch's own lid
            for (SwitchId s = 0; s < graph.switch_count(); ++s) {
              if (s == home || oracle.distance(s) == testing::UpDownOracle::kFar) continue;
              std::set<uint8_t> cand_ports, ports;
              std::set<SwitchId> cand_next, next;
              for (uint32_t e = graph.edge_begin(s); e < graph.edge_begin(s + 1); ++e) {
                if (!oracle.candidate(s, e)) continue;
                cand_ports.insert(graph.edge_port(e));
                cand_next.insert(graph.edge_target(e));
              }
              const NodeIndex sw = graph.node_of(s);
              for (uint32_t i = 0; i < d.lid_count(); ++i) {
                const uint8_t p = tables.lfts[sw.value][d.base.value + i];
                REQUIRE(cand_ports.count(p) == 1);
                ports.insert(p);
                next.insert(graph.switch_of(f.node(sw).port(p).remote_node));
              }
              INFO(f.node(sw).name << " toward lid " << d.base.value << ", lmc " << int{lmc});
              CHECK(ports.size() == std::min<size_t>(d.lid_count(), cand_ports.size()));
              CHECK(next.size() == std::min<size_t>(d.lid_count(), cand_next.size()));
              ++groups;
              spread += ports.size() > 1;
            }
          }
        }
        CHECK(groups > 0);
        CHECK(spread > 0);  // these fabrics all have parallel legal paths somewhere
      }
    }
  }
}

TEST_CASE("updn is deterministic", "[routing][updn]") {
  Fabric f = must(topogen::random_regular({.switches = 24, .degree = 4, .hosts_per_switch = 2, .seed = 11}));
  assign_lids(f, 1);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  UpDnEngine a, b;
  CHECK(must(a.compute(RoutingInput{graph})).lfts == must(b.compute(RoutingInput{graph})).lfts);
}

TEST_CASE("the registry builds updn and dnup", "[routing][updn][registry]") {
  EngineRegistry registry;
  must(register_builtin_engines(registry));
  for (const std::string_view name : {kUpDnName, kDnUpName}) {
    const auto engine = registry.create(name);
    REQUIRE(engine != nullptr);
    CHECK(engine->name() == name);
  }
}

// With a runner, updn searches its next 64 destination switches beside the
// routing of the current ones: the same tables as in place, and the same
// refusal when a later batch finds switches with cas that no up*/down*
// path joins (the search that finds it is the one run aside).
TEST_CASE("updn with its searches run aside routes and refuses as in place", "[routing][updn][aside]") {
  const std::vector<std::pair<std::string, AsideRunner>> runners = {{"at once", testing::at_once_runner()},
                                                                    {"when waited", testing::when_waited_runner()}};
  SECTION("the tables") {
    Fabric f = must(topogen::random_regular({.switches = 150, .degree = 4, .hosts_per_switch = 2, .seed = 3}));
    assign_lids(f, 1);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    REQUIRE(graph.switch_count() > 2 * PathBatch::kWidth);
    const UnicastTables in_place = must(UpDnEngine().compute(RoutingInput{graph}));
    for (const auto& [name, runner] : runners) {
      INFO(name);
      CHECK(must(UpDnEngine().compute(RoutingInput{.graph = graph, .aside = runner})).lfts == in_place.lfts);
    }
  }
  SECTION("the refusal, found in the second batch") {
    // 64 switches without cas first (a chain hanging off the middle of the
    // line), then the line of five rooted at both ends of "roots that leave
    // switches with cas apart": its switches are destinations 64 to 68.
    std::string net;
    for (int k = 0; k < 64; ++k) {
      net += fmt::format("Switch 2 \"pad-{}\"\n[1] \"{}\"[{}]\n", k, k == 0 ? "sw-2" : fmt::format("pad-{}", k - 1),
                         k == 0 ? 4 : 2);
      if (k < 63) net += fmt::format("[2] \"pad-{}\"[1]\n", k + 1);
      net += "\n";
    }
    for (int i = 0; i < 5; ++i) {
      net += fmt::format("Switch 4 \"sw-{}\"\n[1] \"h-{}\"[1]\n", i, i);
      if (i > 0) net += fmt::format("[2] \"sw-{}\"[3]\n", i - 1);
      if (i < 4) net += fmt::format("[3] \"sw-{}\"[2]\n", i + 1);
      if (i == 2) net += "[4] \"pad-0\"[1]\n";
      net += fmt::format("\nHca 1 \"h-{}\"\n[1] \"sw-{}\"[1]\n\n", i, i);
    }
    std::istringstream in(net);
    Fabric f = must(read_netfile(in, "line"));
    assign_lids(f);
    const RoutingGraph graph = must(RoutingGraph::build(f));
    REQUIRE(graph.switch_of(*f.find_by_name("sw-0")) >= PathBatch::kWidth);
    const std::vector<Guid> roots = {f.node(*f.find_by_name("sw-0")).node_guid,
                                     f.node(*f.find_by_name("sw-4")).node_guid};
    const auto in_place = UpDnEngine({.roots = roots}).compute(RoutingInput{graph});
    REQUIRE_FALSE(in_place.ok());
    CHECK_THAT(in_place.status().message(), Catch::Contains("no up*/down* path"));
    for (const auto& [name, runner] : runners) {
      INFO(name);
      const auto aside = UpDnEngine({.roots = roots}).compute(RoutingInput{.graph = graph, .aside = runner});
      REQUIRE_FALSE(aside.ok());
      CHECK(aside.status().code() == StatusCode::failed_precondition);
      CHECK(aside.status().message() == in_place.status().message());
    }
  }
}

}  // namespace
}  // namespace ibsm::routing
