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

}  // namespace
}  // namespace ibsm::routing
