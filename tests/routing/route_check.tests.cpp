// The route checker against the slow truth: every pair traced hop by hop by
// the route tracer, shortest paths from the independent oracle of
// routing_fixtures.h, link loads counted from the traced hops.
#include "routing/route_check.h"

#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/cdg.h"
#include "routing/engine.h"
#include "routing/graph.h"
#include "routing/minhop.h"
#include "routing/trace.h"
#include "routing/updn.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::must;

// The summary as tracing every pair finds it.
CheckSummary traced_summary(const Fabric& f, LftSet lfts, const CheckOptions& options = {}) {
  CheckSummary s;
  const RouteTracer tracer(f, lfts);
  const testing::Oracle oracle(f);
  const std::vector<PortRef> ends = testing::endpoint_ports(f);
  std::map<PortRef, uint64_t> routes;
  uint64_t cables = 0;
  double stretch = 0;
  for (size_t i = 0; i < ends.size(); i += options.source_stride) {
    const PortRef src = ends[i];
    for (const PortRef& dst : ends) {
      if (dst == src) continue;
      const Port& dp = f.node(dst.node).port(dst.port);
      for (uint32_t l = 0; l < (options.all_lids ? 1u << dp.lmc : 1u); ++l) {
        ++s.pairs;
        const Trace t = tracer.trace(src, Lid{static_cast<uint16_t>(dp.base_lid.value + l)});
        if (t.outcome == TraceOutcome::delivered && t.destination == dst) {
          ++s.delivered;
          s.max_hops = std::max(s.max_hops, t.cables);
          cables += t.cables;
          const uint32_t shortest = oracle.cables(src, dst);
          REQUIRE(shortest != testing::kFar);
          const double r = static_cast<double>(t.cables) / shortest;
          s.max_stretch = std::max(s.max_stretch, r);
          stretch += r;
          if (t.cables > shortest) ++s.longer_than_shortest;
          for (const TraceHop& hop : t.hops) ++routes[PortRef{hop.node, hop.out_port}];
        } else if (t.outcome == TraceOutcome::loop) {
          ++s.looping;
        } else {
          ++s.unreachable;
        }
      }
    }
  }
  if (s.delivered > 0) {
    s.mean_hops = static_cast<double>(cables) / s.delivered;
    s.mean_stretch = stretch / s.delivered;
  }
  std::vector<uint64_t> loads;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    const Node& node = f.node(NodeIndex{n});
    if (!node.is_switch()) continue;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (!testing::cable_up(f, NodeIndex{n}, p)) continue;
      const Port& port = node.port(static_cast<uint8_t>(p));
      const bool to_switch = f.node(port.remote_node).is_switch();
      const PortRef here{NodeIndex{n}, static_cast<uint8_t>(p)};
      if (to_switch || f.node(port.remote_node).port(port.remote_port).base_lid.value != 0)
        s.port_routes.push_back({here, routes[here], to_switch});
      if (!to_switch) continue;
      loads.push_back(routes[PortRef{NodeIndex{n}, static_cast<uint8_t>(p)}]);
    }
  }
  s.switch_links = loads.size();
  double sum = 0;
  for (uint64_t l : loads) {
    s.max_link_routes = std::max(s.max_link_routes, l);
    sum += static_cast<double>(l);
  }
  if (!loads.empty()) {
    s.mean_link_routes = sum / loads.size();
    double squares = 0;
    for (uint64_t l : loads) squares += (l - s.mean_link_routes) * (l - s.mean_link_routes);
    s.stddev_link_routes = std::sqrt(squares / loads.size());
  }
  return s;
}

void check_matches_traces(const Fabric& f, LftSet lfts, const CheckOptions& options = {}) {
  const CheckSummary want = traced_summary(f, lfts, options);
  const CheckSummary got = check_all_pairs(f, lfts, options);
  INFO("traced:  " << want.to_string());
  INFO("checked: " << got.to_string());
  CHECK(got.pairs == want.pairs);
  CHECK(got.delivered == want.delivered);
  CHECK(got.unreachable == want.unreachable);
  CHECK(got.looping == want.looping);
  CHECK(got.max_hops == want.max_hops);
  CHECK(got.mean_hops == Approx(want.mean_hops));
  CHECK(got.max_stretch == Approx(want.max_stretch));
  CHECK(got.mean_stretch == Approx(want.mean_stretch));
  CHECK(got.longer_than_shortest == want.longer_than_shortest);
  CHECK(got.switch_links == want.switch_links);
  CHECK(got.max_link_routes == want.max_link_routes);
  CHECK(got.mean_link_routes == Approx(want.mean_link_routes));
  CHECK(got.stddev_link_routes == Approx(want.stddev_link_routes));
  REQUIRE(got.port_routes.size() == want.port_routes.size());
  for (size_t i = 0; i < got.port_routes.size(); ++i) {
    INFO("port routes " << i);
    CHECK(got.port_routes[i].port == want.port_routes[i].port);
    CHECK(got.port_routes[i].routes == want.port_routes[i].routes);
    CHECK(got.port_routes[i].to_switch == want.port_routes[i].to_switch);
  }
  CHECK(got.problems.size() == std::min<uint64_t>(options.max_problems, want.pairs - want.delivered));
}

UnicastTables minhop_tables(const Fabric& f) { return testing::route_minhop(must(RoutingGraph::build(f))); }

// The port of switch `a` cabled to node `b` (the first, by port number).
uint8_t port_to(const Fabric& f, NodeIndex a, NodeIndex b) {
  const Node& node = f.node(a);
  for (unsigned p = 1; p <= node.num_ports; ++p) {
    if (node.port(static_cast<uint8_t>(p)).remote_node == b) return static_cast<uint8_t>(p);
  }
  FAIL("no cable between the two");
  return 0;
}

// A deterministic scramble of some table entries: dropped, sent back, to
// port 0, beyond the switch, or to another port.
void scramble(Fabric& f, UnicastTables& t, uint32_t every, uint64_t seed) {
  uint64_t x = seed;
  const auto next = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(x >> 33);
  };
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    auto& lft = t.lfts[n];
    for (size_t lid = 1; lid < lft.size(); ++lid) {
      if (next() % every != 0) continue;
      const uint32_t what = next() % 4;
      lft[lid] = what == 0   ? kNoRoute
                 : what == 1 ? uint8_t{0}
                 : what == 2 ? static_cast<uint8_t>(f.node(NodeIndex{n}).num_ports + 1)
                             : static_cast<uint8_t>(1 + next() % f.node(NodeIndex{n}).num_ports);
    }
  }
}

TEST_CASE("the route checker finds what tracing every pair finds", "[routing][check]") {
  SECTION("fat tree") {
    Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
    testing::assign_lids(f);
    check_matches_traces(f, minhop_tables(f).lfts);
  }
  SECTION("torus") {
    Fabric f = must(topogen::mesh({.dims = {4, 3, 3}, .torus = true, .hosts_per_switch = 2}));
    testing::assign_lids(f);
    check_matches_traces(f, minhop_tables(f).lfts);
  }
  SECTION("leaf/spine with lmc 2, all lids and base lids") {
    Fabric f = must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 3, .links_per_pair = 2}));
    testing::assign_lids(f, 2);
    const UnicastTables t = minhop_tables(f);
    check_matches_traces(f, t.lfts);
    check_matches_traces(f, t.lfts, {.all_lids = false});
    CHECK(check_all_pairs(f, t.lfts).pairs == 9 * 8 * 4);
  }
  SECTION("sampled sources") {
    Fabric f = must(topogen::dragonfly({.a = 4, .p = 2, .h = 2, .g = 5}));
    testing::assign_lids(f);
    check_matches_traces(f, minhop_tables(f).lfts, {.source_stride = 3});
  }
  SECTION("scrambled tables: drops, loops, wrong ports") {
    Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 2}));
    testing::assign_lids(f, 1);
    UnicastTables t = minhop_tables(f);
    scramble(f, t, 7, 3);
    const CheckSummary s = traced_summary(f, t.lfts);
    REQUIRE(s.looping > 0);
    REQUIRE(s.unreachable > 0);
    REQUIRE(s.longer_than_shortest > 0);
    check_matches_traces(f, t.lfts, {.max_problems = 1000});
  }
  // Min-hop's tables take the checker's shortest-forest way (every entry a
  // hop nearer); a few entries off it send their targets' switch back to
  // the walk, the others stay on it.
  SECTION("a few scrambled entries among shortest routes") {
    Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
    testing::assign_lids(f, 1);
    UnicastTables t = minhop_tables(f);
    scramble(f, t, 97, 11);
    const CheckSummary s = traced_summary(f, t.lfts);
    REQUIRE(s.delivered > 0);
    REQUIRE(s.delivered < s.pairs);
    check_matches_traces(f, t.lfts, {.max_problems = 1000});
  }
  SECTION("a detour that still delivers") {
    Fabric f = must(topogen::mesh({.dims = {6}, .torus = true, .hosts_per_switch = 2}));
    testing::assign_lids(f);
    UnicastTables t = minhop_tables(f);
    // Every switch sends the LID of a host on sw-1 the way round the ring
    // that goes down in number: sw-0 crosses five cables to it, not one.
    const auto sw = [&](uint32_t i) { return *f.find_by_name("sw-" + std::to_string(i % 6)); };
    const Port& host = f.node(sw(1)).port(1);
    const Lid lid = f.node(host.remote_node).port(host.remote_port).base_lid;
    for (uint32_t i : {0, 5, 4, 3, 2}) t.lfts[sw(i).value][lid.value] = port_to(f, sw(i), sw(i + 5));
    const CheckSummary s = traced_summary(f, t.lfts);
    REQUIRE(s.all_delivered());
    REQUIRE(s.longer_than_shortest > 0);
    check_matches_traces(f, t.lfts);
  }
  SECTION("tables older than the cables: down ports, a dead host") {
    Fabric f = must(topogen::random_regular({.switches = 12, .degree = 3, .hosts_per_switch = 2, .seed = 4}));
    testing::assign_lids(f);
    const UnicastTables t = minhop_tables(f);
    for (uint32_t n = 0, downed = 0; n < f.node_count() && downed < 3; ++n) {
      if (f.node(NodeIndex{n}).is_switch() && n % 3 == 0) {
        f.node(NodeIndex{n}).port(f.node(NodeIndex{n}).num_ports).state = PortState::down;
        ++downed;
      }
    }
    const PortRef host = testing::endpoint_ports(f)[5];
    f.node(host.node).port(host.port).state = PortState::down;
    REQUIRE(traced_summary(f, t.lfts).unreachable > 0);
    check_matches_traces(f, t.lfts);
  }
  SECTION("lids given twice, a host lid on a switch") {
    Fabric f = must(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 3}));
    testing::assign_lids(f);
    const UnicastTables t = minhop_tables(f);
    const std::vector<PortRef> ends = testing::endpoint_ports(f);
    f.node(ends[1].node).port(ends[1].port).base_lid = f.node(ends[4].node).port(ends[4].port).base_lid;
    for (uint32_t n = 0; n < f.node_count(); ++n) {
      if (!f.node(NodeIndex{n}).is_switch()) continue;
      f.node(NodeIndex{n}).port(0).base_lid = f.node(ends[2].node).port(ends[2].port).base_lid;
      break;
    }
    check_matches_traces(f, t.lfts, {.max_problems = 100});
  }
  SECTION("back to back") {
    Fabric f = must(topogen::back_to_back({}));
    testing::assign_lids(f);
    std::vector<std::vector<uint8_t>> none(f.node_count());
    check_matches_traces(f, none);
    CHECK(check_all_pairs(f, none).delivered == 2);
  }
}

// sw-0 - sw-1 - ... in a line, one host on each.
struct CheckedLine {
  Fabric f;
  std::vector<NodeIndex> sw;
  std::vector<PortRef> host;
  std::vector<Lid> host_lid;
  UnicastTables tables;

  explicit CheckedLine(uint32_t n, bool ring = false) {
    f = must(topogen::mesh({.dims = {n}, .torus = ring, .hosts_per_switch = 1}));
    testing::assign_lids(f);
    for (uint32_t i = 0; i < n; ++i) {
      sw.push_back(*f.find_by_name("sw-" + std::to_string(i)));
      const Port& p = f.node(sw[i]).port(1);
      host.push_back(PortRef{p.remote_node, p.remote_port});
      host_lid.push_back(f.node(host[i].node).port(host[i].port).base_lid);
    }
    tables = minhop_tables(f);
  }
  uint8_t& entry(uint32_t s, Lid lid) { return tables.lfts[sw[s].value][lid.value]; }
};

TEST_CASE("check_all_pairs counts outcomes, hops and link loads", "[routing][check]") {
  CheckedLine l(3);
  SECTION("all delivered") {
    const CheckSummary s = check_all_pairs(l.f, l.tables.lfts);
    CHECK(s.pairs == 6);
    CHECK(s.delivered == 6);
    CHECK(s.all_delivered());
    CHECK(s.max_hops == 4);
    CHECK(s.mean_hops == Approx((3 + 3 + 4) * 2 / 6.0));
    CHECK(s.switch_links == 4);
    // sw-0 -> sw-1 carries host0 -> host1 and host0 -> host2.
    CHECK(s.max_link_routes == 2);
    CHECK(s.mean_link_routes == Approx(2.0));
    CHECK(s.stddev_link_routes == Approx(0.0));
    CHECK(s.max_stretch == Approx(1.0));
    CHECK(s.longer_than_shortest == 0);
    CHECK(s.problems.empty());
    CHECK(s.to_string() ==
          "pairs 6: delivered 6, unreachable 0, looping 0; hops max 4 mean 3.33; "
          "stretch max 1.00 mean 1.00, 0 longer than shortest; "
          "routes per switch link max 2 mean 2.0 stddev 0.0 over 4 links");
  }
  SECTION("a loop and a hole") {
    l.entry(1, l.host_lid[2]) = 3;
    l.entry(1, l.host_lid[0]) = kNoRoute;
    const CheckSummary s = check_all_pairs(l.f, l.tables.lfts, {.max_problems = 1});
    CHECK(s.pairs == 6);
    CHECK(s.looping == 2);      // host0 and host1 to host2
    CHECK(s.unreachable == 2);  // host1 and host2 to host0
    CHECK(s.delivered == 2);
    CHECK_FALSE(s.all_delivered());
    REQUIRE(s.problems.size() == 1);
    CHECK_THAT(s.problems[0], Catch::Contains("-> lid"));
    // host0 -> host1 and host2 -> host1 are left, one route on each of two links.
    CHECK(s.max_link_routes == 1);
    CHECK(s.mean_link_routes == Approx(0.5));
  }
  SECTION("sampled sources: link loads 2, 1, 2, 1") {
    const CheckSummary s = check_all_pairs(l.f, l.tables.lfts, {.source_stride = 2});
    CHECK(s.pairs == 4);
    CHECK(s.delivered == 4);
    CHECK(s.max_link_routes == 2);
    CHECK(s.mean_link_routes == Approx(1.5));
    CHECK(s.stddev_link_routes == Approx(0.5));
  }
}

TEST_CASE("routes per link: max, mean and standard deviation over every link", "[routing][check]") {
  // Four switches in a line: each direction carries 3, 4, 3 routes.
  CheckedLine l(4);
  const CheckSummary s = check_all_pairs(l.f, l.tables.lfts);
  CHECK(s.switch_links == 6);
  CHECK(s.max_link_routes == 4);
  CHECK(s.mean_link_routes == Approx(20.0 / 6));
  CHECK(s.stddev_link_routes == Approx(std::sqrt(2.0) / 3));
  // Per port: each switch's host port carries the 3 routes into its host,
  // and the cables between switches 3, 4, 3 each way.
  const auto routes_at = [&](uint32_t from, uint32_t to) {
    const PortRef port{l.sw[from], port_to(l.f, l.sw[from], to < 4 ? l.sw[to] : l.host[from].node)};
    for (const PortRoutes& r : s.port_routes)
      if (r.port == port) return std::pair{r.routes, r.to_switch};
    FAIL("no load for that port");
    return std::pair{uint64_t{0}, false};
  };
  CHECK(s.port_routes.size() == 6 + 4);
  for (uint32_t i = 0; i < 4; ++i) CHECK(routes_at(i, 4) == std::pair{uint64_t{3}, false});
  CHECK(routes_at(0, 1) == std::pair{uint64_t{3}, true});
  CHECK(routes_at(1, 2) == std::pair{uint64_t{4}, true});
  CHECK(routes_at(2, 3) == std::pair{uint64_t{3}, true});
  CHECK(routes_at(3, 2) == std::pair{uint64_t{3}, true});
  CHECK(routes_at(2, 1) == std::pair{uint64_t{4}, true});
  CHECK(routes_at(1, 0) == std::pair{uint64_t{3}, true});
  // A cable that is down counts as no link; the routes over it fail.
  l.f.node(l.sw[3]).port(port_to(l.f, l.sw[3], l.sw[2])).state = PortState::down;
  const CheckSummary cut = check_all_pairs(l.f, l.tables.lfts);
  CHECK(cut.switch_links == 4);
  CHECK(cut.unreachable == 6);
  CHECK(cut.max_link_routes == 2);  // sw-0 -> sw-1: host0 to host1 and host2
}

TEST_CASE("stretch: a route the long way round a ring", "[routing][check]") {
  // Five switches in a ring; host1's LID is sent the long way from sw-0:
  // sw-0, sw-4, sw-3, sw-2, sw-1.
  CheckedLine l(5, true);
  const Lid to = l.host_lid[1];
  for (uint32_t s : {0u, 4u, 3u, 2u}) l.entry(s, to) = port_to(l.f, l.sw[s], l.sw[(s + 4) % 5]);
  const CheckSummary s = check_all_pairs(l.f, l.tables.lfts);
  REQUIRE(s.all_delivered());
  CHECK(s.pairs == 20);
  // host0: 6 cables for 3; host4: 5 for 4; host3: 4 for 4 as before; host2: 3.
  CHECK(s.max_hops == 6);
  CHECK(s.max_stretch == Approx(2.0));
  CHECK(s.longer_than_shortest == 2);
  CHECK(s.mean_stretch == Approx((18 + 2.0 + 5.0 / 4) / 20));
  check_matches_traces(l.f, l.tables.lfts);
}

TEST_CASE("check_routes: pairs, channel dependencies and the engine's promise", "[routing][check][cdg]") {
  SECTION("a line: one summary line") {
    CheckedLine l(3);
    const RouteCheck c = check_routes(l.f, l.tables.lfts, {.engine = "minhop"});
    CHECK(c.ok());
    CHECK(c.to_string() ==
          "routing check (minhop): 6/6 pairs delivered, hops max 4 mean 3.3, stretch max 1.00, "
          "link routes max 2 mean 2.0 stddev 0.0, cdg acyclic");
  }
  SECTION("failed pairs") {
    CheckedLine l(3);
    l.entry(1, l.host_lid[2]) = 3;
    l.entry(1, l.host_lid[0]) = kNoRoute;
    const RouteCheck c = check_routes(l.f, l.tables.lfts);
    CHECK_FALSE(c.ok());
    CHECK_THAT(c.to_string(), Catch::StartsWith("routing check: 2/6 pairs delivered (2 unreachable, 2 looping), "));
  }
  SECTION("min-hop on a torus has a cycle, which only an engine promising none fails") {
    Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 1}));
    testing::assign_lids(f);
    const UnicastTables t = minhop_tables(f);
    const RouteCheck minhop = check_routes(f, t.lfts, {.engine = "minhop"});
    REQUIRE(minhop.has_cycle());
    CHECK(minhop.pairs.all_delivered());
    CHECK(minhop.ok());
    CHECK_THAT(minhop.to_string(), Catch::Contains(", cdg cycle on vl 0: "));
    CHECK_THAT(minhop.to_string(), Catch::Contains(minhop.cdg->cycle_text));
    const RouteCheck claimed = check_routes(f, t.lfts, {.engine = "updn"});
    CHECK(claimed.deadlock_free_promised);
    CHECK_FALSE(claimed.ok());

    const RoutingGraph graph = must(RoutingGraph::build(f));
    UpDnEngine updn;
    const UnicastTables u = must(updn.compute(RoutingInput{graph}));
    const RouteCheck ok = check_routes(f, u.lfts, {.engine = "updn"});
    CHECK(ok.ok());
    CHECK_THAT(ok.to_string(), Catch::EndsWith(", cdg acyclic"));
  }
  SECTION("per vl") {
    CheckedLine l(3);
    RouteCheckOptions options;
    options.vls.destination_vl = [](Lid lid) { return static_cast<uint8_t>(lid.value % 2); };
    const RouteCheck c = check_routes(l.f, l.tables.lfts, options);
    CHECK(c.ok());
    CHECK_THAT(c.to_string(), Catch::EndsWith(", cdg acyclic on vls 0,1"));
    options.vls.destination_vl = [](Lid) { return uint8_t{16}; };
    const RouteCheck bad = check_routes(l.f, l.tables.lfts, options);
    CHECK_FALSE(bad.ok());
    CHECK_THAT(bad.to_string(), Catch::Contains("cdg not checked: vl 16"));
  }
  CHECK(promises_deadlock_freedom("updn"));
  CHECK(promises_deadlock_freedom("dnup"));
  CHECK(promises_deadlock_freedom("ftree"));
  CHECK(promises_deadlock_freedom("torus-2QoS"));
  CHECK_FALSE(promises_deadlock_freedom("dor"));
  CHECK_FALSE(promises_deadlock_freedom("minhop"));
  CHECK_FALSE(promises_deadlock_freedom(""));
}

TEST_CASE("the route checker takes every pair of a 45k-endpoint fat tree", "[routing][check][scale]") {
  // 1408 leaves of 32 hosts, 1408 middle and 1024 top switches (see
  // minhop_scale.tests.cpp): 2.03 billion pairs. The time is printed, not
  // asserted: the machine decides it.
  Fabric f = must(topogen::xgft({.down = {32, 32, 44}, .up = {1, 32, 32}}));
  REQUIRE(f.ca_count() == 45056);
  testing::assign_lids(f);
  const UnicastTables tables = minhop_tables(f);

  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const CheckSummary s = check_all_pairs(f, tables.lfts);
  const auto t1 = clock::now();
  INFO(s.to_string());
  CHECK(s.pairs == uint64_t{45056} * 45055);
  CHECK(s.all_delivered());
  CHECK(s.max_hops == 6);
  CHECK(s.max_stretch == 1.0);  // min-hop: every route a shortest one
  CHECK(s.switch_links == 4 * 45056);
  // Every route crosses all but its first and last cable between switches.
  CHECK(s.mean_link_routes == Approx((s.mean_hops - 2) * static_cast<double>(s.delivered) / s.switch_links));
  CHECK(s.max_link_routes >= s.mean_link_routes);

  const RouteCheck c = check_routes(f, tables.lfts, {.engine = "minhop"});
  const auto t2 = clock::now();
  CHECK(c.ok());
  using ms = std::chrono::duration<double, std::milli>;
  WARN("all-pairs check of 45056 endpoints / 3840 switches: " << ms(t1 - t0).count() << " ms; with the cdg "
                                                              << ms(t2 - t1).count() << " ms; " << c.to_string());
}

}  // namespace
}  // namespace ibsm::routing
