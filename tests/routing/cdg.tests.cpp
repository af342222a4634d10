#include "routing/cdg.h"

#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/engine.h"
#include "routing/graph.h"
#include "routing/minhop.h"
#include "routing/trace.h"
#include "routing/updn.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

// Tables filled by hand: port(switch, lid) for every LID some port owns,
// besides a switch's own LIDs (port 0).
UnicastTables tables_by(const RoutingGraph& graph, const std::function<uint8_t(NodeIndex, Lid, PortRef owner)>& port) {
  UnicastTables t = UnicastTables::unrouted(graph);
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    const NodeIndex sw = graph.node_of(s);
    for (uint32_t lid = 1; lid <= graph.max_lid(); ++lid) {
      const PortRef owner = graph.owner_of(Lid{static_cast<uint16_t>(lid)});
      if (!owner.node.valid() || owner.node == sw) continue;
      t.lfts[sw.value][lid] = port(sw, Lid{static_cast<uint16_t>(lid)}, owner);
    }
  }
  return t;
}

// The port of `sw` cabled to `owner`, when it is a CA hanging off it; 0 otherwise.
uint8_t port_toward_ca(const Fabric& f, NodeIndex sw, PortRef owner) {
  const Port& p = f.node(owner.node).port(owner.port);
  return owner.port != 0 && p.remote_node == sw ? p.remote_port : uint8_t{0};
}

// Every switch sends every LID it does not deliver itself out of port 2:
// on a ring from generators.h's mesh, the "+" direction all the way round.
UnicastTables clockwise(const Fabric& f, const RoutingGraph& graph) {
  return tables_by(graph, [&](NodeIndex sw, Lid, PortRef owner) {
    const uint8_t local = port_toward_ca(f, sw, owner);
    return local != 0 ? local : uint8_t{2};
  });
}

// The cycle really is one: each channel leads to the switch the next one
// leaves, and for each consecutive pair some LID is sent on both (every
// switch being a source, that makes the dependency).
void check_cycle_is_real(const Fabric& f, const UnicastTables& t, const CdgReport& r) {
  REQUIRE(r.cycle.size() >= 2);
  for (size_t i = 0; i < r.cycle.size(); ++i) {
    const CdgChannel& here = r.cycle[i];
    const CdgChannel& next = r.cycle[(i + 1) % r.cycle.size()];
    INFO("channel " << i << " of " << r.cycle_text);
    CHECK(here.vl == next.vl);
    CHECK(f.node(here.from.node).port(here.from.port).remote_node == next.from.node);
    bool shared = false;
    const std::vector<uint8_t>& a = t.lfts[here.from.node.value];
    const std::vector<uint8_t>& b = t.lfts[next.from.node.value];
    for (size_t lid = 0; lid < a.size() && !shared; ++lid) shared = a[lid] == here.from.port && b[lid] == next.from.port;
    CHECK(shared);
  }
}

TEST_CASE("a line of switches: an acyclic cdg with the dependencies counted by hand", "[routing][cdg]") {
  // sw-0 -- sw-1 -- sw-2, a host on each (port 1), "+" port 2 to "-" port 3.
  Fabric f = must(topogen::mesh({.dims = {3}, .torus = false}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables t = testing::route_minhop(graph);
  const CdgReport r = must(check_channel_dependencies(f, t.lfts));
  INFO(r.to_string());
  // Channels: the two cables both ways, and three hosts' injection.
  CHECK(r.channels == 4 + 3);
  // sw-0 -> sw-1 -> sw-2 and back for sw-2's and sw-0's lids; each host
  // into every way out of its switch: 1 + 2 + 1.
  CHECK(r.dependencies == 2 + 4);
  CHECK(r.acyclic());
  REQUIRE(r.vls.size() == 1);
  CHECK(r.vls[0].vl == 0);
  CHECK(r.vls[0].acyclic);
  CHECK(r.cycle_text.empty());
  CHECK_THAT(r.to_string(), Catch::Contains("acyclic"));
}

TEST_CASE("routes forced round a ring of three switches close a cycle", "[routing][cdg]") {
  Fabric f = must(topogen::mesh({.dims = {3}, .torus = true}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables t = clockwise(f, graph);
  const CheckSummary s = check_all_pairs(f, t.lfts);
  REQUIRE(s.all_delivered());  // the tables work; only the dependencies go round

  const CdgReport r = must(check_channel_dependencies(f, t.lfts));
  INFO(r.to_string());
  CHECK_FALSE(r.acyclic());
  REQUIRE(r.cycle.size() == 3);
  for (const CdgChannel& c : r.cycle) {
    CHECK(c.from.port == 2);
    CHECK(c.vl == 0);
  }
  check_cycle_is_real(f, t, r);
  for (const char* name : {"sw-0", "sw-1", "sw-2"}) CHECK_THAT(r.cycle_text, Catch::Contains(name));
  CHECK_THAT(r.cycle_text, Catch::StartsWith("vl 0: 0x0002c903000000"));
  CHECK_THAT(r.to_string(), Catch::Contains("cycle on vl 0"));

  // Min-hop on the same ring: every switch is one hop from every other, no
  // route turns at a switch, no cycle.
  const CdgReport minhop = must(check_channel_dependencies(f, testing::route_minhop(graph).lfts));
  INFO(minhop.to_string());
  CHECK(minhop.acyclic());
}

TEST_CASE("minhop on rings and tori has cycles the cdg finds, updn on them none", "[routing][cdg]") {
  const std::vector<std::pair<std::string, std::function<Result<Fabric>()>>> fabrics = {
      {"ring of 5", [] { return topogen::mesh({.dims = {5}, .torus = true}); }},
      {"4x4 torus", [] { return topogen::mesh({.dims = {4, 4}, .torus = true}); }},
      {"3x3x3 torus", [] { return topogen::mesh({.dims = {3, 3, 3}, .torus = true}); }},
  };
  for (const auto& [name, make] : fabrics) {
    DYNAMIC_SECTION(name) {
      Fabric f = must(make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      const UnicastTables minhop = testing::route_minhop(graph);
      const CdgReport cyclic = must(check_channel_dependencies(f, minhop.lfts));
      INFO(cyclic.to_string());
      CHECK_FALSE(cyclic.acyclic());
      check_cycle_is_real(f, minhop, cyclic);

      UpDnEngine updn;
      const UnicastTables t = must(updn.compute(RoutingInput{graph}));
      const CdgReport r = must(check_channel_dependencies(f, t.lfts));
      INFO(r.to_string());
      CHECK(r.acyclic());
      CHECK(r.channels == cyclic.channels);
    }
  }
}

TEST_CASE("vls split the dependencies of a ring", "[routing][cdg][vl]") {
  Fabric f = must(topogen::mesh({.dims = {3}, .torus = true}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables t = clockwise(f, graph);
  // The switch (0, 1, 2) a port belongs to or hangs off.
  const auto ring_index = [&](PortRef p) -> uint32_t {
    const NodeIndex sw = f.node(p.node).is_switch() ? p.node : f.node(p.node).port(p.port).remote_node;
    return graph.switch_of(sw);
  };

  SECTION("a dateline by path: packets that cross the wrap from sw-2 to sw-0 travel on vl 1") {
    CdgOptions options;
    options.path_vl = [&](PortRef source, Lid dlid) {
      return uint8_t{ring_index(source) > ring_index(graph.owner_of(dlid)) ? uint8_t{1} : uint8_t{0}};
    };
    const CdgReport r = must(check_channel_dependencies(f, t.lfts, options));
    INFO(r.to_string());
    CHECK(r.acyclic());
    REQUIRE(r.vls.size() == 2);
    CHECK(r.vls[0].vl == 0);
    CHECK(r.vls[1].vl == 1);
    // The same split on vl 0 alone is the cycle again.
    const CdgReport one = must(check_channel_dependencies(f, t.lfts));
    CHECK(r.dependencies >= one.dependencies);  // a host's packets may now wait on two vls
    CHECK_FALSE(one.acyclic());
  }
  SECTION("by destination: the lids of sw-0 on vl 1") {
    CdgOptions options;
    options.destination_vl = [&](Lid dlid) { return uint8_t{ring_index(graph.owner_of(dlid)) == 0 ? uint8_t{1} : uint8_t{0}}; };
    const CdgReport r = must(check_channel_dependencies(f, t.lfts, options));
    INFO(r.to_string());
    CHECK(r.acyclic());
    CHECK(r.vls.size() == 2);
  }
  SECTION("everything on vl 2: the cycle is reported on vl 2, the same by path or by destination") {
    CdgOptions by_path;
    by_path.path_vl = [](PortRef, Lid) { return uint8_t{2}; };
    CdgOptions by_destination;
    by_destination.destination_vl = [](Lid) { return uint8_t{2}; };
    const CdgReport a = must(check_channel_dependencies(f, t.lfts, by_path));
    const CdgReport b = must(check_channel_dependencies(f, t.lfts, by_destination));
    const CdgReport plain = must(check_channel_dependencies(f, t.lfts));
    for (const CdgReport* r : {&a, &b}) {
      INFO(r->to_string());
      CHECK_FALSE(r->acyclic());
      REQUIRE(r->vls.size() == 1);
      CHECK(r->vls[0].vl == 2);
      CHECK(r->cycle.front().vl == 2);
      CHECK_THAT(r->cycle_text, Catch::StartsWith("vl 2:"));
      CHECK(r->dependencies == plain.dependencies);
    }
  }
  SECTION("a vl beyond 15 is an error") {
    CdgOptions options;
    options.destination_vl = [](Lid) { return uint8_t{16}; };
    const auto r = check_channel_dependencies(f, t.lfts, options);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::invalid_argument);
    CdgOptions by_path;
    by_path.path_vl = [](PortRef, Lid) { return uint8_t{20}; };
    CHECK_FALSE(check_channel_dependencies(f, t.lfts, by_path).ok());
  }
}

TEST_CASE("per-path vls agree with per-destination vls when the vl depends on the destination only",
          "[routing][cdg][vl]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 2}));
  assign_lids(f, 1);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables t = testing::route_minhop(graph);
  const auto vl = [](Lid dlid) { return static_cast<uint8_t>(dlid.value % 3); };
  CdgOptions by_destination;
  by_destination.destination_vl = vl;
  CdgOptions by_path;
  by_path.path_vl = [&](PortRef, Lid dlid) { return vl(dlid); };
  const CdgReport a = must(check_channel_dependencies(f, t.lfts, by_destination));
  const CdgReport b = must(check_channel_dependencies(f, t.lfts, by_path));
  INFO(a.to_string() << " / " << b.to_string());
  CHECK(a.channels == b.channels);
  CHECK(a.dependencies == b.dependencies);
  REQUIRE(a.vls.size() == b.vls.size());
  for (size_t i = 0; i < a.vls.size(); ++i) {
    CHECK(a.vls[i].vl == b.vls[i].vl);
    CHECK(a.vls[i].dependencies == b.vls[i].dependencies);
    CHECK(a.vls[i].acyclic == b.vls[i].acyclic);
  }
  CHECK(a.acyclic() == b.acyclic());
}

TEST_CASE("tables that bounce a lid between two switches show as a cycle", "[routing][cdg]") {
  Fabric f = must(topogen::mesh({.dims = {2}, .torus = false}));  // sw-0 port 2 -- port 3 sw-1
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  UnicastTables t = testing::route_minhop(graph);
  const NodeIndex sw0 = *f.find_by_name("sw-0"), sw1 = *f.find_by_name("sw-1");
  // host on sw-1: sw-1 sends its lid back to sw-0, which sends it to sw-1.
  const NodeIndex host = f.node(sw1).port(1).remote_node;
  const Lid lost = f.node(host).port(1).base_lid;
  REQUIRE(t.lfts[sw0.value][lost.value] == 2);
  t.lfts[sw1.value][lost.value] = 3;
  CHECK(RouteTracer(f, t.lfts).trace(PortRef{sw0, 0}, lost).outcome == TraceOutcome::loop);
  const CdgReport r = must(check_channel_dependencies(f, t.lfts));
  INFO(r.to_string());
  CHECK_FALSE(r.acyclic());
  CHECK(r.cycle.size() == 2);
  check_cycle_is_real(f, t, r);
}

TEST_CASE("tables that drop lids or point at dead ports make no dependencies", "[routing][cdg]") {
  Fabric f = must(topogen::mesh({.dims = {3}, .torus = false}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables none = UnicastTables::unrouted(graph);
  const CdgReport r = must(check_channel_dependencies(f, none.lfts));
  CHECK(r.channels == 7);
  CHECK(r.dependencies == 0);
  CHECK(r.acyclic());
  CHECK(r.vls.empty());
  // Port 3 of sw-0 has no cable; port 200 does not exist; short tables.
  const UnicastTables odd = tables_by(graph, [](NodeIndex, Lid lid, PortRef) {
    return static_cast<uint8_t>(lid.value % 2 == 0 ? 3 : 200);
  });
  CHECK(must(check_channel_dependencies(f, odd.lfts)).acyclic());
  std::vector<std::vector<uint8_t>> short_tables(f.node_count());
  CHECK(must(check_channel_dependencies(f, short_tables)).dependencies == 0);
}

TEST_CASE("a fabric without switches has no channels", "[routing][cdg]") {
  Fabric f = must(topogen::back_to_back({}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const CdgReport r = must(check_channel_dependencies(f, UnicastTables::unrouted(graph).lfts));
  CHECK(r.channels == 0);
  CHECK(r.dependencies == 0);
  CHECK(r.acyclic());
}

TEST_CASE("a switch's own packets to a ca count as traffic, switch-to-switch smps do not", "[routing][cdg]") {
  // A line of three switches with no hosts: their packets to each other are
  // SMPs on VL15, without flow-control credits: no dependency at all, though
  // sw-0's packets to sw-2 turn at sw-1.
  Fabric bare = must(topogen::mesh({.dims = {3}, .torus = false, .hosts_per_switch = 0}));
  assign_lids(bare);
  const RoutingGraph bare_graph = must(RoutingGraph::build(bare));
  const CdgReport none = must(check_channel_dependencies(bare, testing::route_minhop(bare_graph).lfts));
  CHECK(none.channels == 4);
  CHECK(none.dependencies == 0);

  // The same line with one host, at an end switch (the other hosts' cables
  // are down). The far end switch's packets to the host turn at the middle
  // switch (one dependency); the host's packets to the other switches' LIDs
  // wait from its injection channel for the first cable and, toward the far
  // end, turn at the middle switch (two more): exactly three.
  Fabric f = must(topogen::mesh({.dims = {3}, .torus = false, .hosts_per_switch = 1}));
  bool kept = false;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    Node& ca = f.node(NodeIndex{n});
    if (ca.is_switch()) continue;
    const Node& sw = f.node(ca.port(1).remote_node);
    unsigned switch_neighbours = 0;
    for (unsigned p = 1; p <= sw.num_ports; ++p) {
      const Port& port = sw.port(static_cast<uint8_t>(p));
      if (port.connected() && f.node(port.remote_node).is_switch()) ++switch_neighbours;
    }
    if (switch_neighbours == 1 && !kept) {
      kept = true;
    } else {
      ca.port(1).state = PortState::down;
    }
  }
  REQUIRE(kept);
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const CdgReport r = must(check_channel_dependencies(f, testing::route_minhop(graph).lfts));
  CHECK(r.channels == 5);  // four between switches, the host's injection
  CHECK(r.dependencies == 3);
}

TEST_CASE("sl2vl mode: a ring that deadlocks on one vl is acyclic with a dateline in the sls", "[routing][cdg][sl2vl]") {
  // A ring of five, every route clockwise: packets from sw-4 to sw-1 wait
  // on the cables 4->0, 0->1, so the dependencies go all the way round.
  Fabric f = must(topogen::mesh({.dims = {5}, .torus = true}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables t = clockwise(f, graph);
  REQUIRE(check_all_pairs(f, t.lfts).all_delivered());
  const auto ring_index = [&](PortRef p) -> uint32_t {
    const NodeIndex sw = f.node(p.node).is_switch() ? p.node : f.node(p.node).port(p.port).remote_node;
    return graph.switch_of(sw);
  };
  // SL 1 for the clockwise paths that cross the wrap cable sw-4 -> sw-0.
  const auto crosses = [&](PortRef source, Lid dlid) {
    return uint8_t{ring_index(source) > ring_index(graph.owner_of(dlid)) ? uint8_t{1} : uint8_t{0}};
  };
  const auto is_ca = [&](NodeIndex n) { return !f.node(n).is_switch(); };

  SECTION("every sl on vl 0: the cycle, as in plain mode") {
    CdgOptions options;
    options.path_sl = crosses;
    options.sl2vl = [](NodeIndex, uint8_t, uint8_t, uint8_t) { return uint8_t{0}; };
    const CdgReport r = must(check_channel_dependencies(f, t.lfts, options));
    const CdgReport plain = must(check_channel_dependencies(f, t.lfts));
    INFO(r.to_string());
    CHECK_FALSE(r.acyclic());
    CHECK_FALSE(plain.acyclic());
    CHECK(r.dependencies == plain.dependencies);
    CHECK(r.cycle.size() == 5);
    CHECK_THAT(r.cycle_text, Catch::StartsWith("vl 0:"));
    check_cycle_is_real(f, t, r);
  }
  SECTION("shortest routes: the ring's vl from the sl, the cas' on vl 0: the vl changes at the first switch, and no cycle") {
    // Each way round at most two hops; SL 1 for a path over either wrap cable.
    const auto forward = [&](uint32_t from, uint32_t to) { return (to + 5 - from) % 5 <= 2; };
    const UnicastTables shortest = tables_by(graph, [&](NodeIndex sw, Lid lid, PortRef owner) {
      const uint8_t local = port_toward_ca(f, sw, owner);
      if (local != 0) return local;
      return uint8_t{forward(graph.switch_of(sw), ring_index(graph.owner_of(lid))) ? uint8_t{2} : uint8_t{3}};
    });
    REQUIRE(check_all_pairs(f, shortest.lfts).all_delivered());
    CdgOptions options;
    options.path_sl = [&](PortRef source, Lid dlid) {
      const uint32_t a = ring_index(source), b = ring_index(graph.owner_of(dlid));
      return static_cast<uint8_t>((forward(a, b) ? b < a : b > a) ? 1 : 0);
    };
    const CdgReport one_vl = must(check_channel_dependencies(f, shortest.lfts));
    INFO(one_vl.to_string());
    CHECK_FALSE(one_vl.acyclic());
    options.sl2vl = [&](NodeIndex n, uint8_t, uint8_t, uint8_t sl) { return is_ca(n) ? uint8_t{0} : sl; };
    const CdgReport r = must(check_channel_dependencies(f, shortest.lfts, options));
    INFO(r.to_string());
    CHECK(r.acyclic());
    REQUIRE(r.vls.size() == 2);
    CHECK(r.vls[0].vl == 0);
    CHECK(r.vls[1].vl == 1);
    CHECK(r.vls[0].acyclic);
    CHECK(r.vls[1].acyclic);
  }
  SECTION("a vl switched on the wrap cable's arrival only: a cycle through both vls, which no per-vl graph shows") {
    // sw-0 sends what came in over the wrap cable (its "-" port 3) on vl 1;
    // every other hop is on vl 0, so sw-1 puts the packets back on vl 0.
    const NodeIndex sw0 = graph.node_of(0);
    CdgOptions options;
    options.path_sl = [](PortRef, Lid) { return uint8_t{0}; };
    options.sl2vl = [&](NodeIndex n, uint8_t in, uint8_t, uint8_t) { return static_cast<uint8_t>(n == sw0 && in == 3 ? 1 : 0); };
    const CdgReport r = must(check_channel_dependencies(f, t.lfts, options));
    INFO(r.to_string());
    CHECK_FALSE(r.acyclic());
    bool vl0 = false, vl1 = false;
    for (const CdgChannel& c : r.cycle) (c.vl == 0 ? vl0 : vl1) = true;
    CHECK(vl0);
    CHECK(vl1);
    CHECK_THAT(r.cycle_text, Catch::StartsWith("vls: "));
    CHECK_THAT(r.cycle_text, Catch::Contains("port 2 vl 1"));
  }
  SECTION("an sl or vl beyond 15 is an error") {
    CdgOptions options;
    options.path_sl = [](PortRef, Lid) { return uint8_t{16}; };
    options.sl2vl = [](NodeIndex, uint8_t, uint8_t, uint8_t) { return uint8_t{0}; };
    CHECK_FALSE(check_channel_dependencies(f, t.lfts, options).ok());
    options.path_sl = [](PortRef, Lid) { return uint8_t{0}; };
    options.sl2vl = [](NodeIndex, uint8_t, uint8_t, uint8_t) { return uint8_t{16}; };
    CHECK_FALSE(check_channel_dependencies(f, t.lfts, options).ok());
  }
}

TEST_CASE("sl2vl_lookup answers from an engine's tables, and the fallback elsewhere", "[routing][cdg][sl2vl]") {
  Fabric f = must(topogen::mesh({.dims = {3}, .torus = false}));
  std::vector<Sl2VlTable> tables(2);
  tables[0].node = NodeIndex{0};
  tables[0].in_port = 1;
  tables[0].out_port = 2;
  tables[0].vl_of_sl[3] = 5;
  tables[1].node = NodeIndex{1};
  tables[1].in_port = 3;
  tables[1].out_port = 2;
  tables[1].vl_of_sl.fill(7);
  const auto lookup = sl2vl_lookup(f, tables, 9);
  CHECK(lookup(NodeIndex{0}, 1, 2, 3) == 5);
  CHECK(lookup(NodeIndex{0}, 1, 2, 4) == 0);
  CHECK(lookup(NodeIndex{1}, 3, 2, 0) == 7);
  CHECK(lookup(NodeIndex{1}, 2, 3, 0) == 9);
  CHECK(lookup(NodeIndex{2}, 1, 2, 3) == 9);
}

}  // namespace
}  // namespace ibsm::routing
