#include "routing/trace.h"

#include <vector>

#include <catch2/catch.hpp>

#include "routing/engine.h"
#include "routing/graph.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::must;

// sw-0 - sw-1 - sw-2 in a line, one host on each (host port 1 of each
// switch; "+" port 2 cables to the next switch's "-" port 3).
struct Line {
  Fabric f;
  NodeIndex sw[3];
  PortRef host[3];
  Lid host_lid[3];
  UnicastTables tables;

  Line() {
    f = must(topogen::mesh({.dims = {3}, .torus = false, .hosts_per_switch = 1}));
    testing::assign_lids(f);
    for (int i = 0; i < 3; ++i) {
      sw[i] = *f.find_by_name("sw-" + std::to_string(i));
      const Port& p = f.node(sw[i]).port(1);
      host[i] = PortRef{p.remote_node, p.remote_port};
      host_lid[i] = f.node(host[i].node).port(host[i].port).base_lid;
    }
    const RoutingGraph graph = must(RoutingGraph::build(f));
    tables = testing::route_minhop(graph);
  }
  uint8_t& entry(int s, Lid lid) { return tables.lfts[sw[s].value][lid.value]; }
};

TEST_CASE("a traced packet names every switch it crosses", "[routing][trace]") {
  Line l;
  const Trace t = RouteTracer(l.f, l.tables.lfts).trace(l.host[0], l.host_lid[2]);
  REQUIRE(t.outcome == TraceOutcome::delivered);
  CHECK(t.destination == l.host[2]);
  CHECK(t.cables == 4);
  REQUIRE(t.hops.size() == 3);
  CHECK(t.hops[0].node == l.sw[0]);
  CHECK(t.hops[0].in_port == 1);
  CHECK(t.hops[0].out_port == 2);
  CHECK(t.hops[1].node == l.sw[1]);
  CHECK(t.hops[1].in_port == 3);
  CHECK(t.hops[1].out_port == 2);
  CHECK(t.hops[2].node == l.sw[2]);
  CHECK(t.hops[2].in_port == 3);
  CHECK(t.hops[2].out_port == 1);
  CHECK(t.reason.empty());
}

TEST_CASE("a packet to a switch ends at its port 0", "[routing][trace]") {
  Line l;
  const RouteTracer tracer(l.f, l.tables.lfts);
  const Trace t = tracer.trace(l.host[0], l.f.node(l.sw[1]).port(0).base_lid);
  REQUIRE(t.outcome == TraceOutcome::delivered);
  CHECK(t.destination == PortRef{l.sw[1], 0});
  CHECK(t.cables == 2);
  REQUIRE(t.hops.size() == 2);
  CHECK(t.hops[1].out_port == 0);
  // And from a switch: it starts inside it.
  const Trace back = tracer.trace(PortRef{l.sw[1], 0}, l.host_lid[0]);
  REQUIRE(back.outcome == TraceOutcome::delivered);
  CHECK(back.cables == 2);
  CHECK(back.hops[0].in_port == 0);
  // A port's own lid needs no cable at all.
  const Trace self = tracer.trace(l.host[1], l.host_lid[1]);
  CHECK(self.outcome == TraceOutcome::delivered);
  CHECK(self.cables == 0);
}

TEST_CASE("the tracer reports what stops a packet", "[routing][trace]") {
  Line l;
  SECTION("no entry") {
    l.entry(1, l.host_lid[2]) = kNoRoute;
    const Trace t = RouteTracer(l.f, l.tables.lfts).trace(l.host[0], l.host_lid[2]);
    CHECK(t.outcome == TraceOutcome::unreachable);
    CHECK(t.hops.size() == 1);
    CHECK_THAT(t.reason, Catch::Contains("has no route for lid"));
  }
  SECTION("a loop") {
    l.entry(1, l.host_lid[2]) = 3;  // back to sw-0, which sends it here again
    const Trace t = RouteTracer(l.f, l.tables.lfts).trace(l.host[0], l.host_lid[2]);
    CHECK(t.outcome == TraceOutcome::loop);
    CHECK(t.hops.size() == 3);
    CHECK_THAT(t.reason, Catch::Contains("crossed more than 3 switches"));
  }
  SECTION("a down port on the way") {
    l.f.node(l.sw[2]).port(3).state = PortState::down;
    const Trace t = RouteTracer(l.f, l.tables.lfts).trace(l.host[0], l.host_lid[2]);
    CHECK(t.outcome == TraceOutcome::unreachable);
    CHECK_THAT(t.reason, Catch::Contains("no usable link"));
  }
  SECTION("a down source port") {
    l.f.node(l.host[0].node).port(l.host[0].port).state = PortState::down;
    const Trace t = RouteTracer(l.f, l.tables.lfts).trace(l.host[0], l.host_lid[2]);
    CHECK(t.outcome == TraceOutcome::unreachable);
    CHECK(t.hops.empty());
  }
  SECTION("beyond the table") {
    l.tables.lfts[l.sw[0].value].resize(l.host_lid[2].value);
    const Trace t = RouteTracer(l.f, l.tables.lfts).trace(l.host[0], l.host_lid[2]);
    CHECK(t.outcome == TraceOutcome::unreachable);
    CHECK_THAT(t.reason, Catch::Contains("no lft entry"));
  }
  SECTION("port 0 of a switch that does not own the lid") {
    l.entry(1, l.host_lid[2]) = 0;
    CHECK(RouteTracer(l.f, l.tables.lfts).trace(l.host[0], l.host_lid[2]).outcome == TraceOutcome::unreachable);
  }
  SECTION("a port beyond the switch") {
    l.entry(0, l.host_lid[2]) = 9;
    CHECK(RouteTracer(l.f, l.tables.lfts).trace(l.host[0], l.host_lid[2]).outcome == TraceOutcome::unreachable);
  }
  SECTION("to a host that does not own the lid") {
    l.entry(2, l.host_lid[2]) = 3;  // bounce back...
    l.entry(1, l.host_lid[2]) = 1;  // ...to sw-1's host
    const Trace t = RouteTracer(l.f, l.tables.lfts).trace(l.host[0], l.host_lid[2]);
    CHECK(t.outcome == TraceOutcome::unreachable);
    CHECK_THAT(t.reason, Catch::Contains("does not own it"));
  }
}

TEST_CASE("check_all_pairs counts outcomes, hops and link loads", "[routing][trace]") {
  Line l;
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
    CHECK(s.problems.empty());
    CHECK(s.to_string() ==
          "pairs 6: delivered 6, unreachable 0, looping 0; hops max 4 mean 3.33; "
          "routes per switch link max 2 mean 2.0 over 4 links");
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
  }
  SECTION("sampled sources") {
    const CheckSummary s = check_all_pairs(l.f, l.tables.lfts, {.source_stride = 2});
    CHECK(s.pairs == 4);
    CHECK(s.delivered == 4);
  }
}

TEST_CASE("check_all_pairs traces every lid of a port with lmc", "[routing][trace][lmc]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 2}));
  testing::assign_lids(f, 2);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables t = testing::route_minhop(graph);
  CHECK(check_all_pairs(f, t.lfts).pairs == 4 * 3 * 4);
  CHECK(check_all_pairs(f, t.lfts, {.all_lids = false}).pairs == 4 * 3);
}

}  // namespace
}  // namespace ibsm::routing
