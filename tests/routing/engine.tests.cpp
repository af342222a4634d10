#include "routing/engine.h"

#include <optional>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/minhop.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::must;

TEST_CASE("the default hooks have no opinion on sls and vls", "[routing][engine]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 1}));
  testing::assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const RoutingInput input{graph};
  MinHopEngine engine;
  CHECK(engine.path_sl(input, Lid{1}, Lid{2}) == 0);
  CHECK_FALSE(engine.sl2vl(input).has_value());
  CHECK_FALSE(engine.vl_arbitration(input).has_value());
}

// Floods a packet from `from` over the tree's ports the way switches forward
// multicast (every tree port but the one it came in on) and returns the
// endpoint ports it reaches, counting how often each switch sees it.
std::set<PortRef> flood(const Fabric& f, const MulticastTree& tree, PortRef from, bool& duplicate) {
  std::set<PortRef> reached;
  std::vector<int> seen(f.node_count(), 0);
  std::vector<std::pair<NodeIndex, uint8_t>> todo;  // (switch, in port)
  const Port& p = f.node(from.node).port(from.port);
  if (f.node(from.node).is_switch()) {
    todo.push_back({from.node, 0});
  } else {
    todo.push_back({p.remote_node, p.remote_port});
  }
  duplicate = false;
  while (!todo.empty()) {
    const auto [sw, in] = todo.back();
    todo.pop_back();
    if (seen[sw.value]++ > 0) duplicate = true;
    const Node& node = f.node(sw);
    const PortMask& mask = tree.ports[sw.value];
    if (mask.test(0) && in != 0) reached.insert({sw, 0});
    for (unsigned q = 1; q <= node.num_ports; ++q) {
      if (q == in || !mask.test(static_cast<uint8_t>(q))) continue;
      const Port& out = node.port(static_cast<uint8_t>(q));
      if (f.node(out.remote_node).is_switch()) {
        todo.push_back({out.remote_node, out.remote_port});
      } else {
        reached.insert({out.remote_node, out.remote_port});
      }
    }
  }
  return reached;
}

TEST_CASE("the default multicast tree reaches every member once", "[routing][engine][multicast]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 2}));
  testing::assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const std::vector<PortRef> hosts = testing::endpoint_ports(f);
  std::vector<PortRef> members;
  for (size_t i = 0; i < hosts.size(); i += 5) members.push_back(hosts[i]);
  members.push_back(PortRef{graph.node_of(7), 0});  // a switch joins too

  MinHopEngine engine;
  const MulticastTree tree = must(engine.multicast_tree(RoutingInput{graph}, Lid{0xC000}, members));
  REQUIRE(tree.ports.size() == f.node_count());
  size_t tree_switches = 0, tree_ports = 0;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    if (f.node(NodeIndex{n}).is_switch()) {
      if (!tree.ports[n].empty()) ++tree_switches;
      for (unsigned p = 0; p < 256; ++p) tree_ports += tree.ports[n].test(static_cast<uint8_t>(p));
    } else {
      CHECK(tree.ports[n].empty());
    }
  }
  // A tree: switch-to-switch ports come in pairs, one cable fewer than switches.
  CHECK(tree_ports - members.size() == 2 * (tree_switches - 1));
  const std::set<PortRef> all(members.begin(), members.end());
  for (const PortRef& m : members) {
    bool duplicate = false;
    std::set<PortRef> reached = flood(f, tree, m, duplicate);
    reached.insert(m);
    CHECK(reached == all);
    CHECK_FALSE(duplicate);
  }
  CHECK(must(engine.multicast_tree(RoutingInput{graph}, Lid{0xC000}, {})).ports.size() == f.node_count());
  CHECK_FALSE(engine.multicast_tree(RoutingInput{graph}, Lid{0xC000}, std::vector<PortRef>{{NodeIndex{0}, 200}}).ok());
}

TEST_CASE("a reroute is needed when cables or lids change, not otherwise", "[routing][engine]") {
  const Fabric before = [] {
    Fabric f = must(topogen::kary_ntree({.k = 2, .n = 3}));
    testing::assign_lids(f);
    return f;
  }();
  MinHopEngine engine;
  Fabric after = before;
  CHECK_FALSE(engine.needs_reroute(before, after));
  SECTION("a port goes active: same routes") {
    for (const Link& l : after.links()) after.node(l.a.node).port(l.a.port).state = PortState::active;
    CHECK_FALSE(engine.needs_reroute(before, after));
  }
  SECTION("a cable goes down") {
    const Link l = after.links().back();
    after.node(l.a.node).port(l.a.port).state = PortState::down;
    CHECK(engine.needs_reroute(before, after));
  }
  SECTION("a lid changes") {
    const auto hosts = testing::endpoint_ports(after);
    after.node(hosts[0].node).port(hosts[0].port).base_lid = Lid{1000};
    CHECK(engine.needs_reroute(before, after));
  }
  SECTION("the lmc changes") {
    const auto hosts = testing::endpoint_ports(after);
    after.node(hosts[0].node).port(hosts[0].port).lmc = 1;
    CHECK(engine.needs_reroute(before, after));
  }
  SECTION("two hosts of one switch swap their cables") {
    // Every LID is still there, each off another switch port: keyed by
    // where each cable leads, not by how many there are.
    const auto hosts = testing::endpoint_ports(after);
    const auto peer = [&](PortRef h) {
      const Port& p = after.node(h.node).port(h.port);
      return PortRef{p.remote_node, p.remote_port};
    };
    std::optional<std::pair<PortRef, PortRef>> pair;
    for (size_t i = 0; i < hosts.size() && !pair; ++i)
      for (size_t j = i + 1; j < hosts.size() && !pair; ++j)
        if (peer(hosts[i]).node == peer(hosts[j]).node) pair = std::pair{hosts[i], hosts[j]};
    REQUIRE(pair);
    const PortRef a = pair->first, b = pair->second, to_a = peer(a), to_b = peer(b);
    after.disconnect(a);
    after.disconnect(b);
    must(after.connect(a, to_b));
    must(after.connect(b, to_a));
    for (const PortRef& end : {a, b, to_a, to_b}) {
      after.node(end.node).port(end.port).state = PortState::active;
      after.node(end.node).port(end.port).phys_state = PhysState::link_up;
    }
    CHECK(engine.needs_reroute(before, after));
    CHECK(engine.needs_reroute(after, before));
  }
}

}  // namespace
}  // namespace ibsm::routing
