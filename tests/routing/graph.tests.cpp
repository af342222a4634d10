#include "routing/graph.h"

#include <vector>

#include <catch2/catch.hpp>

#include "routing/engine.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

TEST_CASE("the graph has the switches and one edge per usable cable end", "[routing][graph]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2, .links_per_pair = 2}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  CHECK(graph.switch_count() == 5);
  CHECK(graph.edge_count() == 2 * 3 * 2 * 2);  // both directions of every parallel cable
  CHECK(&graph.fabric() == &f);

  const SwitchGraph& g = graph.graph();
  for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
    const NodeIndex node = graph.node_of(sw);
    CHECK(graph.switch_of(node) == sw);
    CHECK(g[sw].node == node);
    // Out-edges in port order; each names the cable's two ports.
    int last_port = 0;
    for (const auto& e : boost::make_iterator_range(boost::out_edges(sw, g))) {
      const SwitchEdge& edge = g[e];
      CHECK(edge.port > last_port);
      last_port = edge.port;
      const Port& port = f.node(node).port(edge.port);
      CHECK(port.remote_node == graph.node_of(boost::target(e, g)));
      CHECK(port.remote_port == edge.remote_port);
    }
  }
  // Leaf 0 has two parallel cables to each spine: four out-edges to two targets.
  const SwitchId leaf0 = graph.switch_of(*f.find_by_name("leaf-0"));
  CHECK(boost::out_degree(leaf0, g) == 4);
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    if (!f.node(NodeIndex{n}).is_switch()) CHECK(graph.switch_of(NodeIndex{n}) == kNoSwitch);
  }
}

TEST_CASE("destinations: a switch's own lid on port 0, each host through its cable", "[routing][graph]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 3}));
  assign_lids(f, 1);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  CHECK(graph.destinations().size() == 3 + 6);
  for (SwitchId sw = 0; sw < graph.switch_count(); ++sw) {
    const NodeIndex node = graph.node_of(sw);
    const auto dests = graph.destinations_of(sw);
    REQUIRE(!dests.empty());
    CHECK(dests[0].owner == PortRef{node, 0});
    CHECK(dests[0].port == 0);
    CHECK(dests[0].base == f.node(node).port(0).base_lid);
    for (size_t i = 1; i < dests.size(); ++i) {
      const Destination& d = dests[i];
      CHECK(d.sw == sw);
      CHECK(d.port > dests[i - 1].port);
      const Port& via = f.node(node).port(d.port);
      CHECK(via.remote_node == d.owner.node);
      CHECK(via.remote_port == d.owner.port);
      CHECK(d.lmc == 1);
      CHECK(d.lid_count() == 2);
      CHECK(d.base == f.node(d.owner.node).port(d.owner.port).base_lid);
    }
  }
  // The lid map covers both lids of every host port and nothing above the top.
  for (const Destination& d : graph.destinations()) {
    for (uint32_t i = 0; i < d.lid_count(); ++i) CHECK(graph.owner_of(Lid{static_cast<uint16_t>(d.base.value + i)}) == d.owner);
  }
  CHECK_FALSE(graph.owner_of(Lid{static_cast<uint16_t>(graph.max_lid() + 1)}).node.valid());
  CHECK_FALSE(graph.owner_of(Lid{0}).node.valid());
}

TEST_CASE("down ports drop out of the graph", "[routing][graph]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 2}));
  assign_lids(f);
  const NodeIndex leaf0 = *f.find_by_name("leaf-0");
  // Leaf ports: 2 hosts, then one per spine.
  f.node(leaf0).port(3).state = PortState::down;  // to spine 0: the spine's end still says INIT
  const NodeIndex host = f.node(leaf0).port(1).remote_node;
  f.node(host).port(1).state = PortState::down;
  CHECK_FALSE(cable_usable(f, PortRef{leaf0, 3}));
  CHECK_FALSE(cable_usable(f, PortRef{f.node(leaf0).port(3).remote_node, f.node(leaf0).port(3).remote_port}));
  CHECK(cable_usable(f, PortRef{leaf0, 4}));

  const RoutingGraph graph = must(RoutingGraph::build(f));
  CHECK(graph.edge_count() == 2 * 3);
  CHECK(graph.destinations().size() == 4 + 3);  // the downed host is no destination
  CHECK(graph.owner_of(f.node(host).port(1).base_lid) == PortRef{host, 1});  // but still owns its lid
}

TEST_CASE("the graph rejects lids two ports claim and lids beyond the unicast range", "[routing][graph]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 2}));
  assign_lids(f);
  SECTION("duplicate") {
    const auto hosts = testing::endpoint_ports(f);
    f.node(hosts[1].node).port(hosts[1].port).base_lid = f.node(hosts[0].node).port(hosts[0].port).base_lid;
    const auto r = RoutingGraph::build(f);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::invalid_argument);
    CHECK_THAT(r.status().message(), Catch::Contains("is claimed by"));
  }
  SECTION("overlapping lmc range") {
    const auto hosts = testing::endpoint_ports(f);
    Port& p = f.node(hosts[0].node).port(hosts[0].port);
    p.lmc = 2;  // now covers the next host's lid too
    CHECK_FALSE(RoutingGraph::build(f).ok());
  }
  SECTION("beyond 0xbfff") {
    const auto hosts = testing::endpoint_ports(f);
    Port& p = f.node(hosts[0].node).port(hosts[0].port);
    p.base_lid = Lid{0xBFFE};
    p.lmc = 1;
    CHECK(RoutingGraph::build(f).ok());
    p.lmc = 2;
    const auto r = RoutingGraph::build(f);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("unicast range"));
  }
}

TEST_CASE("unrouted tables: every switch knows only its own lid", "[routing][graph]") {
  Fabric f = must(topogen::kary_ntree({.k = 2, .n = 2}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables t = UnicastTables::unrouted(graph);
  CHECK(t.linear_fdb_top.value == graph.max_lid());
  CHECK(validate_tables(graph, t).ok());
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    const Node& node = f.node(NodeIndex{n});
    if (!node.is_switch()) {
      CHECK(t.lfts[n].empty());
      continue;
    }
    for (uint32_t lid = 0; lid <= graph.max_lid(); ++lid) {
      CHECK(t.lfts[n][lid] == (lid == node.port(0).base_lid.value ? 0 : kNoRoute));
    }
  }
  CHECK(t.port(NodeIndex{0}, Lid{0xBFFF}) == kNoRoute);

  UnicastTables bad = t;
  bad.lfts[graph.node_of(0).value][1] = 200;
  CHECK_THAT(validate_tables(graph, bad).message(), Catch::Contains("to port 200"));
  bad = t;
  bad.lfts[graph.node_of(0).value].pop_back();
  CHECK_FALSE(validate_tables(graph, bad).ok());
  bad = t;
  bad.lfts.pop_back();
  CHECK_FALSE(validate_tables(graph, bad).ok());
}

}  // namespace
}  // namespace ibsm::routing
